#pragma once
// OffsetForLeaderEpoch (key 23) v2-v4: where a leader epoch ends in the leader's log, so
// a follower or consumer can find where its log diverged. Request: replica_id (v3+), per
// topic per partition the current leader epoch (for fencing) and the epoch to look up.
// Response: throttle time, per topic per partition the error, the largest epoch not
// above the one asked for, and its end offset. Flexible from v4.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int16_t kOffsetForLeaderEpochMinVersion = 2;
inline constexpr int16_t kOffsetForLeaderEpochMaxVersion = 4;

struct OffsetForLeaderEpochRequest {
  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
    int32_t leader_epoch = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  // v3+: the follower's broker id, -1 for a consumer; -2 (the schema's default) when a
  // v2 request did not say.
  int32_t replica_id = -2;
  std::vector<Topic> topics;
  bool operator==(const OffsetForLeaderEpochRequest&) const = default;
};

struct OffsetForLeaderEpochResponse {
  struct Partition {
    int16_t error_code = 0;
    int32_t partition = 0;
    int32_t leader_epoch = -1;
    int64_t end_offset = -1;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  bool operator==(const OffsetForLeaderEpochResponse&) const = default;
};

// REQUIRES (all four): kOffsetForLeaderEpochMinVersion <= version <=
// kOffsetForLeaderEpochMaxVersion.
absl::StatusOr<OffsetForLeaderEpochRequest> ReadOffsetForLeaderEpochRequest(Reader& reader, int16_t version);
void WriteOffsetForLeaderEpochRequest(const OffsetForLeaderEpochRequest& request, int16_t version, Writer& writer);
void WriteOffsetForLeaderEpochResponse(const OffsetForLeaderEpochResponse& response, int16_t version, Writer& writer);
absl::StatusOr<OffsetForLeaderEpochResponse> ReadOffsetForLeaderEpochResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
