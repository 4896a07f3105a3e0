#include "storage/log_segment.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/chunked_reader.h"
#include "storage/errc.h"
#include "storage/file_names.h"

namespace strata::storage {

using batch_layout::kHeaderSize;


LogSegment::LogSegment(const SegmentOptions& options) : options_(options) {
  log_path_ = PathFor(kLogSuffix);
}

LogSegment::~LogSegment() { Abandon(); }

std::string LogSegment::PathFor(absl::string_view kind) const {
  return SegmentFileName(options_.dir, options_.base_offset, absl::StrCat(kind, options_.suffix));
}
std::string LogSegment::index_path() const { return offset_index_->file().path(); }
std::string LogSegment::time_index_path() const { return time_index_->file().path(); }

absl::StatusOr<std::unique_ptr<LogSegment>> LogSegment::Open(const SegmentOptions& options, bool create) {
  ABSL_CHECK(options.ops != nullptr);
  std::unique_ptr<LogSegment> segment(new LogSegment(options));
  FileOps& ops = *options.ops;
  STRATA_ASSIGN_OR_RETURN(auto log_file, ops.Open(segment->log_path_, create ? OpenMode::kCreateNew : OpenMode::kReadWrite));
  segment->log_file_ = std::move(log_file);
  STRATA_ASSIGN_OR_RETURN(segment->size_, segment->log_file_->Size());
  STRATA_ASSIGN_OR_RETURN(auto offset_file, IndexFile::Open(ops, segment->PathFor(kIndexSuffix), OffsetIndex::kEntrySize,
                                                            options.max_index_bytes, options.active));
  segment->offset_index_ = std::make_unique<OffsetIndex>(options.base_offset, std::move(offset_file));
  STRATA_ASSIGN_OR_RETURN(auto time_file, IndexFile::Open(ops, segment->PathFor(kTimeIndexSuffix), TimeIndex::kEntrySize,
                                                          options.max_index_bytes, options.active));
  segment->time_index_ = std::make_unique<TimeIndex>(options.base_offset, std::move(time_file));
  STRATA_ASSIGN_OR_RETURN(segment->txn_index_, TransactionIndex::Open(ops, segment->PathFor(kTxnIndexSuffix)));
  segment->LoadMaxTimestamp();
  return segment;
}

void LogSegment::LoadMaxTimestamp() {
  if (time_index_->entries() > 0) {
    TimestampOffset last = time_index_->last_entry();
    max_timestamp_so_far_ = last.timestamp;
    offset_of_max_timestamp_ = last.offset;
  } else {
    max_timestamp_so_far_ = kNoTimestamp;
    offset_of_max_timestamp_ = -1;
  }
}

absl::StatusOr<std::optional<int64_t>> LogSegment::RollingBasedTimestamp() {
  if (!rolling_based_timestamp_ && size_ > 0) {
    STRATA_ASSIGN_OR_RETURN(auto first, ReadBatchHeaderAt(0, size_));
    if (first) rolling_based_timestamp_ = first->header.max_timestamp;
  }
  return rolling_based_timestamp_;
}

void LogSegment::IndexBatch(const RecordBatchHeader& header, uint64_t position) {
  if (header.max_timestamp > max_timestamp_so_far_) {
    max_timestamp_so_far_ = header.max_timestamp;
    offset_of_max_timestamp_ = header.last_offset();
  }
  if (bytes_since_last_index_entry_ > static_cast<uint64_t>(options_.index_interval_bytes)) {
    ABSL_CHECK(!offset_index_->full()) << index_path();
    offset_index_->Append(header.last_offset(), static_cast<uint32_t>(position));
    time_index_->MaybeAppend(max_timestamp_so_far_, offset_of_max_timestamp_);
    bytes_since_last_index_entry_ = 0;
  }
  bytes_since_last_index_entry_ += header.size_in_bytes();
}

absl::Status LogSegment::Append(absl::string_view batches) {
  ABSL_CHECK(!closed_) << log_path_;
  ABSL_CHECK_LE(size_ + batches.size(), uint64_t{UINT32_MAX}) << log_path_;
  uint64_t position = size_;
  STRATA_RETURN_IF_ERROR(log_file_->Write(position, batches));
  BatchSplitter splitter(batches);
  while (true) {
    auto batch = splitter.Next();
    ABSL_CHECK(batch.ok()) << batch.status();
    if (!batch->has_value()) break;
    RecordBatchHeader header = RecordBatchHeader::Parse((*batch)->data());
    ABSL_CHECK_GE(header.base_offset, base_offset());
    ABSL_CHECK_LE(header.last_offset() - base_offset(), int64_t{UINT32_MAX});
    if (!rolling_based_timestamp_ && position == 0) rolling_based_timestamp_ = header.max_timestamp;
    IndexBatch(header, position);
    position += header.size_in_bytes();
  }
  size_ = position;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BatchLocation>> LogSegment::ReadBatchHeaderAt(uint64_t position, uint64_t end) const {
  if (position >= end) return std::optional<BatchLocation>();
  std::string where = absl::StrCat(log_path_, " at position ", position);
  if (end - position < kHeaderSize) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(where, ": ", end - position, " bytes left cannot hold a batch header"));
  }
  char buf[kHeaderSize];
  STRATA_ASSIGN_OR_RETURN(size_t n, log_file_->Read(position, buf, kHeaderSize));
  if (n != kHeaderSize) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat(where, ": file ends inside a batch header"));
  }
  BatchLocation location{RecordBatchHeader::Parse(buf), position};
  STRATA_RETURN_IF_ERROR(CheckBatchFraming(location.header, end - position, where));
  return std::optional<BatchLocation>(location);
}

