#pragma once
// Producer state of a partition, for idempotent and transactional producers: per
// producer id its epoch, the sequence range and offsets of its last few batches (to
// answer a retried batch with the offsets it got the first time), the last timestamp,
// the coordinator epoch of its last transaction marker and the first offset of its open
// transaction. The open transactions (first offset -> producer) and the completed ones
// whose marker is not yet below the high watermark give the first unstable offset, which
// bounds the last stable offset (Log::last_stable_offset, READ_COMMITTED).
// Snapshots (<offset>.snapshot) are taken at segment roll and clean shutdown; loading
// takes the newest snapshot at or below a bound and replays the log forward from there.
// Snapshot format (big-endian; docs/storage-format.md): u16 version=2, u32 CRC32C of
// what follows, i32 count, then per producer: i64 producer id, i16 epoch, i32 first
// sequence, i32 last sequence, i64 last offset, i32 offset delta, i64 timestamp, i32
// coordinator epoch, i64 open transaction's first offset (-1: none). Version 1 (without
// the last two) still loads.
// Thread-safe? No: the owning Log serialises access.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/control_record.h"
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
  int32_t coordinator_epoch = -1;         // of the last marker written for it
  int64_t current_txn_first_offset = -1;  // its open transaction's first offset; -1: none
  bool operator==(const ProducerStateEntry&) const = default;
};

// A transaction ended by a marker: its data in [first_offset, last_offset) and the
// marker at last_offset.
struct CompletedTxn {
  int64_t producer_id = kNoProducerId;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  bool aborted = false;
  bool operator==(const CompletedTxn&) const = default;
};

// KIP-890: before a producer's batch opens a transaction on a partition, its leader asks
// the transaction coordinator whether the partition is in the producer's ongoing
// transaction (part 1) or to add it (part 2); the batch is appended with the guard
// StartVerification gave. A marker that ends the batch's transaction ends the guard, so
// a batch verified before a marker cannot open a transaction after it (a hanging
// transaction, which would hold the last stable offset back for good). Under protocol
// version 1 every marker of the producer does; under version 2 (epoch_bump) only one of
// a later epoch than the batch's, since the marker of the transaction before carries
// the batch's own epoch (the coordinator bumped it) and the add waited for it.
// required=false: no verification in force; the batch opens a transaction freely.
struct TxnVerification {
  bool required = false;
  uint64_t guard = 0;  // 0: none obtained (the transaction was open when asked)
};

class ProducerStateManager {
 public:
  static constexpr size_t kMaxCachedBatches = 5;
  // Guards of verifications in flight kept at most; past it the oldest is dropped (its
  // batch is refused INVALID_TXN_STATE and retried by the producer's transaction abort).
  static constexpr size_t kMaxVerifications = 10000;

  ProducerStateManager(FileOps& ops, std::string dir) : ops_(ops), dir_(std::move(dir)) {}

  // For a batch from a producer (before offsets are assigned): the earlier append's
  // batch when this one is a retry of it, nullopt when it is new and in order, or
  // OUT_OF_ORDER_SEQUENCE_NUMBER / INVALID_PRODUCER_EPOCH / INVALID_TXN_STATE. A batch
  // without a sequence (a coordinator's write for the producer) is checked for its
  // epoch and transaction only.
  // verification: a transactional batch that would open the producer's transaction
  // needs the guard StartVerification gave, still current (else INVALID_TXN_STATE).
  absl::StatusOr<std::optional<ProducerBatch>> CheckProducedBatch(const RecordBatchHeader& header,
                                                                  const TxnVerification& verification = {}) const;
  // The guard to append a batch of the producer's with once the coordinator verified it:
  // 0 when its transaction is open here in this epoch and no verification of its is in
  // flight (nothing to verify), else the producer's current guard (a new one if none).
  // A batch that comes while an earlier one is being verified is verified too, so that
  // it is appended after it (requests of a connection are pipelined). Every call is
  // followed by one EndVerification once the batch was appended or refused.
  // epoch_bump: the producer runs transaction protocol version 2 (Produce v12).
  uint64_t StartVerification(int64_t producer_id, int16_t producer_epoch, bool epoch_bump = false);
  void EndVerification(int64_t producer_id);
  // For a transaction marker (before its offset is assigned): TRANSACTION_COORDINATOR_FENCED
  // when an earlier marker came from a later coordinator epoch, INVALID_PRODUCER_EPOCH
  // when the marker's producer epoch is older than the producer's.
  absl::Status CheckMarker(const RecordBatchHeader& header, const EndTxnMarker& marker) const;
  // Records an appended batch (offsets assigned); a control batch with its marker
  // (nullptr for any other batch). Batches without a producer id only move
  // map_end_offset. A transactional data batch opens its producer's transaction if none
  // is open; a COMMIT or ABORT marker closes it and returns it (nullopt when the
  // producer had no data in the transaction here: nothing to hide or index).
  std::optional<CompletedTxn> Update(const RecordBatchHeader& header, const EndTxnMarker* marker = nullptr);

  // The first offset of the oldest transaction that is open, or completed with its
  // marker not yet below the high watermark; nullopt: none.
  std::optional<int64_t> FirstUnstableOffset() const;
  // The high watermark passed offset: transactions whose marker lies below it are stable.
  void OnHighWatermarkUpdated(int64_t high_watermark);
  // The aborted-index entry's last stable offset for a transaction just completed: the
  // first offset of the oldest other open transaction, else the marker's offset + 1.
  int64_t LastStableOffsetAfter(const CompletedTxn& txn) const;
  // Open transactions: first offset -> producer id.
  const std::map<int64_t, int64_t>& ongoing_txns() const { return ongoing_txns_; }

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
  // The producers of another log with the same records up to map_end_offset() (a replica
  // moved between log dirs): they replace these; written at the next snapshot.
  void ReplaceProducers(std::map<int64_t, ProducerStateEntry> producers);

  static std::string EncodeSnapshot(const std::map<int64_t, ProducerStateEntry>& producers);
  static absl::StatusOr<std::map<int64_t, ProducerStateEntry>> DecodeSnapshot(absl::string_view data,
                                                                              absl::string_view where);

 private:
  FileOps& ops_;
  const std::string dir_;
  // Rebuilds ongoing_txns_ from the entries (after a load or restore).
  void RebuildOngoingTxns();

  std::map<int64_t, ProducerStateEntry> producers_;
  int64_t map_end_offset_ = 0;
  std::map<int64_t, int64_t> ongoing_txns_;  // first offset -> producer id
  // Completed, marker not yet below the high watermark: first offset -> marker offset.
  std::map<int64_t, int64_t> unreplicated_txns_;
  // Verifications in flight, by producer id (never in snapshots: a leader's only). guard
  // 0: ended by a marker (a new question gets a new one).
  struct Verification {
    uint64_t guard = 0;
    int in_flight = 0;
    int16_t epoch = -1;       // the highest epoch of the batches it guards
    bool epoch_bump = false;  // protocol version 2
  };
  std::map<int64_t, Verification> verifications_;
  uint64_t next_guard_ = 0;
};

}  // namespace strata::storage
