#pragma once
// Read-only access to the files of a partition directory, shared by dump and verify.
// Every file is opened with OpenMode::kRead through FileOps::Default() and is never
// written, mapped, truncated or renamed (unlike IndexFile / LogSegment, which may trim
// or extend what they open). Not thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"
#include "storage/record_batch.h"

namespace strata::tools {

enum class FileKind {
  kLog,               // NNN.log (also .log.swap / .cleaned / .deleted)
  kOffsetIndex,       // NNN.index
  kTimeIndex,         // NNN.timeindex
  kSnapshot,          // NNN.snapshot
  kOffsetCheckpoint,  // recovery-point-offset-checkpoint, log-start-offset-checkpoint, replication-offset-checkpoint
  kCleanerCheckpoint,  // cleaner-offset-checkpoint: with each log's compaction state
  kEpochCheckpoint,   // leader-epoch-checkpoint
  kMetaProperties,    // meta.properties
  kCleanShutdown,     // .kafka_cleanshutdown
  kUnknown,
};

struct ClassifiedFile {
  FileKind kind = FileKind::kUnknown;
  // For segment files: base offset, kind and state suffix from the name.
  std::optional<storage::ParsedFileName> segment;
};
// Classifies by base name (no directory part).
ClassifiedFile ClassifyFile(absl::string_view base_name);

// One batch of a .log file.
struct ScannedBatch {
  storage::RecordBatchHeader header;
  uint64_t position = 0;
  // The whole batch; valid until the next call of LogFileReader::Next().
  absl::string_view bytes;
  // ValidateStoredBatch's verdict: framing has passed, so this is about the CRC.
  absl::Status crc;
};

// Reads the batches of a .log file front to back through a 1 MiB window.
class LogFileReader {
 public:
  static absl::StatusOr<std::unique_ptr<LogFileReader>> Open(const std::string& path);

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  // Where the next batch starts.
  uint64_t position() const { return position_; }
  // "<path> at position <p>", as batch errors name a place.
  std::string Where(uint64_t position) const;

  // The next batch; nullopt at the end of the file. An error when the bytes at
  // position() do not frame a batch (CORRUPT_MESSAGE naming the file and position) or
  // the file cannot be read. After an error the reader stays where it was.
  absl::StatusOr<std::optional<ScannedBatch>> Next();

 private:
  LogFileReader(std::string path, std::unique_ptr<storage::File> file, uint64_t size)
      : path_(std::move(path)), file_(std::move(file)), size_(size) {}
  // Makes [pos, pos + n) of the file readable in memory. REQUIRES: pos + n <= size_.
  absl::StatusOr<const char*> Fetch(uint64_t pos, size_t n);

  std::string path_;
  std::unique_ptr<storage::File> file_;
  uint64_t size_ = 0;
  uint64_t position_ = 0;
  std::string window_;
  uint64_t window_start_ = 0;
  size_t window_len_ = 0;
};

struct OffsetIndexEntry {
  int64_t offset = 0;
  uint32_t position = 0;
};
struct TimeIndexEntry {
  int64_t timestamp = 0;
  int64_t offset = 0;
};
template <typename Entry>
struct IndexContents {
  std::vector<Entry> entries;
  uint64_t file_bytes = 0;
  // Trailing all-zero entries (an active segment's preallocation), not in entries.
  size_t zero_entries_dropped = 0;
  // Bytes after the last whole entry (Strata never writes such a file).
  uint64_t stray_bytes = 0;
};
absl::StatusOr<IndexContents<OffsetIndexEntry>> ReadOffsetIndexFile(const std::string& path, int64_t base_offset);
absl::StatusOr<IndexContents<TimeIndexEntry>> ReadTimeIndexFile(const std::string& path, int64_t base_offset);

// The whole file, opened read-only.
absl::StatusOr<std::string> ReadFileReadOnly(const std::string& path);

// Bytes as printable ASCII (C escapes for the rest), cut after `limit` input bytes
// (0: no limit) with "...(N bytes)" appended.
std::string Printable(absl::string_view bytes, size_t limit);
// The records of a batch, compressed ones decompressed up to the largest bound any topic
// allows (storage::kUncompressedBatchBytesCeiling): a tool reads what the broker accepted.
absl::StatusOr<std::vector<storage::Record>> DecodeBatchRecords(absl::string_view batch);

}  // namespace strata::tools
