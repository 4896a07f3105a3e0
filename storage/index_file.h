#pragma once
// The memory-mapped file under the offset and time indexes: fixed-size entries,
// preallocated to the maximum index size while the segment is active (so appends never
// grow the file), trimmed to the entries present when the segment rolls or closes.
// An existing file's entry count is its length over the entry size, less trailing
// all-zero entries (what a preallocated file not trimmed before a crash has).
// Entries are read and written through the mapping, so the file's descriptor is closed
// once it is mapped and opened again (by path) only to resize, remap or sync it: an
// index holds no descriptor (as Kafka's), and a broker keeps one per segment, its .log.
// Not thread-safe: the owning segment serialises access.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "storage/file_ops.h"

namespace strata::storage {

class IndexFile {
 public:
  // Opens or creates path. A writable index is extended to max_bytes (rounded down to
  // whole entries); a read-only one maps what is there.
  static absl::StatusOr<std::unique_ptr<IndexFile>> Open(FileOps& ops, const std::string& path,
                                                         size_t entry_size, size_t max_bytes, bool writable);

  const std::string& path() const { return path_; }
  size_t entries() const { return entries_; }
  size_t max_entries() const { return capacity_bytes_ / entry_size_; }
  bool full() const { return entries_ >= max_entries(); }
  bool writable() const { return writable_; }
  size_t entry_size() const { return entry_size_; }
  // REQUIRES: i < entries().
  const char* entry(size_t i) const { return region_->data() + i * entry_size_; }

  // REQUIRES: writable() && !full().
  void Append(const char* entry);
  void TruncateToEntries(size_t n);
  // Makes the entries durable (an fdatasync of the file, which covers the stores to its
  // mapping; none when nothing changed since the last flush).
  absl::Status Flush();
  // Flush in two steps, for an owner that must not hold its lock over the disk: returns
  // the file to Sync (null when nothing changed; opened again for the purpose, an error
  // when that fails) and counts the entries as flushed. Once that Sync returns, the
  // entries stored before this call are durable, whatever was appended, trimmed or
  // remapped meanwhile.
  absl::StatusOr<std::shared_ptr<File>> StartFlush();
  // Trims the file to the entries present and maps it read-only from then on.
  absl::Status MakeReadOnly();
  // Re-opens a trimmed index for appends, preallocated to max_bytes again.
  absl::Status MakeWritable(size_t max_bytes);
  // Drops every entry (for a rebuild).
  void Reset() { TruncateToEntries(0); }
  absl::Status Rename(FileOps& ops, const std::string& new_path);
  // Unmaps and closes after trimming; the object is unusable afterwards.
  absl::Status Close();

 private:
  IndexFile(FileOps& ops, std::string path, size_t entry_size)
      : ops_(&ops), path_(std::move(path)), entry_size_(entry_size) {}
  absl::Status Remap(size_t bytes);
  // Opens file_ again by path when it is closed.
  absl::Status EnsureOpen();

  FileOps* ops_;
  std::string path_;
  const size_t entry_size_;
  std::shared_ptr<File> file_;  // null but while resizing, remapping or starting a flush
  std::unique_ptr<MappedRegion> region_;
  size_t capacity_bytes_ = 0;
  size_t entries_ = 0;
  bool dirty_ = false;  // entries changed since the last flush
  bool writable_ = false;
};

}  // namespace strata::storage
