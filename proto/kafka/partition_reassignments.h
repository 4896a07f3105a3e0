#pragma once
// AlterPartitionReassignments (key 45) v0-v1 and ListPartitionReassignments (key 46) v0,
// all served, all flexible (KIP-455).
//  * AlterPartitionReassignments: per topic, per partition the target replicas, or null to
//    cancel the partition's reassignment; v1 (KIP-860) says whether the replication factor
//    may change. Response: throttle time, v1's allow flag echoed, a top-level error and
//    message, per topic per partition an error and message.
//  * ListPartitionReassignments: the topics and partitions to list (null: every one).
//    Response: throttle time, a top-level error and message, per topic the partitions
//    being reassigned with their replicas, adding and removing replicas.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct AlterPartitionReassignmentsRequest {
  struct Partition {
    int32_t partition_index = 0;
    std::optional<std::vector<int32_t>> replicas;  // nullopt: cancel
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t timeout_ms = 60000;
  bool allow_replication_factor_change = true;  // v1+
  std::vector<Topic> topics;
  bool operator==(const AlterPartitionReassignmentsRequest&) const = default;
};

struct AlterPartitionReassignmentsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  bool allow_replication_factor_change = true;  // v1+
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Topic> responses;
  bool operator==(const AlterPartitionReassignmentsResponse&) const = default;
};

struct ListPartitionReassignmentsRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    bool operator==(const Topic&) const = default;
  };
  int32_t timeout_ms = 60000;
  std::optional<std::vector<Topic>> topics;  // nullopt: every partition
  bool operator==(const ListPartitionReassignmentsRequest&) const = default;
};

struct ListPartitionReassignmentsResponse {
  struct Partition {
    int32_t partition_index = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;
    std::vector<int32_t> removing_replicas;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Topic> topics;
  bool operator==(const ListPartitionReassignmentsResponse&) const = default;
};

absl::StatusOr<AlterPartitionReassignmentsRequest> ReadAlterPartitionReassignmentsRequest(Reader& reader,
                                                                                         int16_t version);
void WriteAlterPartitionReassignmentsRequest(const AlterPartitionReassignmentsRequest& request, int16_t version,
                                             Writer& writer);
void WriteAlterPartitionReassignmentsResponse(const AlterPartitionReassignmentsResponse& response, int16_t version,
                                              Writer& writer);
absl::StatusOr<AlterPartitionReassignmentsResponse> ReadAlterPartitionReassignmentsResponse(Reader& reader,
                                                                                           int16_t version);

absl::StatusOr<ListPartitionReassignmentsRequest> ReadListPartitionReassignmentsRequest(Reader& reader,
                                                                                       int16_t version);
void WriteListPartitionReassignmentsRequest(const ListPartitionReassignmentsRequest& request, int16_t version,
                                            Writer& writer);
void WriteListPartitionReassignmentsResponse(const ListPartitionReassignmentsResponse& response, int16_t version,
                                             Writer& writer);
absl::StatusOr<ListPartitionReassignmentsResponse> ReadListPartitionReassignmentsResponse(Reader& reader,
                                                                                         int16_t version);

}  // namespace strata::proto::kafka
