#pragma once
// The time index of a segment (.timeindex): entries of (max timestamp so far as i64,
// offset - base offset as u32), big-endian, added with the offset index entries when
// the segment's max timestamp grew. Lookup finds the offset from which to scan for the
// first record at or after a timestamp.
// Not thread-safe: the owning segment serialises access.

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "storage/index_file.h"
#include "storage/record_batch.h"  // TimestampOffset

namespace strata::storage {

class TimeIndex {
 public:
  static constexpr size_t kEntrySize = 12;
  TimeIndex(int64_t base_offset, std::unique_ptr<IndexFile> file) : base_offset_(base_offset), file_(std::move(file)) {}

  IndexFile& file() { return *file_; }
  const IndexFile& file() const { return *file_; }
  size_t entries() const { return file_->entries(); }
  bool full() const { return file_->full(); }
  TimestampOffset entry(size_t i) const;
  // The last entry, or (-1, base offset) when empty.
  TimestampOffset last_entry() const;
  // The last entry with timestamp <= target, or (-1, base offset).
  TimestampOffset Lookup(int64_t target) const;
  // Appends when timestamp is above the last entry's; offsets must not fall.
  // With skip_full_check an entry may be dropped silently when full (roll, close).
  void MaybeAppend(int64_t timestamp, int64_t offset, bool skip_full_check = false);
  // Removes entries with offset >= offset.
  void TruncateTo(int64_t offset);
  // Timestamps rise and offsets do not fall, and every offset lies in the segment,
  // below next_offset (its log's next offset).
  absl::Status SanityCheck(int64_t next_offset) const;

 private:
  const int64_t base_offset_;
  std::unique_ptr<IndexFile> file_;
};

}  // namespace strata::storage
