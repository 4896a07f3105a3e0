#pragma once
// ElectLeaders (key 43) v0-v2, all served: elects the preferred replica (or, v1+, an
// unclean leader) of the given partitions. Request: election_type (v1+; v0 is always
// PREFERRED), the topic partitions (nullable: null for every partition), timeout_ms.
// Response: throttle time, a top-level error code (v1+), per topic its per-partition
// results (partition id, error code, nullable error message). Flexible from v2.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

// The election types (KIP-460).
enum class ElectionType : int8_t {
  kPreferred = 0,
  kUnclean = 1,
};

struct ElectLeadersRequest {
  struct TopicPartitions {
    std::string topic;
    std::vector<int32_t> partitions;
    bool operator==(const TopicPartitions&) const = default;
  };
  int8_t election_type = static_cast<int8_t>(ElectionType::kPreferred);  // v1+
  std::optional<std::vector<TopicPartitions>> topic_partitions;          // nullopt: every partition
  int32_t timeout_ms = 60000;
  bool operator==(const ElectLeadersRequest&) const = default;
};

struct ElectLeadersResponse {
  struct PartitionResult {
    int32_t partition_id = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const PartitionResult&) const = default;
  };
  struct ReplicaElectionResult {
    std::string topic;
    std::vector<PartitionResult> partition_result;
    bool operator==(const ReplicaElectionResult&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v1+
  std::vector<ReplicaElectionResult> replica_election_results;
  bool operator==(const ElectLeadersResponse&) const = default;
};

absl::StatusOr<ElectLeadersRequest> ReadElectLeadersRequest(Reader& reader, int16_t version);
void WriteElectLeadersRequest(const ElectLeadersRequest& request, int16_t version, Writer& writer);
void WriteElectLeadersResponse(const ElectLeadersResponse& response, int16_t version, Writer& writer);
absl::StatusOr<ElectLeadersResponse> ReadElectLeadersResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
