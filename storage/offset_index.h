#pragma once
// The sparse offset index of a segment (.index): entries of (offset - base offset as
// u32, file position as u32), big-endian, added every index.interval.bytes of log.
// Lookup finds the last entry at or below an offset so a read scans little.
// Not thread-safe: the owning segment serialises access.

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "storage/index_file.h"

namespace strata::storage {

struct OffsetPosition {
  int64_t offset = 0;
  uint32_t position = 0;
};

class OffsetIndex {
 public:
  static constexpr size_t kEntrySize = 8;
  OffsetIndex(int64_t base_offset, std::unique_ptr<IndexFile> file) : base_offset_(base_offset), file_(std::move(file)) {}

  IndexFile& file() { return *file_; }
  const IndexFile& file() const { return *file_; }
  size_t entries() const { return file_->entries(); }
  bool full() const { return file_->full(); }
  OffsetPosition entry(size_t i) const;
  // The last entry with offset <= target, or (base offset, 0).
  OffsetPosition Lookup(int64_t target) const;
  // The offset of the first entry at or after position, nullopt when none: no batch
  // that ends before position holds that offset or a later one (Kafka's
  // fetchUpperBoundOffset).
  std::optional<int64_t> FirstOffsetAtOrAfter(uint64_t position) const;
  // REQUIRES: offset above the last entry's, position at or above its.
  void Append(int64_t offset, uint32_t position);
  // Removes entries with offset >= offset.
  void TruncateTo(int64_t offset);
  // OK when offsets strictly grow from above the base, positions never fall and stay
  // below log_size; else a precise error.
  absl::Status SanityCheck(uint64_t log_size) const;

 private:
  // Index of the last entry with offset <= target, or -1.
  int64_t LargestLowerBound(int64_t target) const;
  const int64_t base_offset_;
  std::unique_ptr<IndexFile> file_;
};

}  // namespace strata::storage