absl::StatusOr<std::optional<BatchLocation>> LogSegment::FindBatch(int64_t offset, uint64_t max_position) const {
  std::optional<BatchLocation> found;
  STRATA_RETURN_IF_ERROR(ScanHeaders(
      offset_index_->Lookup(offset).position,
      [&](const BatchLocation& b) {
        if (b.header.last_offset() < offset) return true;
        found = b;
        return false;
      },
      max_position));
  return found;
}

absl::StatusOr<std::optional<LogSegment::ReadResult>> LogSegment::Read(int64_t start_offset, uint64_t max_bytes,
                                                                       uint64_t max_position,
                                                                       bool min_one_batch) const {
  STRATA_ASSIGN_OR_RETURN(auto location, FindBatch(start_offset, size_));
  if (!location) return std::optional<ReadResult>();
  ReadResult result;
  result.first_batch_offset = location->header.base_offset;
  result.first_batch_position = location->position;
  result.slice.file = log_file_;
  result.slice.position = location->position;
  if (location->position < max_position) {
    uint64_t adjusted = min_one_batch ? std::max<uint64_t>(max_bytes, location->header.size_in_bytes()) : max_bytes;
    result.slice.size = std::min(max_position - location->position, adjusted);
  }
  return std::optional<ReadResult>(std::move(result));
}

absl::StatusOr<int64_t> LogSegment::ReadNextOffset() const {
  uint64_t position = offset_index_->entries() > 0 ? offset_index_->entry(offset_index_->entries() - 1).position : 0;
  int64_t next = base_offset();
  STRATA_RETURN_IF_ERROR(ScanHeaders(position, [&](const BatchLocation& b) {
    next = b.header.next_offset();
    return true;
  }));
  return next;
}

absl::Status LogSegment::ScanHeaders(uint64_t position, const std::function<bool(const BatchLocation&)>& fn,
                                     std::optional<uint64_t> end) const {
  while (true) {
    STRATA_ASSIGN_OR_RETURN(auto location, ReadBatchHeaderAt(position, end.value_or(size_)));
    if (!location || !fn(*location)) return absl::OkStatus();
    position += location->header.size_in_bytes();
  }
}

absl::StatusOr<std::optional<TimestampOffset>> LogSegment::FindOffsetByTimestamp(int64_t target,
                                                                                int64_t start_offset) const {
  TimestampOffset hint = time_index_->Lookup(target);
  uint64_t position = offset_index_->Lookup(std::max(hint.offset, start_offset)).position;
  while (true) {
    STRATA_ASSIGN_OR_RETURN(auto location, ReadBatchHeaderAt(position, size_));
    if (!location) return std::optional<TimestampOffset>();
    const RecordBatchHeader& h = location->header;
    position += h.size_in_bytes();
    auto read_batch = [&]() -> absl::StatusOr<std::string> {
      std::string batch(h.size_in_bytes(), '\0');
      STRATA_ASSIGN_OR_RETURN(size_t n, log_file_->Read(location->position, batch.data(), batch.size()));
      if (n != batch.size()) return MakeError(Errc::kCorruptMessage, absl::StrCat(log_path_, ": short batch"));
      STRATA_RETURN_IF_ERROR(ValidateStoredBatch(batch, log_path_));
      return batch;
    };
    STRATA_ASSIGN_OR_RETURN(auto found, FindRecordByTimestamp(h, target, start_offset, read_batch));
    if (found) return found;
  }
}

