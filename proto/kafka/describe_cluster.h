#pragma once
// DescribeCluster (key 60) v0-v1, all served; flexible in every version. Request:
// include_cluster_authorized_operations, endpoint_type (v1+: 1 brokers, 2 controllers).
// Response: throttle time, error code and message (nullable), endpoint_type (v1+),
// cluster id, controller id, brokers (id, host, port, rack nullable) and the cluster's
// authorized operations.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/metadata.h"  // kUnknownAuthorizedOperations
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

enum class EndpointType : int8_t {
  kBroker = 1,
  kController = 2,
};

struct DescribeClusterRequest {
  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = static_cast<int8_t>(EndpointType::kBroker);  // v1+
};

struct DescribeClusterResponse {
  struct Broker {
    int32_t broker_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int8_t endpoint_type = static_cast<int8_t>(EndpointType::kBroker);  // v1+
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<Broker> brokers;
  int32_t cluster_authorized_operations = kUnknownAuthorizedOperations;
};

absl::StatusOr<DescribeClusterRequest> ReadDescribeClusterRequest(Reader& reader, int16_t version);
void WriteDescribeClusterRequest(const DescribeClusterRequest& request, int16_t version, Writer& writer);
void WriteDescribeClusterResponse(const DescribeClusterResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeClusterResponse> ReadDescribeClusterResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
