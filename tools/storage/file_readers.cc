#include "tools/storage/file_readers.h"

#include "storage/log_cleaner.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/bytes.h"
#include "storage/errc.h"

namespace strata::tools {

using storage::FileOps;
using storage::OpenMode;
using storage::RecordBatchHeader;
namespace layout = storage::batch_layout;

namespace {
constexpr size_t kWindowBytes = 1 << 20;

template <typename Entry, typename Decode>
absl::StatusOr<IndexContents<Entry>> ReadIndex(const std::string& path, size_t entry_size, Decode decode) {
  STRATA_ASSIGN_OR_RETURN(std::string data, ReadFileReadOnly(path));
  IndexContents<Entry> contents;
  contents.file_bytes = data.size();
  size_t whole = data.size() / entry_size;
  contents.stray_bytes = data.size() - whole * entry_size;
  size_t n = whole;
  while (n > 0) {
    const char* e = data.data() + (n - 1) * entry_size;
    if (!std::all_of(e, e + entry_size, [](char c) { return c == 0; })) break;
    --n;
  }
  contents.zero_entries_dropped = whole - n;
  contents.entries.reserve(n);
  for (size_t i = 0; i < n; ++i) contents.entries.push_back(decode(data.data() + i * entry_size));
  return contents;
}

}  // namespace

ClassifiedFile ClassifyFile(absl::string_view name) {
  ClassifiedFile c;
  if (auto parsed = storage::ParseSegmentFileName(name)) {
    c.segment = *parsed;
    if (parsed->kind == storage::kLogSuffix) c.kind = FileKind::kLog;
    else if (parsed->kind == storage::kIndexSuffix) c.kind = FileKind::kOffsetIndex;
    else if (parsed->kind == storage::kTimeIndexSuffix) c.kind = FileKind::kTimeIndex;
    else if (parsed->kind == storage::kSnapshotSuffix) c.kind = FileKind::kSnapshot;
    return c;
  }
  if (name == storage::kRecoveryPointCheckpointFile || name == storage::kLogStartOffsetCheckpointFile ||
      name == storage::kReplicationOffsetCheckpointFile) {
    c.kind = FileKind::kOffsetCheckpoint;
  } else if (name == storage::kCleanerOffsetCheckpointFile) {
    c.kind = FileKind::kCleanerCheckpoint;
  } else if (name == storage::kLeaderEpochCheckpointFile) {
    c.kind = FileKind::kEpochCheckpoint;
  } else if (name == storage::kMetaPropertiesFile) {
    c.kind = FileKind::kMetaProperties;
  } else if (name == storage::kCleanShutdownFile) {
    c.kind = FileKind::kCleanShutdown;
  }
  return c;
}

absl::StatusOr<std::unique_ptr<LogFileReader>> LogFileReader::Open(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(auto file, FileOps::Default()->Open(path, OpenMode::kRead));
  STRATA_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  return std::unique_ptr<LogFileReader>(new LogFileReader(path, std::move(file), size));
}

std::string LogFileReader::Where(uint64_t position) const { return absl::StrCat(path_, " at position ", position); }

absl::StatusOr<const char*> LogFileReader::Fetch(uint64_t pos, size_t n) {
  if (pos >= window_start_ && pos + n <= window_start_ + window_len_) return window_.data() + (pos - window_start_);
  size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(n, kWindowBytes), size_ - pos));
  if (window_.size() < want) window_.resize(want);
  STRATA_ASSIGN_OR_RETURN(size_t got, file_->Read(pos, window_.data(), want));
  window_start_ = pos;
  window_len_ = got;
  if (got < n) {
    return storage::MakeError(storage::Errc::kCorruptMessage,
                              absl::StrCat(Where(pos), ": the file ended after ", got, " of ", n,
                                           " bytes (it shrank while being read?)"));
  }
  return window_.data();
}

absl::StatusOr<std::optional<ScannedBatch>> LogFileReader::Next() {
  if (position_ >= size_) return std::optional<ScannedBatch>();
  uint64_t left = size_ - position_;
  std::string where = Where(position_);
  if (left < layout::kHeaderSize) {
    return storage::MakeError(storage::Errc::kCorruptMessage,
                              absl::StrCat(where, ": ", left, " bytes left at the end of the file cannot hold a ",
                                           "batch header (", layout::kHeaderSize, " bytes)"));
  }
  STRATA_ASSIGN_OR_RETURN(const char* header_bytes, Fetch(position_, layout::kHeaderSize));
  ScannedBatch batch;
  batch.header = RecordBatchHeader::Parse(header_bytes);
  batch.position = position_;
  STRATA_RETURN_IF_ERROR(storage::CheckBatchFraming(batch.header, left, where));
  size_t size = static_cast<size_t>(batch.header.size_in_bytes());
  STRATA_ASSIGN_OR_RETURN(const char* bytes, Fetch(position_, size));
  batch.bytes = absl::string_view(bytes, size);
  batch.crc = storage::ValidateStoredBatch(batch.bytes, where);
  position_ += size;
  return std::optional<ScannedBatch>(std::move(batch));
}

absl::StatusOr<IndexContents<OffsetIndexEntry>> ReadOffsetIndexFile(const std::string& path, int64_t base_offset) {
  return ReadIndex<OffsetIndexEntry>(path, 8, [base_offset](const char* e) {
    return OffsetIndexEntry{base_offset + storage::LoadBigEndian<uint32_t>(e), storage::LoadBigEndian<uint32_t>(e + 4)};
  });
}

absl::StatusOr<IndexContents<TimeIndexEntry>> ReadTimeIndexFile(const std::string& path, int64_t base_offset) {
  return ReadIndex<TimeIndexEntry>(path, 12, [base_offset](const char* e) {
    return TimeIndexEntry{storage::LoadBigEndian<int64_t>(e), base_offset + storage::LoadBigEndian<uint32_t>(e + 8)};
  });
}

absl::StatusOr<std::string> ReadFileReadOnly(const std::string& path) {
  return storage::ReadWholeFile(*FileOps::Default(), path);
}

std::string Printable(absl::string_view bytes, size_t limit) {
  if (limit == 0 || bytes.size() <= limit) return absl::CHexEscape(bytes);
  return absl::StrCat(absl::CHexEscape(bytes.substr(0, limit)), "...(", bytes.size(), " bytes)");
}

absl::StatusOr<std::vector<storage::Record>> DecodeBatchRecords(absl::string_view batch) {
  return storage::DecodeRecords(batch, storage::kUncompressedBatchBytesCeiling);
}

}  // namespace strata::tools
