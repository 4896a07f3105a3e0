#pragma once
// OffsetCommit (key 8) v0-v9: a consumer stores its positions in the group. Request:
// group id, the generation id (or, with the KIP-848 protocol, the member epoch) and
// member id (v1+; -1 and "" for a commit from outside the group), group instance id
// (v7+, nullable), retention_time_ms (v2-v4; -1: the broker's retention), and per topic
// per partition the offset, its leader epoch (v6+, -1 when unknown), commit timestamp
// (v1 only) and metadata (nullable). Response: throttle time (v3+), per topic per
// partition an error code. v3 and v4 are v2, v5 drops the retention time; flexible from
// v8; v9 is v8 (usable with the KIP-848 protocol).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct OffsetCommitRequest {
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v6+
    int64_t commit_timestamp = -1;        // v1 only
    std::optional<std::string> committed_metadata;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::string group_id;
  int32_t generation_id_or_member_epoch = -1;    // v1+
  std::string member_id;                         // v1+
  std::optional<std::string> group_instance_id;  // v7+
  int64_t retention_time_ms = -1;                // v2-v4
  std::vector<Topic> topics;
  bool operator==(const OffsetCommitRequest&) const = default;
};

struct OffsetCommitResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<Topic> topics;
  bool operator==(const OffsetCommitResponse&) const = default;
};

absl::StatusOr<OffsetCommitRequest> ReadOffsetCommitRequest(Reader& reader, int16_t version);
void WriteOffsetCommitRequest(const OffsetCommitRequest& request, int16_t version, Writer& writer);
void WriteOffsetCommitResponse(const OffsetCommitResponse& response, int16_t version, Writer& writer);
absl::StatusOr<OffsetCommitResponse> ReadOffsetCommitResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
