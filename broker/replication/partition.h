#pragma once
// Partition: one partition this broker hosts, as leader or follower — its log and what
// the metadata image says of it (leader, leader epoch, partition epoch, replicas, ISR).
// The leader takes produce requests and serves consumers up to the high watermark;
// a follower appends what it fetches from the leader and serves consumers only as their
// preferred read replica (KIP-392), otherwise NOT_LEADER_OR_FOLLOWER. Requests naming a leader epoch are checked against it as Kafka does
// (older: FENCED_LEADER_EPOCH, newer: UNKNOWN_LEADER_EPOCH).
// High watermark: the leader moves it to the smallest log end offset among the ISR
// members (and members of an ISR change in flight), counting its own; followers report
// theirs by fetching, and learn the high watermark from the leader's answers.
// ISR: the leader tracks when each follower last caught up; ReplicaManager asks the
// controller (AlterPartition) to drop the laggards and to add followers that caught up.
// Thread-safe: the state is guarded, the Log is thread-safe itself.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/replication/follower_partitions.h"
#include "storage/log.h"
#include "storage/log_manager.h"

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
// last stable offset (READ_COMMITTED, with the aborted transactions in what is read),
// replicas up to the log end.
enum class FetchIsolation { kHighWatermark, kTxnCommitted, kLogEnd };

struct PartitionReadInfo {
  storage::FetchDataInfo data;
  int64_t high_watermark = 0;
  int64_t last_stable_offset = 0;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  // READ_COMMITTED with records read: the aborted transactions among them (the
  // aborted-index entries up to the last stable offset), oldest first.
  std::optional<std::vector<storage::AbortedTxn>> aborted_txns;
};

// What the metadata image says of the partition's copies in the remote tier
// (tiered storage, KIP-405).
struct RemoteTierState {
  bool enabled = false;                 // remote.storage.enable
  int64_t log_start_offset = -1;        // the first offset a finished copy holds (-1: none)
  int32_t log_start_epoch = -1;         // the leader epoch in force there
  int64_t highest_copied_offset = -1;   // the last offset a finished copy holds (-1: none)
  int32_t highest_copied_epoch = -1;
  int32_t segments = 0;                 // finished copies
  int64_t bytes = 0;
  bool operator==(const RemoteTierState&) const = default;
};

// What went through a partition on this broker, summed by topic for the per-topic
// metrics (server/broker_metrics.h): producers' appends as leader, consumers' reads,
// and replication both ways. Relaxed atomic counters.
struct PartitionTraffic {
  std::atomic<int64_t> bytes_in{0};
  std::atomic<int64_t> records_in{0};
  std::atomic<int64_t> bytes_out{0};
  std::atomic<int64_t> replication_bytes_in{0};
  std::atomic<int64_t> replication_bytes_out{0};
};

struct OffsetAndEpoch {
  int64_t offset = -1;
  int64_t timestamp = -1;
  int32_t leader_epoch = -1;
};

class Partition final : public FollowerPartition {
 public:
  Partition(storage::TopicPartition tp, int32_t local_broker_id, storage::Log* log);

  // Takes the image's state. Becoming leader of a new epoch records the epoch's start
  // at the log end in the leader-epoch cache. Returns true when this broker's role or
  // the leader epoch changed.
  absl::StatusOr<bool> Update(const PartitionState& state, int64_t now_ms);

  // Appends a producer's batches (validated, offsets assigned, stamped with the leader
  // epoch; records is rewritten in place). NOT_LEADER_OR_FOLLOWER when not leader.
  absl::StatusOr<storage::LogAppendInfo> AppendRecordsToLeader(
      std::string& records, storage::AppendOrigin origin = storage::AppendOrigin::kClient,
      const storage::TxnVerification& verification = {});

