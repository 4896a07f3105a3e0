#pragma once
// Log: one partition's log on disk — its segments, log start and end offsets, recovery
// point, high watermark, leader-epoch cache and producer state. Appends assign offsets
// (leader) or keep them (follower), reads return FileSlices for zero-copy sends, and
// truncation, retention and log-start advance delete whole segments (renamed .deleted,
// removed later on the scheduler). Opening a log runs LogLoader (recovery), and the
// Log is built from the LogLoadState it produces.
// Any I/O error is reported to the LogDirFailureChannel; once the dir is offline every
// operation fails with LOG_DIR_OFFLINE without touching the disk.
// Invariants (asserted): log_start_offset <= high_watermark <= log_end_offset,
// recovery_point <= log_end_offset, segments are contiguous in offset order.
// Flushing (as Kafka's): a rolled segment is flushed on the scheduler right after the
// roll and the recovery point moves to the new active segment; flush.messages flushes
// after the append that reaches it, flush.ms through LogManager::FlushDirtyLogs.
// Thread-safe: appends, truncation and retention take the writer lock; reads take the
// reader lock. A flush takes flush_mu_ (one at a time) and syncs without the log's
// lock, so appends and reads go on while the disk works: the segments below the active
// one are synced whole (what changes their files — truncation, retention, deletion,
// closing — takes flush_mu_ first and waits), the active segment's .log and index
// files through shared file handles (an index's entries are stores to a shared mapping,
// which the file's fdatasync covers; no msync of a mapping a roll may be replacing).
// No fsync is ever under mu_. Lock order: flush_mu_, then mu_.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/clock.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"
#include "storage/file_slice.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log_config.h"
#include "storage/log_dir_failure_channel.h"
#include "storage/log_options.h"
#include "storage/log_segment.h"
#include "storage/producer_state.h"
#include "storage/remote_storage_manager.h"
#include "storage/scheduler.h"
#include "storage/task_lifetime.h"

namespace strata::storage {

struct LogLoadState;  // log_loader.h

// Who wrote a leader's append: a producer, or a coordinator of this cluster (the
// transaction coordinator's markers, WriteTxnMarkers). Only a coordinator may write
// control batches.
enum class AppendOrigin { kClient, kCoordinator };

struct LogAppendInfo {
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t max_timestamp = kNoTimestamp;
  int64_t offset_of_max_timestamp = -1;
  int32_t batches = 0;
  int64_t bytes = 0;
  // The batch was a retry of one already appended: the offsets are the original's.
  bool duplicate = false;
  // LogAppendTime topics: the time the leader stamped; -1 for CreateTime.
  int64_t log_append_time = -1;
};

struct LogOffsetMetadata {
  int64_t message_offset = 0;
  int64_t segment_base_offset = 0;
  uint64_t relative_position = 0;
};

struct FetchDataInfo {
  LogOffsetMetadata fetch_offset_metadata;
  // May end inside a batch when max_bytes cut it (as Kafka): readers drop an
  // incomplete trailing batch.
  FileSlice records;
  // An offset no record read reaches (from the offset index past the slice's end, else
  // the segment's end): the bound of the aborted transactions a READ_COMMITTED fetch
  // returns with these records.
  int64_t upper_bound_offset = 0;
};

// A rolled segment as the remote log manager copies it (Log::RolledSegmentsAfter).
struct RolledSegment {
  int64_t base_offset = 0;
  int64_t end_offset = 0;  // its last offset: the next segment's base - 1
  uint64_t size = 0;
  int64_t max_timestamp = kNoTimestamp;
  std::string log_path;
  std::string index_path;
  std::string time_index_path;
  std::string producer_snapshot_path;  // the snapshot at end_offset + 1; empty: none
  std::string txn_index_path;          // its aborted-transaction index; empty: it has none
  // The leader epochs in force in it: the first starts at base_offset.
  std::vector<EpochEntry> leader_epochs;
  // The leader-epoch cache as of its end: every entry that starts at or below
  // end_offset (what a follower restoring from the remote tier needs).
  std::vector<EpochEntry> epoch_checkpoint;

