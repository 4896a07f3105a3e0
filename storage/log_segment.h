#pragma once
// One segment of a partition's log: the .log file of RecordBatch v2 bytes starting at
// base_offset, its sparse offset index, its time index and its aborted-transaction
// index (transaction_index.h; written by the Log when it appends an ABORT marker). Appends go to the end; an
// index entry is added once more than index.interval.bytes were appended since the
// last one. Reads translate an offset to a file position through the index and a short
// scan of batch headers.
// Not thread-safe: the owning Log serialises access (reads under its reader lock,
// which is safe because reads only pread and look at immutable index entries).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "storage/file_ops.h"
#include "storage/file_slice.h"
#include "storage/offset_index.h"
#include "storage/record_batch.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace strata::storage {

struct SegmentOptions {
  FileOps* ops = nullptr;
  std::string dir;
  int64_t base_offset = 0;
  int32_t index_interval_bytes = 4096;
  int32_t max_index_bytes = 10 * 1024 * 1024;
  // "" for a live segment; ".swap" or ".cleaned" while being replaced.
  std::string suffix;
  // Active segments keep their indexes preallocated and writable.
  bool active = false;
};

// A batch located in a segment file.
struct BatchLocation {
  RecordBatchHeader header;
  uint64_t position = 0;
};

// Sees every valid batch while a segment is scanned (recovery, index rebuild).
using BatchVisitor = std::function<void(const RecordBatchHeader& header, absl::string_view batch)>;

struct ScanResult {
  uint64_t valid_bytes = 0;
  uint64_t invalid_bytes = 0;    // bytes after the first invalid batch
  absl::Status first_problem;    // what was wrong at valid_bytes (OK when none)
  int64_t batches = 0;
};

class LogSegment {
 public:
  // Opens the files of an existing segment, or creates empty ones.
  static absl::StatusOr<std::unique_ptr<LogSegment>> Open(const SegmentOptions& options, bool create);
  ~LogSegment();

  int64_t base_offset() const { return options_.base_offset; }
  uint64_t size() const { return size_; }
  const std::string& log_path() const { return log_path_; }
  std::string index_path() const;
  std::string time_index_path() const;
  const std::shared_ptr<File>& log_file() const { return log_file_; }
  OffsetIndex& offset_index() { return *offset_index_; }
  TimeIndex& time_index() { return *time_index_; }
  TransactionIndex& txn_index() { return *txn_index_; }
  const TransactionIndex& txn_index() const { return *txn_index_; }
  int64_t max_timestamp_so_far() const { return max_timestamp_so_far_; }
  int64_t offset_of_max_timestamp_so_far() const { return offset_of_max_timestamp_; }
  // The first batch's max timestamp, the reference for time-based roll.
  absl::StatusOr<std::optional<int64_t>> RollingBasedTimestamp();
  bool indexes_full() const { return offset_index_->full() || time_index_->full(); }

  // Appends whole batches (validated, offsets assigned, above any offset stored).
  // REQUIRES: the last offset minus base_offset() fits in 32 bits.
  absl::Status Append(absl::string_view batches);

  // The first batch whose last offset is >= offset, starting the scan at or after
  // the index's hint; nullopt when no such batch lies below max_position.
  absl::StatusOr<std::optional<BatchLocation>> FindBatch(int64_t offset, uint64_t max_position) const;
  absl::StatusOr<std::optional<BatchLocation>> ReadBatchHeaderAt(uint64_t position, uint64_t end) const;

  // A slice from the batch holding start_offset: at most max_bytes (the whole first
  // batch when min_one_batch) and never past max_position.
  // nullopt when the segment has no batch at or after start_offset.
  struct ReadResult {
    FileSlice slice;
    int64_t first_batch_offset = 0;
    uint64_t first_batch_position = 0;
  };
  absl::StatusOr<std::optional<ReadResult>> Read(int64_t start_offset, uint64_t max_bytes, uint64_t max_position,
                                                 bool min_one_batch) const;

