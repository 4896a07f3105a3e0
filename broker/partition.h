#pragma once
// Partition: one partition this broker hosts, as leader or follower — its log and what
// the metadata image says of it (leader, leader epoch, partition epoch, replicas, ISR).
// The leader takes produce requests and serves consumers up to the high watermark;
// a follower serves no client (NOT_LEADER_OR_FOLLOWER; replication arrives with
// issue 6). Requests naming a leader epoch are checked against it as Kafka does
// (older: FENCED_LEADER_EPOCH, newer: UNKNOWN_LEADER_EPOCH).
// High watermark: the leader moves it to the smallest log end offset among the ISR
// members, counting its own; the LEOs of followers are reported by their fetches.
// Thread-safe: the state is guarded, the Log is thread-safe itself.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/log.h"

namespace strata::broker {

// What the metadata image says of a partition.
struct PartitionState {
  std::string topic_id;  // 16 bytes
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  int32_t partition_epoch = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  bool operator==(const PartitionState&) const = default;
};

// Where a read may go: consumers up to the high watermark (READ_UNCOMMITTED) or the
// last stable offset (READ_COMMITTED: the same until transactions exist), replicas up
// to the log end.
enum class FetchIsolation { kHighWatermark, kTxnCommitted, kLogEnd };

struct PartitionReadInfo {
  storage::FetchDataInfo data;
  int64_t high_watermark = 0;
  int64_t last_stable_offset = 0;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
};

struct OffsetAndEpoch {
  int64_t offset = -1;
  int64_t timestamp = -1;
  int32_t leader_epoch = -1;
};

class Partition {
 public:
  Partition(storage::TopicPartition tp, int32_t local_broker_id, storage::Log* log);

  // Takes the image's state. Becoming leader of a new epoch records the epoch's start
  // at the log end in the leader-epoch cache. Returns true when this broker's role or
  // the leader epoch changed.
  absl::StatusOr<bool> Update(const PartitionState& state);

  // Appends a producer's batches (validated, offsets assigned, stamped with the leader
  // epoch; records is rewritten in place). NOT_LEADER_OR_FOLLOWER when not leader.
  absl::StatusOr<storage::LogAppendInfo> AppendRecordsToLeader(std::string& records);

  // Reads from fetch_offset under the isolation's bound. current_leader_epoch: the
  // client's view (nullopt: unchecked). Only a leader serves consumers.
  absl::StatusOr<PartitionReadInfo> ReadRecords(int64_t fetch_offset, uint64_t max_bytes, FetchIsolation isolation,
                                                std::optional<int32_t> current_leader_epoch, bool min_one_batch) const;

  // ListOffsets: timestamp >= 0, or -1 latest, -2 earliest, -3 max timestamp,
  // -4 earliest local. offset -1 when no record matches below the bound.
  absl::StatusOr<OffsetAndEpoch> FetchOffsetForTimestamp(int64_t timestamp, FetchIsolation isolation,
                                                         std::optional<int32_t> current_leader_epoch) const;

  // OffsetForLeaderEpoch: (the largest epoch <= requested, its end offset).
  absl::StatusOr<std::pair<int32_t, int64_t>> LastOffsetForLeaderEpoch(std::optional<int32_t> current_leader_epoch,
                                                                       int32_t leader_epoch) const;

  // A follower's fetch reported its log end offset (issue 6 calls this); may move the
  // high watermark. Returns whether it moved.
  bool UpdateFollowerLogEnd(int32_t replica_id, int64_t log_end_offset);

  const storage::TopicPartition& topic_partition() const { return tp_; }
  storage::Log* log() const { return log_; }
  PartitionState state() const;
  bool is_leader() const;
  int32_t leader_epoch() const;
  int64_t high_watermark() const { return log_->high_watermark(); }

 private:
  // The epoch check, then (when require_leader) that this broker leads.
  absl::Status CheckEpochLocked(std::optional<int32_t> current_leader_epoch, bool require_leader) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Moves the high watermark up to the smallest LEO of the ISR; never down.
  bool MaybeIncrementHighWatermarkLocked() ABSL_SHARED_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(hw_mu_);
  bool IsLeaderLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return state_.leader == local_broker_id_; }

  const storage::TopicPartition tp_;
  const int32_t local_broker_id_;
  storage::Log* const log_;
  mutable absl::Mutex mu_;
  PartitionState state_ ABSL_GUARDED_BY(mu_);
  bool has_state_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int32_t, int64_t> follower_log_end_ ABSL_GUARDED_BY(hw_mu_);
  // Serialises high-watermark moves, which run under the shared mu_ (appends).
  mutable absl::Mutex hw_mu_ ABSL_ACQUIRED_AFTER(mu_);
};

}  // namespace strata::broker