  // What a RemoteStorageManager copies of it.
  LogSegmentData ToSegmentData() const;
};

// A rolled segment as the log cleaner reads it (Log::ViewForCleaning).
struct CleanableSegment {
  std::shared_ptr<LogSegment> segment;  // its identity, for ReplaceSegments
  // Its .log, readable while the cleaner works even if retention deletes the segment.
  std::shared_ptr<File> file;
  int64_t base_offset = 0;
  int64_t next_base_offset = 0;  // the next segment's base: every offset in it is below
  uint64_t size = 0;
  int64_t max_timestamp = kNoTimestamp;
  std::vector<AbortedTxn> aborted_txns;  // its aborted index's entries (markers in it)
};

// What the log cleaner needs of a log at one moment.
struct CleaningView {
  // The rolled segments whose every offset is below the last stable offset, oldest
  // first (never the active segment, never an open transaction's data).
  std::vector<CleanableSegment> segments;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  // Producer id -> the last offset of its last batch: the cleaner keeps that batch (empty
  // if all its records go) so the producer's sequence survives (Kafka's rule).
  std::map<int64_t, int64_t> producer_last_offsets;
  LogConfig config;
};

class Log {
 public:
  static absl::StatusOr<std::unique_ptr<Log>> Open(const LogOptions& options);
  ~Log();  // abandons files without writing; call Close() for a clean shutdown
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  // A producer's request records: validates every batch, checks idempotent producer
  // sequences and transactions, assigns offsets from the log end and stamps
  // leader_epoch; records is rewritten in place. A control batch from a client is
  // INVALID_RECORD; a coordinator's end-transaction marker is checked against the
  // producer's state (CheckMarker) and closes its transaction; an ABORT adds an entry
  // to the active segment's aborted index.
  // verification: KIP-890 part 1's guard on a batch that opens a transaction
  // (producer_state.h, StartTxnVerification).
  absl::StatusOr<LogAppendInfo> AppendAsLeader(std::string& records, int32_t leader_epoch,
                                               AppendOrigin origin = AppendOrigin::kClient,
                                               const TxnVerification& verification = {});
  // The guard to append a producer's batch that opens a transaction with, asked before
  // the coordinator verifies the partition (ProducerStateManager::StartVerification); 0:
  // its transaction is open here already.
  uint64_t StartTxnVerification(int64_t producer_id, int16_t producer_epoch, bool epoch_bump = false);
  // After a non-zero guard's batch was appended or refused.
  void EndTxnVerification(int64_t producer_id);
  // Replicated records with offsets assigned: framing and CRC are checked and the
  // first offset must be at or above the log end.
  absl::StatusOr<LogAppendInfo> AppendAsFollower(absl::string_view records);

  // Reads from offset: at most max_bytes (at least one whole batch when
  // min_one_batch), never at or past max_offset_exclusive (the high watermark for
  // consumers, the log end for followers). OFFSET_OUT_OF_RANGE outside
  // [log_start_offset, log_end_offset].
  absl::StatusOr<FetchDataInfo> Read(int64_t offset, uint64_t max_bytes, int64_t max_offset_exclusive,
                                     bool min_one_batch) const;
  // The first record with timestamp >= target at or above the log start.
  absl::StatusOr<std::optional<TimestampOffset>> FetchOffsetByTimestamp(int64_t target) const;
  // The aborted transactions a READ_COMMITTED read from fetch_offset up to upper_bound
  // (exclusive; the last stable offset) must hide: every aborted-index entry with its
  // marker at or after fetch_offset and its first offset below upper_bound, oldest
  // first. Entries below the local log start are the remote tier's.
  absl::StatusOr<std::vector<AbortedTxn>> CollectAbortedTxns(int64_t fetch_offset, int64_t upper_bound) const;
  // The largest timestamp in the log and the offset of the first record that carries it
  // (ListOffsets' MAX_TIMESTAMP, KIP-734, as Kafka answers it since KAFKA-16310: the
  // record, not the last offset of its batch); nullopt for an empty log. Reads the one
  // batch that holds it.
  absl::StatusOr<std::optional<TimestampOffset>> FetchMaxTimestamp() const;

