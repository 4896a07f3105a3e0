#pragma once
// Metadata (key 3) v0-v12. Request: the topics wanted (v0: an empty array means all;
// v1+: null means all; v10+: by topic id or name), allow_auto_topic_creation (v4+),
// include_cluster_authorized_operations (v8-v10), include_topic_authorized_operations
// (v8+). Response: throttle time (v3+), brokers (rack v1+), cluster id (v2+), controller
// id (v1+), topics (is_internal v1+, topic id v10+, name nullable v12+, authorized
// operations v8+) with partitions (leader epoch v7+, offline replicas v5+), cluster
// authorized operations (v8-v10). Flexible from v9.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int32_t kUnknownAuthorizedOperations = INT32_MIN;

struct MetadataRequest {
  struct Topic {
    std::string topic_id;             // v10+ (16 zero bytes: by name)
    std::optional<std::string> name;  // nullable v10+
  };
  std::optional<std::vector<Topic>> topics;  // nullopt: every topic
  bool allow_auto_topic_creation = true;
  bool include_cluster_authorized_operations = false;
  bool include_topic_authorized_operations = false;
};

struct MetadataResponse {
  struct Broker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
  };
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;
  };
  struct Topic {
    int16_t error_code = 0;
    std::optional<std::string> name;
    std::string topic_id = std::string(16, '\0');
    bool is_internal = false;
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = kUnknownAuthorizedOperations;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Broker> brokers;
  std::optional<std::string> cluster_id;
  int32_t controller_id = -1;
  std::vector<Topic> topics;
  int32_t cluster_authorized_operations = kUnknownAuthorizedOperations;
};

absl::StatusOr<MetadataRequest> ReadMetadataRequest(Reader& reader, int16_t version);
void WriteMetadataRequest(const MetadataRequest& request, int16_t version, Writer& writer);
void WriteMetadataResponse(const MetadataResponse& response, int16_t version, Writer& writer);
absl::StatusOr<MetadataResponse> ReadMetadataResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