  // Reads from fetch_offset under the isolation's bound. An offset below the local log
  // start that the remote tier holds is OFFSET_MOVED_TO_TIERED_STORAGE (consumers are
  // served from the remote tier, followers rebuild from it). current_leader_epoch: the
  // client's view (nullopt: unchecked). leader_only: refuse on a follower
  // (NOT_LEADER_OR_FOLLOWER); else a follower serves up to its own high watermark
  // (KIP-392 fetching from the closest replica).
  absl::StatusOr<PartitionReadInfo> ReadRecords(int64_t fetch_offset, uint64_t max_bytes, FetchIsolation isolation,
                                                std::optional<int32_t> current_leader_epoch, bool min_one_batch,
                                                bool leader_only = true) const;

  // ListOffsets: timestamp >= 0, or -1 latest, -2 earliest (across both tiers), -3 max
  // timestamp, -4 earliest local, -5 latest tiered, -6 earliest pending upload (offset
  // -1 for both without remote storage). offset -1 when no record matches below the
  // bound. A timestamp is searched in the local log only (the remote tier's part is
  // RemoteLogReader's, list_offsets_handler.cc).
  absl::StatusOr<OffsetAndEpoch> FetchOffsetForTimestamp(int64_t timestamp, FetchIsolation isolation,
                                                         std::optional<int32_t> current_leader_epoch) const;

  // OffsetForLeaderEpoch: (the largest epoch <= requested, its end offset).
  absl::StatusOr<std::pair<int32_t, int64_t>> LastOffsetForLeaderEpoch(std::optional<int32_t> current_leader_epoch,
                                                                       int32_t leader_epoch) const;

  // Leader: a follower fetched from fetch_offset at now_ms while the leader's log ended
  // at leader_log_end. Its fetch offset is its log end; it has caught up when that
  // reaches the leader's log end of this fetch or of its previous one (Kafka's rule).
  // May move the high watermark; a follower outside the ISR that reached the high
  // watermark (and this epoch's start) is returned as the ISR to ask for, and that ISR
  // is pending from this moment (Kafka's PendingExpandIsr): the high watermark waits for
  // the follower before it can move past what the follower holds. The caller asks the
  // controller for it, or calls ClearPendingIsr when it will not.
  // follower_log_start: the log start the fetch reported (Fetch v5+; -1: not reported),
  // which DeleteRecords' low watermark counts.
  struct FollowerFetch {
    bool high_watermark_moved = false;
    bool log_start_moved = false;  // the follower reported a log start above its last one
    std::optional<std::vector<int32_t>> expand_isr;
  };
  FollowerFetch UpdateFollowerFetchState(int32_t replica_id, int64_t fetch_offset, int64_t leader_log_end,
                                         int64_t now_ms, int64_t follower_log_start = -1);