  // Forces a new active segment at the log end (also done by appends when due).
  absl::Status Roll();
  // Removes every batch holding an offset at or above offset; a batch straddling it
  // goes whole, so the log end may end below offset. False when nothing was removed.
  absl::StatusOr<bool> TruncateTo(int64_t offset);
  // Removes every segment and restarts the log, empty, at offset.
  absl::Status TruncateFullyAndStartAt(int64_t offset);
  // The same, with the state of the log below offset that the remote tier holds (the
  // follower tier state machine): the leader-epoch entries that start below offset and
  // the producer snapshot taken at offset (empty: no producers). The snapshot is decoded
  // first: a damaged one changes nothing. The epoch cache is replaced whole (a reader
  // sees all of the entries or none).
  absl::Status TruncateFullyAndRestore(int64_t offset, const std::vector<EpochEntry>& epochs,
                                       absl::string_view producer_snapshot);
  // Advances the log start (DeleteRecords, remote tier); whole segments below it go.
  absl::Status MaybeIncrementLogStartOffset(int64_t new_log_start_offset);
  // Retention: deletes the oldest segments past retention.ms or retention.bytes, only
  // below the high watermark and never the active segment. Returns how many.
  // With remote.storage.enable, local.retention.* also bound the local copy, for a
  // segment whose every offset has been copied to the remote tier (at or below
  // highest_offset_in_remote_storage); retention.* still bounds the whole log (the
  // remote log manager deletes the remote copies by it).
  absl::StatusOr<int> DeleteOldSegments();
  // The rolled segments that hold an offset above `after` and end below `below`
  // (exclusive; the high watermark), oldest first; the active segment never. Their files
  // stay until retention, truncation or deletion (a copy that meets a renamed file fails
  // and is retried).
  std::vector<RolledSegment> RolledSegmentsAfter(int64_t after, int64_t below) const;
  // The last offset of the remote tier's finished copies, from the metadata image
  // (-1: none). Local retention of a remote-storage log never passes it.
  void set_highest_offset_in_remote_storage(int64_t offset);
  int64_t highest_offset_in_remote_storage() const;
  // The log cleaner's side (storage/log_cleaner.h). ViewForCleaning: what may be
  // cleaned now. NewCleanedSegment: an empty segment <base>.*.cleaned in the log's dir
  // for the cleaner to write. ReplaceSegments: swaps a cleaned segment in for `old`
  // (consecutive segments, the first at cleaned's base), as Kafka does and each step
  // crash-safe by LogLoader's rules: cleaned is trimmed and flushed (files and dir),
  // renamed .swap, the old segments renamed .deleted (removed later), the swap renamed
  // into place. When a truncation, retention or another replace changed any of `old`
  // meanwhile, nothing is swapped: the cleaned files are removed and ABORTED returned.
  // Producer state and the leader-epoch cache are untouched: cleaning removes no offset
  // a producer's sequence or an epoch needs (the cleaner keeps each producer's last batch).
  // delete_snapshots_up_to >= 0 (cleaned lost a transaction marker there): producer
  // snapshots at offsets up to it are deleted, durably, before the swap.
  CleaningView ViewForCleaning() const;
  absl::StatusOr<std::unique_ptr<LogSegment>> NewCleanedSegment(int64_t base_offset) const;
  absl::Status ReplaceSegments(const std::vector<std::shared_ptr<LogSegment>>& old,
                               std::unique_ptr<LogSegment> cleaned, int64_t delete_snapshots_up_to = -1);
  // Reports an I/O error met while working on this log's files (the cleaner's reads and
  // writes) to the failure channel; returns status unchanged.
  absl::Status ReportIo(absl::Status status) const { return Io(std::move(status)); }
  // Makes everything below offset durable and moves the recovery point there.
  absl::Status Flush(int64_t offset);
  // A new leader's epoch starts at the log end (unless the cache has it or a later one):
  // visible at once, written to the checkpoint in the background (no fsync here: a new
  // leader takes produce at once), and in any case before a flush passes it.
  absl::Status StartLeaderEpoch(int32_t epoch);
  absl::Status FlushAll() { return Flush(log_end_offset()); }
  // Flushes to the log end when flush.ms has passed since the last flush
  // (LogManager::FlushDirtyLogs, every log.flush.scheduler.interval.ms).
  absl::Status MaybeFlushForTime(int64_t now_ms);
  // Records appended but not yet flushed (log end minus recovery point).
  int64_t unflushed_messages() const;
  int64_t last_flush_ms() const;
  void UpdateHighWatermark(int64_t offset);
  // Clean shutdown: flushes, trims indexes, snapshots producer state.
  absl::Status Close();
  // Drops the files after the dir failed (or before the partition is deleted), writing
  // nothing, and nothing scheduled writes afterwards.
  void CloseAfterDirFailure();
  // A log whose replica moved to another log dir (LogManager::ReplaceCurrentWithFuture):
  // the flushes and epoch writes it scheduled will not run (its directory is renamed
  // for deletion) and appends are refused; reads go on until it is closed.
  void Retire();
  void set_transfer_failure_handler(std::shared_ptr<TransferFailureHandler> handler);