absl::StatusOr<ScanResult> LogSegment::ValidateAndRebuildIndexes(const BatchVisitor& visitor,
                                                                 int64_t contiguous_from) {
  bool was_writable = offset_index_->file().writable();
  if (!was_writable) {
    STRATA_RETURN_IF_ERROR(offset_index_->file().MakeWritable(options_.max_index_bytes));
    STRATA_RETURN_IF_ERROR(time_index_->file().MakeWritable(options_.max_index_bytes));
  }
  offset_index_->file().Reset();
  time_index_->file().Reset();
  max_timestamp_so_far_ = kNoTimestamp;
  offset_of_max_timestamp_ = -1;
  bytes_since_last_index_entry_ = 0;
  rolling_based_timestamp_.reset();

  STRATA_ASSIGN_OR_RETURN(uint64_t file_size, log_file_->Size());
  ScanResult result;
  uint64_t position = 0;
  int64_t next_offset = base_offset();
  ChunkedReader reader(*log_file_, file_size);
  auto problem = [&](Errc errc, absl::string_view what) {
    return MakeError(errc, absl::StrCat(log_path_, " at position ", position, ": ", what));
  };
  while (position < file_size) {
    STRATA_ASSIGN_OR_RETURN(absl::string_view header_bytes, reader.Get(position, kHeaderSize));
    if (header_bytes.size() < kHeaderSize) {
      result.first_problem = problem(Errc::kCorruptMessage, absl::StrCat(file_size - position,
                                                                         " bytes left cannot hold a batch header"));
      break;
    }
    RecordBatchHeader h = RecordBatchHeader::Parse(header_bytes.data());
    absl::Status valid = CheckBatchFraming(h, file_size - position, "batch");
    absl::string_view batch;
    if (valid.ok()) {
      STRATA_ASSIGN_OR_RETURN(batch, reader.Get(position, h.size_in_bytes()));
      valid = ValidateStoredBatch(batch, "batch");
    }
    if (!valid.ok()) {
      valid = problem(ErrcOf(valid), valid.message());
    } else if (h.base_offset < next_offset) {
      valid = problem(Errc::kCorruptMessage,
                      absl::StrCat("batch base offset ", h.base_offset, " is below the expected ", next_offset));
    } else if (next_offset >= contiguous_from && h.base_offset != next_offset) {
      valid = problem(Errc::kCorruptMessage, absl::StrCat("batch base offset ", h.base_offset, " leaves a gap after ",
                                                          next_offset, " in the unflushed part of the log"));
    } else if (h.last_offset() - base_offset() > int64_t{UINT32_MAX}) {
      valid = problem(Errc::kCorruptMessage, absl::StrCat("offset ", h.last_offset(),
                                                          " overflows the segment based at ", base_offset()));
    }
    if (!valid.ok()) {
      result.first_problem = valid;
      break;
    }
    if (position == 0) rolling_based_timestamp_ = h.max_timestamp;
    if (offset_index_->full() || time_index_->full()) {
      result.first_problem = problem(Errc::kInconsistentLog, "index is full");
      break;
    }
    IndexBatch(h, position);
    if (visitor) visitor(h, batch);
    next_offset = h.next_offset();
    position += h.size_in_bytes();
    ++result.batches;
  }
  result.valid_bytes = position;
  result.invalid_bytes = file_size - position;
  size_ = file_size;
  if (!was_writable) {
    time_index_->MaybeAppend(max_timestamp_so_far_, offset_of_max_timestamp_, /*skip_full_check=*/true);
    STRATA_RETURN_IF_ERROR(offset_index_->file().MakeReadOnly());
    STRATA_RETURN_IF_ERROR(time_index_->file().MakeReadOnly());
  }
  return result;
}

absl::StatusOr<ScanResult> LogSegment::Recover(const BatchVisitor& visitor, int64_t contiguous_from) {
  STRATA_ASSIGN_OR_RETURN(ScanResult result, ValidateAndRebuildIndexes(visitor, contiguous_from));
  if (result.invalid_bytes > 0) {
    STRATA_RETURN_IF_ERROR(log_file_->Truncate(result.valid_bytes));
    size_ = result.valid_bytes;
  }
  if (!txn_index_->entries().empty()) {
    // Entries whose marker was in the lost tail go with it (replay writes back the rest).
    STRATA_ASSIGN_OR_RETURN(int64_t next_offset, ReadNextOffset());
    STRATA_RETURN_IF_ERROR(txn_index_->TruncateTo(next_offset));
  }
  return result;
}

