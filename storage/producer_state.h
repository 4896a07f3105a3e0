#pragma once
// Producer state of a partition, for idempotent producers: per producer id its epoch,
// the sequence range and offsets of its last few batches (to answer a retried batch
// with the offsets it got the first time) and the last timestamp. Snapshots
// (<offset>.snapshot) are taken at segment roll and clean shutdown; loading takes the
// newest snapshot at or below a bound and replays the log forward from there only.
// Snapshot format (big-endian; docs/storage-format.md): u16 version=1, u32 CRC32C of
// what follows, i32 count, then per producer: i64 producer id, i16 epoch, i32 first
// sequence, i32 last sequence, i64 last offset, i32 offset delta, i64 timestamp.
// Thread-safe? No: the owning Log serialises access.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_ops.h"
#include "storage/record_batch.h"

namespace strata::storage {

enum class SnapshotSync { kNow, kLater };

// fsyncs <dir>/<offset>.snapshot when it exists (after TakeSnapshot(kLater)); the
// directory entry is synced by the log's flush.
absl::Status SyncProducerSnapshot(FileOps& ops, const std::string& dir, int64_t offset);

struct ProducerBatch {
  int32_t first_sequence = kNoSequence;
  int32_t last_sequence = kNoSequence;
  int64_t last_offset = -1;
  int32_t offset_delta = 0;  // last_offset - first offset
  int64_t timestamp = kNoTimestamp;
  int64_t first_offset() const { return last_offset - offset_delta; }
  bool operator==(const ProducerBatch&) const = default;
};

struct ProducerStateEntry {
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  std::deque<ProducerBatch> batches;  // oldest first, at most kMaxCachedBatches
  int64_t last_timestamp = kNoTimestamp;
  bool operator==(const ProducerStateEntry&) const = default;
};

class ProducerStateManager {
 public:
  static constexpr size_t kMaxCachedBatches = 5;

  ProducerStateManager(FileOps& ops, std::string dir) : ops_(ops), dir_(std::move(dir)) {}

  // For a batch from a producer (before offsets are assigned): the earlier append's
  // batch when this one is a retry of it, nullopt when it is new and in order, or
  // OUT_OF_ORDER_SEQUENCE_NUMBER / INVALID_PRODUCER_EPOCH.
  absl::StatusOr<std::optional<ProducerBatch>> CheckProducedBatch(const RecordBatchHeader& header) const;
  // Records an appended batch (offsets assigned). Batches without a producer id only
  // move map_end_offset.
  void Update(const RecordBatchHeader& header);

  // Offset up to which the state reflects the log.
  int64_t map_end_offset() const { return map_end_offset_; }
  const std::map<int64_t, ProducerStateEntry>& producers() const { return producers_; }
  std::optional<ProducerStateEntry> Find(int64_t producer_id) const;

  // Writes <map_end_offset>.snapshot: tmp -> fsync -> rename -> fsync dir (kNow), or
  // tmp -> rename, durable once SyncProducerSnapshot runs (kLater: at a segment roll,
  // whose flush follows on the scheduler).
  absl::Status TakeSnapshot(SnapshotSync sync = SnapshotSync::kNow);
  // Snapshot offsets on disk, ascending.
  absl::StatusOr<std::vector<int64_t>> ListSnapshots() const;
  // Deletes snapshots above max_offset (they may describe log that is gone) or below
  // log_start_offset, and loads the newest remaining one, or starts empty at
  // log_start_offset. Returns the snapshot's offset (nullopt: none); the caller replays
  // the log from map_end_offset().
  absl::StatusOr<std::optional<int64_t>> LoadNewestSnapshotAtOrBelow(int64_t max_offset, int64_t log_start_offset);
  // Deletes snapshots below offset (the log start moved past them).
  absl::Status DeleteSnapshotsBelow(int64_t offset);
  // Forgets everything and deletes every snapshot; the state starts at offset.
  absl::Status TruncateFullyAndStartAt(int64_t offset);
  // After TruncateFullyAndStartAt(offset): the producers of a snapshot taken at offset
  // elsewhere (the remote tier's copy of the segment that ends before it), written as
  // this log's snapshot at offset. REQUIRES: map_end_offset() == offset.
  absl::Status Restore(int64_t offset, std::map<int64_t, ProducerStateEntry> producers);

  static std::string EncodeSnapshot(const std::map<int64_t, ProducerStateEntry>& producers);
  static absl::StatusOr<std::map<int64_t, ProducerStateEntry>> DecodeSnapshot(absl::string_view data,
                                                                              absl::string_view where);

 private:
  FileOps& ops_;
  const std::string dir_;
  std::map<int64_t, ProducerStateEntry> producers_;
  int64_t map_end_offset_ = 0;
};

}  // namespace strata::storage
