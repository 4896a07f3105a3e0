#pragma once
// ListOffsets (key 2) v1-v10: the offset of a timestamp, or of the log's start or end.
// Request: replica_id, isolation_level (v2+), per topic per partition the current leader
// epoch (v4+) and the timestamp (or one of the special timestamps below), timeout_ms
// (v10+, KIP-1075). Response:
// throttle time (v2+), per topic per partition the error, timestamp, offset and leader
// epoch (v4+). Flexible from v6.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int16_t kListOffsetsMinVersion = 1;
inline constexpr int16_t kListOffsetsMaxVersion = 10;

// Timestamps with a meaning of their own in a ListOffsets request.
inline constexpr int64_t kListOffsetsLatestTimestamp = -1;         // the log end offset
inline constexpr int64_t kListOffsetsEarliestTimestamp = -2;       // the log start offset
inline constexpr int64_t kListOffsetsMaxTimestamp = -3;            // v7+: the record with the largest timestamp
inline constexpr int64_t kListOffsetsEarliestLocalTimestamp = -4;  // v8+: the local log's start (KIP-405)
inline constexpr int64_t kListOffsetsLatestTieredTimestamp = -5;   // v9+: the last offset copied (KIP-1005)
// v10+ here: the first offset not yet copied (KIP-1023; the reference schemas name no
// version for it, so Strata takes it from the newest version it serves).
inline constexpr int64_t kListOffsetsEarliestPendingUploadTimestamp = -6;

struct ListOffsetsRequest {
  struct Partition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;  // v4+
    int64_t timestamp = kListOffsetsLatestTimestamp;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t replica_id = -1;     // -1: a consumer
  int8_t isolation_level = 0;  // v2+; 0: read uncommitted, 1: read committed
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;      // v10+ (KIP-1075: how long a remote lookup may take)
  bool operator==(const ListOffsetsRequest&) const = default;
};

struct ListOffsetsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;  // v4+
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
  bool operator==(const ListOffsetsResponse&) const = default;
};

// REQUIRES (all four): kListOffsetsMinVersion <= version <= kListOffsetsMaxVersion.
absl::StatusOr<ListOffsetsRequest> ReadListOffsetsRequest(Reader& reader, int16_t version);
void WriteListOffsetsRequest(const ListOffsetsRequest& request, int16_t version, Writer& writer);
void WriteListOffsetsResponse(const ListOffsetsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<ListOffsetsResponse> ReadListOffsetsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
