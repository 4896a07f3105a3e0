#pragma once
// Fetch (key 1) v4-v13: consumers and followers read record data. Request: replica_id,
// wait and size limits, isolation level, the fetch session (v7+), per topic (by name, by
// topic id from v13) per partition the fetch offset, epochs (current leader v9+, last
// fetched v12+) and follower log start (v5+), forgotten topics (v7+), rack (v11+), and
// the cluster id (tag 0, v12+). Response: throttle time, error and session (v7+), per
// topic per partition the watermarks, aborted transactions, preferred read replica
// (v11+), record data, and the tagged diverging epoch, current leader and snapshot id
// (tags 0-2, v12+). Flexible from v12.
// A response's record data can be written without copying it: see records_splice.
// Not thread-safe (values and functions).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int16_t kFetchMinVersion = 4;
inline constexpr int16_t kFetchMaxVersion = 13;

struct FetchRequest {
  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v9+
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;  // v12+
    int64_t log_start_offset = -1;    // v5+, from followers
    int32_t partition_max_bytes = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;                             // v4-v12
    std::string topic_id = std::string(16, '\0');  // v13+
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct ForgottenTopic {
    std::string topic;                             // v7-v12
    std::string topic_id = std::string(16, '\0');  // v13+
    std::vector<int32_t> partitions;
    bool operator==(const ForgottenTopic&) const = default;
  };
  std::optional<std::string> cluster_id;  // v12+, tag 0: written only when set
  int32_t replica_id = -1;                // -1: a consumer
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = std::numeric_limits<int32_t>::max();
  int8_t isolation_level = 0;  // 0: read uncommitted, 1: read committed
  int32_t session_id = 0;      // v7+
  int32_t session_epoch = -1;  // v7+
  std::vector<Topic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;  // v7+
  std::string rack_id;                                // v11+
  bool operator==(const FetchRequest&) const = default;
};

struct FetchResponse {
  struct EpochEndOffset {
    int32_t epoch = -1;
    int64_t end_offset = -1;
    bool operator==(const EpochEndOffset&) const = default;
  };
  struct LeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    bool operator==(const LeaderIdAndEpoch&) const = default;
  };
  struct SnapshotId {
    int64_t end_offset = -1;
    int32_t epoch = -1;
    bool operator==(const SnapshotId&) const = default;
  };
  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
    bool operator==(const AbortedTransaction&) const = default;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;  // v5+
    // The tagged fields (v12+), each written only when set.
    std::optional<EpochEndOffset> diverging_epoch;   // tag 0
    std::optional<LeaderIdAndEpoch> current_leader;  // tag 1
    std::optional<SnapshotId> snapshot_id;           // tag 2
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;  // null: none reported
    int32_t preferred_read_replica = -1;  // v11+
    // The record data, written as nullable bytes (null: nullopt) ...
    std::optional<std::string> records;
    // ... unless records_splice >= 0: then the writer writes the length of the bytes of
    // records_splice_sizes and records one Splice per size, with ids records_splice,
    // records_splice + 1, ..., where the caller sends them one after another
    // (Writer::SplicedBytes; a local read is one slice of a segment, a remote read one
    // per cached block it spans). Reading always fills `records`.
    int32_t records_splice = -1;
    std::vector<uint64_t> records_splice_sizes;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;                             // v4-v12
    std::string topic_id = std::string(16, '\0');  // v13+
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v7+
  int32_t session_id = 0;  // v7+
  std::vector<Topic> responses;
  bool operator==(const FetchResponse&) const = default;
};

// REQUIRES (all four): kFetchMinVersion <= version <= kFetchMaxVersion.
absl::StatusOr<FetchRequest> ReadFetchRequest(Reader& reader, int16_t version);
void WriteFetchRequest(const FetchRequest& request, int16_t version, Writer& writer);
// REQUIRES: a writer made with a splice list when a partition has records_splice >= 0.
void WriteFetchResponse(const FetchResponse& response, int16_t version, Writer& writer);
absl::StatusOr<FetchResponse> ReadFetchResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
