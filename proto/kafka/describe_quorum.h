#pragma once
// DescribeQuorum (key 55) v0-v2, all served; flexible in every version
// (kafka-metadata-quorum, AdminClient.describeMetadataQuorum). Request: topics with their
// partitions (the metadata log: __cluster_metadata, partition 0). Response: a top-level
// error code (and message, v2+), per topic per partition the error (message v2+), the
// leader id and epoch, the high watermark, the current voters and the observers (each:
// replica id, directory id v2+, log end offset, last fetch and last caught-up times
// v1+); v2+ the voters' nodes with their listeners (name, host, port).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/common_fields.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr const char* kClusterMetadataTopic = "__cluster_metadata";

struct DescribeQuorumRequest {
  struct Topic {
    std::string topic_name;
    std::vector<int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  bool operator==(const DescribeQuorumRequest&) const = default;
};

struct DescribeQuorumResponse {
  struct ReplicaState {
    int32_t replica_id = -1;
    std::string replica_directory_id = std::string(16, '\0');  // v2+
    int64_t log_end_offset = -1;
    int64_t last_fetch_timestamp = -1;     // v1+
    int64_t last_caught_up_timestamp = -1; // v1+
    bool operator==(const ReplicaState&) const = default;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;  // v2+
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    int64_t high_watermark = -1;
    std::vector<ReplicaState> current_voters;
    std::vector<ReplicaState> observers;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic_name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  using Listener = kafka::Listener;
  struct Node {
    int32_t node_id = -1;
    std::vector<Listener> listeners;
    bool operator==(const Node&) const = default;
  };
  int16_t error_code = 0;
  std::optional<std::string> error_message;  // v2+
  std::vector<Topic> topics;
  std::vector<Node> nodes;  // v2+
  bool operator==(const DescribeQuorumResponse&) const = default;
};

absl::StatusOr<DescribeQuorumRequest> ReadDescribeQuorumRequest(Reader& reader, int16_t version);
void WriteDescribeQuorumRequest(const DescribeQuorumRequest& request, int16_t version, Writer& writer);
void WriteDescribeQuorumResponse(const DescribeQuorumResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeQuorumResponse> ReadDescribeQuorumResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
