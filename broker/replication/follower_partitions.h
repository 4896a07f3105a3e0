#pragma once
// What a ReplicaFetcher needs of the broker, and nothing more: the partitions it follows
// (FollowerPartitions, which ReplicaManager implements) and, of each, where its log
// stands and the follower's four answers to a leader (FollowerPartition, which Partition
// implements). Each answer checks, as Partition says, that this broker still follows in
// the epoch the fetch was sent in. Tests can give a fetcher a fake of either.
// Thread-safe: called from the fetcher threads while the metadata thread changes the
// partitions.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/checkpoint_file.h"
#include "storage/file_names.h"
#include "storage/log.h"

namespace strata::broker {

// Where a follower's log stands: what its next fetch asks from.
struct FollowerLogPosition {
  int64_t log_end_offset = 0;       // the fetch offset
  int32_t last_fetched_epoch = -1;  // the epoch of its last batch (-1: empty log)
  int64_t log_start_offset = 0;
};

// What a follower's append of fetched records did.
struct FollowerAppend {
  storage::LogAppendInfo info;
  // Its high watermark moved: a consumer reading from this replica (KIP-392) may read more.
  bool high_watermark_moved = false;
  // Its log start moved (the leader's DeleteRecords reached it).
  bool log_start_moved = false;
};

class FollowerPartition {
 public:
  virtual ~FollowerPartition() = default;
  virtual FollowerLogPosition follower_log_position() const = 0;
  // Appends the fetched records (the leader's offsets kept); the high watermark becomes
  // min(leader's, own log end); the log start moves up to the leader's (DeleteRecords),
  // never past the high watermark.
  virtual absl::StatusOr<FollowerAppend> AppendRecordsToFollower(int32_t fetched_in_epoch, absl::string_view records,
                                                                 int64_t leader_high_watermark,
                                                                 int64_t leader_log_start) = 0;
  // A diverging log: truncates to where it agrees with the leader's.
  virtual absl::Status TruncateToDivergence(int32_t fetched_in_epoch, int32_t diverging_epoch,
                                            int64_t leader_end_offset) = 0;
  // OFFSET_OUT_OF_RANGE above the leader's log end: truncates to it.
  virtual absl::Status TruncateToLeaderLogEnd(int32_t fetched_in_epoch, int64_t leader_log_end) = 0;
  // OFFSET_OUT_OF_RANGE below the leader's log start: the log restarts empty there.
  virtual absl::Status RestartAtLeaderLogStart(int32_t fetched_in_epoch, int64_t leader_log_start) = 0;
  // The tier state machine: the log restarts at offset with the state below it that
  // the remote tier holds (leader-epoch entries, producer snapshot; tier_state_machine.h).
  virtual absl::Status RestartFromRemoteTier(int32_t fetched_in_epoch, int64_t offset,
                                             const std::vector<storage::EpochEntry>& epochs,
                                             absl::string_view producer_snapshot) = 0;
  // The topic's id (the remote tier names copies by it).
  virtual std::string topic_id() const = 0;
  // KIP-1023: remote storage with follower.fetch.last.tiered.offset.enable.
  virtual bool fetch_last_tiered_offset() const = 0;
  // Whether this broker is in the partition's ISR (a follower in it is never throttled).
  virtual bool in_isr() const { return true; }
};

class FollowerPartitions {
 public:
  virtual ~FollowerPartitions() = default;
  // The partition hosted as tp; nullptr when this broker does not host it (any more).
  virtual std::shared_ptr<FollowerPartition> GetFollowerPartition(const storage::TopicPartition& tp) const = 0;
  // The high watermark of tp, followed here, moved: fetches waiting on it at this broker
  // (a consumer reading from this replica, KIP-392) look again, as they do on a leader.
  virtual void FollowerHighWatermarkMoved(const storage::TopicPartition& tp) = 0;
};

}  // namespace strata::broker