  // Leader, DeleteRecords: moves the log start to offset (-1: the high watermark), whole
  // segments below it deleted; returns the offset it moved to (a smaller one than the log
  // start changes nothing). OFFSET_OUT_OF_RANGE above the high watermark or below -1,
  // POLICY_VIOLATION when cleanup.policy does not include delete (Kafka's rule),
  // NOT_LEADER_OR_FOLLOWER on a follower. Followers move theirs when their next fetch's
  // answer carries it (AppendRecordsToFollower). With remote storage this moves the
  // local log only; ReplicaManager::MoveRemoteLogStart moves the remote tier's.
  absl::StatusOr<int64_t> DeleteRecords(int64_t offset);
  // Leader: DeleteRecords' low watermark, the smallest log start among this replica (both
  // tiers) and the followers among live_replicas (the replicas on live brokers); a
  // follower that has not reported one in this leader epoch counts as -1 (Kafka's
  // lowWatermarkIfLeader). NOT_LEADER_OR_FOLLOWER on a follower.
  absl::StatusOr<int64_t> LowWatermark(const std::vector<int32_t>& live_replicas) const;
  // Leader: the ISR without the followers that have not caught up for lag_ms, when that
  // differs from the ISR and no change is in flight; nullopt otherwise.
  std::optional<std::vector<int32_t>> IsrToShrinkTo(int64_t now_ms, int64_t lag_ms) const;
  // Leader: the ISR has members besides this broker and none of them fetched for ms
  // (one that has not fetched in this epoch counts from when this broker became leader).
  bool FollowersSilentFor(int64_t now_ms, int64_t ms) const;
  // Leader: an AlterPartition for new_isr is in flight. Until an entry that moves the
  // partition's epochs settles it (or the controller refuses it), the high watermark
  // counts the union of both ISRs, so an acknowledged record is on every replica that
  // may become leader.
  void SetPendingIsr(std::vector<int32_t> new_isr);
  void ClearPendingIsr();
  // The ISR in flight, if any.
  std::optional<std::vector<int32_t>> pending_isr() const;
  // Leader: the broker epoch (registration) of each replica's broker as the image shows
  // it, after every applied image. A replica whose broker registered again since (a new
  // process, which may have lost its unflushed tail) is forgotten: its fetch state is
  // unknown again (the high watermark waits for it where it must). An ISR change in
  // flight keeps the epochs its new members were counted in
  // (pending_isr_broker_epochs), which AlterPartition carries: the controller refuses a
  // member whose broker registered again since (KIP-903; the replication simulation,
  // seeds 562 and 4332).
  void UpdateReplicaBrokerEpochs(const std::map<int32_t, int64_t>& broker_epochs);
  // The broker epoch each member of the pending ISR was counted in (-1: unknown), in
  // its order; empty without a pending ISR.
  std::vector<int64_t> pending_isr_broker_epochs() const;
  bool has_pending_isr() const;

  // Leader, Fetch v12+: where a follower whose last fetched batch has epoch
  // last_fetched_epoch must truncate before fetching fetch_offset: (epoch, end offset)
  // of the leader's log, or nullopt when the logs agree. First, as for any read, this
  // broker must lead in the follower's current_leader_epoch (FENCED_LEADER_EPOCH,
  // UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER): a broker that has not yet applied the
  // epoch it leads in knows no end offset for it, and its (-1, -1) would send the
  // follower truncating.
  absl::StatusOr<std::optional<std::pair<int32_t, int64_t>>> DivergingEpoch(std::optional<int32_t> current_leader_epoch,
                                                                            int32_t last_fetched_epoch,
                                                                            int64_t fetch_offset) const;

  // Follower, acting on the leader's answer to a fetch sent in leader epoch
  // fetched_in_epoch. Each checks, under the lock that becoming leader takes, that this
  // broker still follows in that epoch, and else changes nothing (NOT_LEADER_OR_FOLLOWER):
  // an answer that arrives after this broker took over, or after the leadership moved,
  // must never cut or extend the log.
  //
  // Appends the fetched records (offsets kept), then sets the high watermark to
  // min(leader's, own log end), then moves the log start up to the leader's (DeleteRecords
  // on the leader; bounded by the high watermark).
  absl::StatusOr<FollowerAppend> AppendRecordsToFollower(int32_t fetched_in_epoch, absl::string_view records,
                                                         int64_t leader_high_watermark,
                                                         int64_t leader_log_start) override;
  // A diverging log: truncates to the end of the leader's diverging_epoch, or less when
  // this log's own epoch ends earlier.
  absl::Status TruncateToDivergence(int32_t fetched_in_epoch, int32_t diverging_epoch,
                                    int64_t leader_end_offset) override;
  // OFFSET_OUT_OF_RANGE above the leader's log end: truncates to it.
  absl::Status TruncateToLeaderLogEnd(int32_t fetched_in_epoch, int64_t leader_log_end) override;
  // OFFSET_OUT_OF_RANGE below the leader's log start: the log restarts empty there.
  absl::Status RestartAtLeaderLogStart(int32_t fetched_in_epoch, int64_t leader_log_start) override;
  absl::Status RestartFromRemoteTier(int32_t fetched_in_epoch, int64_t offset,
                                     const std::vector<storage::EpochEntry>& epochs,
                                     absl::string_view producer_snapshot) override;
  std::string topic_id() const override;
  bool fetch_last_tiered_offset() const override;
  bool in_isr() const override { return InIsr(local_broker_id_); }
  // The log's end, the epoch of its last batch and its start, read one after the other
  // (not one snapshot).
  FollowerLogPosition follower_log_position() const override;