absl::StatusOr<uint64_t> LogSegment::TruncateTo(int64_t offset) {
  STRATA_ASSIGN_OR_RETURN(auto location, FindBatch(offset, size_));
  if (!location) return uint64_t{0};
  uint64_t removed = size_ - location->position;
  STRATA_RETURN_IF_ERROR(log_file_->Truncate(location->position));
  offset_index_->TruncateTo(offset);
  time_index_->TruncateTo(offset);
  STRATA_RETURN_IF_ERROR(txn_index_->TruncateTo(offset));
  size_ = location->position;
  bytes_since_last_index_entry_ = 0;
  if (size_ == 0) rolling_based_timestamp_.reset();
  LoadMaxTimestamp();
  return removed;
}

absl::Status LogSegment::SanityCheckIndexes() const {
  STRATA_RETURN_IF_ERROR(offset_index_->SanityCheck(size_));
  // Read from the last offset index entry on: a few headers.
  STRATA_ASSIGN_OR_RETURN(int64_t next_offset, ReadNextOffset());
  return time_index_->SanityCheck(next_offset);
}

absl::Status LogSegment::Flush() {
  STRATA_RETURN_IF_ERROR(log_file_->Sync());
  STRATA_RETURN_IF_ERROR(offset_index_->file().Flush());
  STRATA_RETURN_IF_ERROR(time_index_->file().Flush());
  return txn_index_->Flush();
}

absl::StatusOr<std::vector<std::shared_ptr<File>>> LogSegment::StartIndexFlush() {
  std::vector<std::shared_ptr<File>> files;
  for (IndexFile* index : {&offset_index_->file(), &time_index_->file()}) {
    STRATA_ASSIGN_OR_RETURN(std::shared_ptr<File> file, index->StartFlush());
    if (file != nullptr) files.push_back(std::move(file));
  }
  if (std::shared_ptr<File> file = txn_index_->StartFlush()) files.push_back(std::move(file));
  return files;
}

absl::Status LogSegment::MakeInactive() {
  if (!offset_index_->file().writable()) return absl::OkStatus();
  time_index_->MaybeAppend(max_timestamp_so_far_, offset_of_max_timestamp_, /*skip_full_check=*/true);
  STRATA_RETURN_IF_ERROR(offset_index_->file().MakeReadOnly());
  STRATA_RETURN_IF_ERROR(time_index_->file().MakeReadOnly());
  options_.active = false;
  return absl::OkStatus();
}

absl::Status LogSegment::MakeActive() {
  STRATA_RETURN_IF_ERROR(offset_index_->file().MakeWritable(options_.max_index_bytes));
  STRATA_RETURN_IF_ERROR(time_index_->file().MakeWritable(options_.max_index_bytes));
  options_.active = true;
  return absl::OkStatus();
}

absl::Status LogSegment::ChangeSuffix(const std::string& new_suffix) {
  FileOps& ops = *options_.ops;
  std::string old_log = log_path_;
  options_.suffix = new_suffix;
  log_path_ = PathFor(kLogSuffix);
  STRATA_RETURN_IF_ERROR(ops.Rename(old_log, log_path_));
  STRATA_RETURN_IF_ERROR(offset_index_->file().Rename(ops, PathFor(kIndexSuffix)));
  STRATA_RETURN_IF_ERROR(time_index_->file().Rename(ops, PathFor(kTimeIndexSuffix)));
  return txn_index_->Rename(PathFor(kTxnIndexSuffix));
}

absl::Status LogSegment::Close() {
  if (closed_) return absl::OkStatus();
  absl::Status status = MakeInactive();
  if (status.ok()) status = offset_index_->file().Flush();
  if (status.ok()) status = time_index_->file().Flush();
  if (status.ok()) status = txn_index_->Flush();
  Abandon();
  return status;
}

void LogSegment::Abandon() {
  closed_ = true;
  log_file_.reset();
  offset_index_.reset();
  time_index_.reset();
  if (txn_index_ != nullptr) txn_index_->Close();
}

absl::Status LogSegment::DeleteFiles() {
  FileOps& ops = *options_.ops;
  for (absl::string_view kind : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix}) {
    std::string path = PathFor(kind);
    STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
    if (exists) STRATA_RETURN_IF_ERROR(ops.Remove(path));
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