  const std::string& dir() const { return options_.dir; }
  const TopicPartition& topic_partition() const { return topic_partition_; }
  std::string log_dir() const;
  int64_t log_start_offset() const;
  int64_t log_end_offset() const;
  int64_t recovery_point() const;
  int64_t high_watermark() const;
  // The last stable offset: the high watermark, or the first offset of the oldest
  // transaction still open (or completed with its marker not yet below the high
  // watermark) when that is lower. READ_COMMITTED reads stop there.
  int64_t last_stable_offset() const;
  // The four at one instant (one lock: what a fetch session compares).
  struct Offsets {
    int64_t log_start_offset = 0;
    int64_t log_end_offset = 0;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = 0;
  };
  Offsets offsets() const;
  int64_t size_in_bytes() const;
  // How many truncations (of the end, or full restarts) the log has had: a reader that
  // saw the same count before and after a search saw one log throughout.
  int64_t truncation_count() const { return truncations_.load(); }
  // The bytes of the segments that hold an offset above offset (the active one always).
  int64_t SizeOfSegmentsAbove(int64_t offset) const;
  int segment_count() const;
  std::vector<int64_t> segment_base_offsets() const;
  const LoadStats& load_stats() const { return load_stats_; }
  LeaderEpochCache& leader_epoch_cache() { return *leader_epoch_cache_; }
  // The producers of the partition's producer state now (DescribeProducers).
  std::map<int64_t, ProducerStateEntry> ProducerStates() const;
  // AlterReplicaLogDirs: this future log, which holds the same offsets as current up to
  // the same log end, takes the rest of current's state — its high watermark, log start,
  // leader epochs (current's may name an epoch with no batch yet), idempotent producers
  // (current's include those whose batches are below the copied range), config and remote
  // tier offset — so that once it replaces current it answers as current did. Then the
  // caller closes it. REQUIRES: no writer of either log meanwhile.
  absl::Status TakeOverStateOf(const Log& current);
  // REQUIRES: no concurrent append (tests, tools): it reads without the lock.
  const ProducerStateManager& producer_state() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return *producer_state_; }
  bool offline() const;
  LogConfig config() const;
  // A topic config change: later appends, rolls and retention follow it.
  void UpdateConfig(const LogConfig& config);

 private:
  Log(const LogOptions& options, TopicPartition topic_partition, const std::atomic<bool>* dir_offline,
      LogLoadState loaded);

  absl::StatusOr<LogAppendInfo> AppendAsLeaderUnflushed(std::string& records, int32_t leader_epoch,
                                                        AppendOrigin origin, const TxnVerification& verification);
  absl::StatusOr<LogAppendInfo> AppendAsFollowerUnflushed(absl::string_view records);
  // flush.messages: flushes when the unflushed records reach it.
  absl::Status MaybeFlushAfterAppend();
  // Schedules Flush(offset) (after a roll; no scheduler: none).
  void ScheduleFlushLocked(int64_t offset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Schedules the leader-epoch checkpoint's write after a deferred change.
  void ScheduleEpochSyncLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckOnline() const;
  // options_ with the current config (for new segments).
  LogOptions OptionsLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // CheckOnline, and that the log was not closed.
  absl::Status CheckOpenLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Reports I/O errors to the failure channel; returns status unchanged.
  absl::Status Io(absl::Status status) const;
  // markers: per batch, the control batch's marker (nullopt for data batches).
  absl::StatusOr<LogAppendInfo> AppendLocked(absl::string_view records, const std::vector<RecordBatchHeader>& headers,
                                             const std::vector<std::optional<EndTxnMarker>>& markers,
                                             std::optional<int32_t> leader_epoch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int64_t LastStableOffsetLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status MaybeRollLocked(uint64_t bytes, const RecordBatchHeader& first, int64_t last_offset)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RollLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DeleteSegmentLocked(SegmentMap::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status TruncateFullyLocked(int64_t offset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Loads the newest producer snapshot at or below snapshot_bound and replays the log
  // after it; returns the snapshot's offset (nullopt: none) and counts batches replayed.
  absl::StatusOr<std::optional<int64_t>> ReloadProducerStateLocked(int64_t snapshot_bound, int64_t* replayed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  LogSegment& active_segment() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return *segments_.rbegin()->second; }
  void CheckInvariantsLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The flushes and epoch writes scheduled and not yet run will not run; waits for one
  // running now.
  void EndScheduledTasks();

  const LogOptions options_;
  const TopicPartition topic_partition_;
  const std::atomic<bool>* const dir_offline_;  // null without a failure channel
  const LoadStats load_stats_;
  const std::unique_ptr<LeaderEpochCache> leader_epoch_cache_;

  // The flushes scheduled after a roll run only while the log lives (task_lifetime.h).
  const std::shared_ptr<TaskLifetime> lifetime_ = std::make_shared<TaskLifetime>();
  // Held by a flush, and by whatever changes the files of segments below the active one.
  absl::Mutex flush_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  SegmentMap segments_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<ProducerStateManager> producer_state_ ABSL_GUARDED_BY(mu_);
  LogConfig config_ ABSL_GUARDED_BY(mu_);
  int64_t log_start_offset_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t log_end_offset_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t recovery_point_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t high_watermark_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_flush_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t highest_offset_in_remote_storage_ ABSL_GUARDED_BY(mu_) = -1;
  std::atomic<int64_t> truncations_{0};  // incremented under mu_ before a truncation changes anything
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool retired_ ABSL_GUARDED_BY(mu_) = false;  // Retire()
  // A segment file was created since the last flush: the directory needs an fsync.
  bool dir_needs_sync_ ABSL_GUARDED_BY(mu_) = true;
  std::shared_ptr<TransferFailureHandler> transfer_failure_handler_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::storage