  // AlterReplicaLogDirs (partition_log_move.cc; Kafka's future replica). The mover
  // (log_dir_mover.h) attaches the LogManager's future log of this partition, copies
  // the current log into it step by step while the partition serves, and puts it in the
  // current log's place once it has caught up. Every truncation of the current log is
  // repeated on the future log under future_mu_.
  void AttachFutureLog(storage::Log* future);
  // Stops following; the caller deletes the future log after this.
  void DetachFutureLog();
  storage::Log* future_log() const;
  // The log dir the partition is moving to ("" when none).
  std::string future_log_dir() const;
  // Copies at most max_bytes (at least one batch) of the current log from the future
  // log's end into it. A current log whose start moved past the future log's end
  // (retention, DeleteRecords) restarts the future log empty there.
  struct FutureCopy {
    int64_t bytes = 0;    // copied by this step
    int64_t offsets = 0;  // the offsets those bytes took the future log's end forward
    int64_t lag = 0;      // offsets the future log is behind after it
  };
  absl::StatusOr<FutureCopy> CopyToFutureLog(uint64_t max_bytes);
  // Under the exclusive lock (no append, read or state change meanwhile): copies what
  // is left, max_bytes at a time, then has logs put the future log in the current log's
  // place (LogManager::ReplaceCurrentWithFuture) and serves from it. The caller calls it
  // once a copy step found little left, so the lock is held briefly.
  absl::Status ReplaceLogWithFuture(storage::LogManager& logs, uint64_t max_bytes);
  // The log's config (a change of the topic's or the broker's settings).
  void UpdateLogConfig(const storage::LogConfig& config);
  // The last offset the remote tier holds, as the image shows it.
  void SetHighestOffsetInRemoteStorage(int64_t offset);

  // The remote tier as the image shows it (ReplicaManager::ApplyImage).
  void UpdateRemoteTier(const RemoteTierState& remote);
  RemoteTierState remote_tier() const;
  // The first offset readable in either tier: the remote tier's start when it holds
  // offsets below the local log's, else the local log start.
  int64_t log_start_offset() const;

  // Everything a read of this partition depends on besides the request: equal marks
  // taken before two reads with the same request mean the second answers what the first
  // did (an incremental fetch session skips it, fetch_session.h). Read in one go under
  // the state's lock; the log's figures may move during it, which only makes the next
  // mark differ.
  struct ReadMark {
    const Partition* partition = nullptr;  // a partition replaced (topic re-created) differs
    int32_t leader = -1;
    int32_t leader_epoch = -1;
    int32_t partition_epoch = -1;
    int64_t log_start_offset = -1;  // both tiers
    int64_t log_end_offset = -1;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t truncations = 0;
    bool offline = false;
    bool operator==(const ReadMark&) const = default;
  };
  ReadMark read_mark() const;

  const storage::TopicPartition& topic_partition() const { return tp_; }
  // The partition's log. It changes only when AlterReplicaLogDirs moves it
  // (ReplaceLogWithFuture), under the exclusive lock: an operation of this class sees one
  // log throughout. A caller that holds the pointer across a move reads a retired log,
  // which holds what it held, for file.delete.delay.ms (then: errors), and takes no
  // appends.
  storage::Log* log() const { return log_.load(std::memory_order_acquire); }
  PartitionState state() const;
  bool is_leader() const;
  int32_t leader_epoch() const;
  // Whether the replica on broker `replica` is in the ISR this partition knows.
  bool InIsr(int32_t replica) const;
  // When this broker last became leader, or moved to a new leader epoch (ms).
  int64_t became_leader_ms() const;
  int64_t high_watermark() const { return log()->high_watermark(); }
  int64_t last_stable_offset() const { return log()->last_stable_offset(); }
  PartitionTraffic& traffic() const { return traffic_; }

