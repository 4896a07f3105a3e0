#pragma once
// OffsetFetch (key 9) v0-v9: a consumer reads the positions its group committed.
// Request: v0-v7 one group: group_id and the topics (name, partition indexes; nullable
// from v2: null for every committed partition; v0-v1 cannot say so, a null is written
// there as an empty array); require_stable (v7+: answer UNSTABLE_OFFSET_COMMIT rather
// than an offset a transaction may still change); v8+ a batch of groups instead (group
// id, member id (v9+, nullable) and member epoch (v9+, -1) of the KIP-848 protocol,
// topics (nullable)). Response: throttle time (v3+); v0-v7 the topics (per partition the
// offset, leader epoch (v5+), metadata (nullable), error code) and a top-level error
// code (v2+); v8+ one Group per group instead (group id, topics, error code). Both shapes
// live in one struct: a handler reads `group_id`/`topics` below v8 and `groups` from v8,
// and answers in the same shape. v3-v5 are v2 on the request side; flexible from v6.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct OffsetFetchRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    bool operator==(const Topic&) const = default;
  };
  struct Group {
    std::string group_id;
    std::optional<std::string> member_id;  // v9+
    int32_t member_epoch = -1;             // v9+
    std::optional<std::vector<Topic>> topics = std::vector<Topic>{};  // nullopt: every topic
    bool operator==(const Group&) const = default;
  };
  std::string group_id;                                             // v0-v7
  std::optional<std::vector<Topic>> topics = std::vector<Topic>{};  // v0-v7; nullable v2+ (every topic)
  std::vector<Group> groups;                                        // v8+
  bool require_stable = false;                                      // v7+
  bool operator==(const OffsetFetchRequest&) const = default;
};

struct OffsetFetchResponse {
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v5+
    std::optional<std::string> metadata;
    int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Group {
    std::string group_id;
    std::vector<Topic> topics;
    int16_t error_code = 0;
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<Topic> topics;     // v0-v7
  int16_t error_code = 0;        // v2-v7
  std::vector<Group> groups;     // v8+
  bool operator==(const OffsetFetchResponse&) const = default;
};

absl::StatusOr<OffsetFetchRequest> ReadOffsetFetchRequest(Reader& reader, int16_t version);
void WriteOffsetFetchRequest(const OffsetFetchRequest& request, int16_t version, Writer& writer);
void WriteOffsetFetchResponse(const OffsetFetchResponse& response, int16_t version, Writer& writer);
absl::StatusOr<OffsetFetchResponse> ReadOffsetFetchResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