  // The offset after the last batch (base_offset() when empty).
  absl::StatusOr<int64_t> ReadNextOffset() const;
  // The first record at or after start_offset whose timestamp is >= target: its
  // timestamp and offset, compressed batches decoded too (FindRecordByTimestamp,
  // record_batch.h: a LogAppendTime batch answers its first offset, exact since every
  // record carries its time).
  absl::StatusOr<std::optional<TimestampOffset>> FindOffsetByTimestamp(int64_t target, int64_t start_offset) const;
  // Calls fn for each batch header in [position, end) (end: the segment's size),
  // until fn returns false.
  absl::Status ScanHeaders(uint64_t position, const std::function<bool(const BatchLocation&)>& fn,
                           std::optional<uint64_t> end = std::nullopt) const;

  // Validates every batch from the start, rebuilding both indexes and the max
  // timestamp from the valid ones; visitor sees each. Stops at the first invalid batch
  // but changes nothing in the .log file.
  // From offset contiguous_from on, each batch must start exactly where the one before
  // ended: the CRC does not cover baseOffset, and an unflushed tail can only have
  // been written contiguously by Log, so a gap there means a torn write.
  absl::StatusOr<ScanResult> ValidateAndRebuildIndexes(const BatchVisitor& visitor,
                                                       int64_t contiguous_from = INT64_MAX);
  // ValidateAndRebuildIndexes, then cuts the file at the first invalid batch.
  absl::StatusOr<ScanResult> Recover(const BatchVisitor& visitor, int64_t contiguous_from);
  // Removes every batch whose last offset is >= offset, and the aborted-index entries
  // whose marker is; returns bytes removed.
  absl::StatusOr<uint64_t> TruncateTo(int64_t offset);
  // Checks the indexes against the log (after an unclean shutdown or an open).
  absl::Status SanityCheckIndexes() const;

  // The .log file and both indexes made durable.
  absl::Status Flush();
  // The indexes only, in two steps (IndexFile::StartFlush): the files to Sync, without
  // the owner's lock, for the entries stored so far to be durable.
  absl::StatusOr<std::vector<std::shared_ptr<File>>> StartIndexFlush();
  // Trims indexes to their entries: the segment takes no more appends.
  absl::Status MakeInactive();
  // Preallocates indexes again: the segment becomes the active one.
  absl::Status MakeActive();
  // Renames all files from the current suffix to new_suffix.
  absl::Status ChangeSuffix(const std::string& new_suffix);
  const std::string& suffix() const { return options_.suffix; }
  // Closes files (trimming indexes and making them durable). Slices already handed out
  // stay readable.
  absl::Status Close();
  // Drops the file handles without writing anything (offline dir, crashed process,
  // deleted segment). Only DeleteFiles() may follow.
  void Abandon();
  // Removes the files. REQUIRES: closed or abandoned.
  absl::Status DeleteFiles();

 private:
  explicit LogSegment(const SegmentOptions& options);
  void LoadMaxTimestamp();
  // Adds index entries for a batch at position as Append does.
  void IndexBatch(const RecordBatchHeader& header, uint64_t position);
  std::string PathFor(absl::string_view kind) const;

  SegmentOptions options_;
  std::string log_path_;
  std::shared_ptr<File> log_file_;
  std::unique_ptr<OffsetIndex> offset_index_;
  std::unique_ptr<TimeIndex> time_index_;
  std::unique_ptr<TransactionIndex> txn_index_;
  uint64_t size_ = 0;
  uint64_t bytes_since_last_index_entry_ = 0;
  int64_t max_timestamp_so_far_ = kNoTimestamp;
  int64_t offset_of_max_timestamp_ = -1;
  std::optional<int64_t> rolling_based_timestamp_;
  bool closed_ = false;
};

// A log's segments by base offset. Shared: a flush keeps the segments it syncs while
// the log goes on (log.h).
using SegmentMap = std::map<int64_t, std::shared_ptr<LogSegment>>;

}  // namespace strata::storage