 private:
  // The epoch check, then (when require_leader) that this broker leads.
  absl::Status CheckEpochLocked(std::optional<int32_t> current_leader_epoch, bool require_leader) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Moves the high watermark up to the smallest LEO of the ISR; never down.
  bool MaybeIncrementHighWatermarkLocked() ABSL_SHARED_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(hw_mu_);
  bool IsLeaderLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return state_.leader == local_broker_id_; }
  // OK when this broker follows in fetched_in_epoch; else NOT_LEADER_OR_FOLLOWER.
  absl::Status CheckFollowerLocked(int32_t fetched_in_epoch) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const storage::TopicPartition tp_;
  const int32_t local_broker_id_;
  std::atomic<storage::Log*> log_;
  // What ReplaceLogWithFuture replaced: kept while this partition lives, so that a
  // pointer taken before a move never dangles (LogManager closes them after
  // file.delete.delay.ms).
  std::vector<std::shared_ptr<storage::Log>> retired_logs_ ABSL_GUARDED_BY(mu_);
  // AlterReplicaLogDirs (partition_log_move.cc): the future log being filled, owned by
  // the LogManager. Held across a copy step and across every truncation of the current
  // log, which it follows (TruncateBothLocked): the future log never holds an offset
  // the current one does not. Before mu_.
  mutable absl::Mutex future_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  storage::Log* future_ ABSL_GUARDED_BY(future_mu_) = nullptr;
  absl::StatusOr<FutureCopy> CopyToFutureLocked(uint64_t max_bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(future_mu_)
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // A follower's truncation (to an offset, or a restart): of the current log, then the
  // same of the future log, if any (a cut past its end changes nothing there).
  absl::Status TruncateBothLocked(absl::FunctionRef<absl::Status(storage::Log&)> truncate)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(future_mu_) ABSL_SHARED_LOCKS_REQUIRED(mu_);
  mutable PartitionTraffic traffic_;
  mutable absl::Mutex mu_;
  PartitionState state_ ABSL_GUARDED_BY(mu_);
  bool has_state_ ABSL_GUARDED_BY(mu_) = false;
  RemoteTierState remote_ ABSL_GUARDED_BY(mu_);
  int64_t LogStartOffsetLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The same given the local log's start.
  int64_t LogStartOffsetLocked(int64_t local) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  struct FollowerState {
    int64_t log_end_offset = -1;     // unknown until it fetches in this epoch
    int64_t last_caught_up_ms = 0;
    int64_t last_fetch_leader_log_end = -1;
    int64_t last_fetch_ms = 0;
    int64_t log_start_offset = -1;   // as its last fetch reported it (-1: not reported)
  };
  std::map<int32_t, FollowerState> followers_ ABSL_GUARDED_BY(hw_mu_);
  std::map<int32_t, int64_t> replica_broker_epochs_ ABSL_GUARDED_BY(hw_mu_);
  std::optional<std::vector<int32_t>> pending_isr_ ABSL_GUARDED_BY(hw_mu_);
  std::vector<int64_t> pending_isr_broker_epochs_ ABSL_GUARDED_BY(hw_mu_);  // as it was decided
  // pending_isr_ = isr, with the broker epochs its members are counted in now.
  void SetPendingIsrLocked(std::vector<int32_t> isr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(hw_mu_);
  // The ISR the high watermark waits for: the ISR, with a pending change's members too.
  std::vector<int32_t> MaximalIsrLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(hw_mu_) ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Serialises high-watermark moves, which run under the shared mu_ (appends).
  mutable absl::Mutex hw_mu_ ABSL_ACQUIRED_AFTER(mu_);
  int64_t became_leader_ms_ ABSL_GUARDED_BY(hw_mu_) = 0;
};

}  // namespace strata::broker
