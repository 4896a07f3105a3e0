#include "storage/offset_index.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "storage/bytes.h"
#include "storage/errc.h"

namespace strata::storage {

OffsetPosition OffsetIndex::entry(size_t i) const {
  const char* e = file_->entry(i);
  return {base_offset_ + LoadBigEndian<uint32_t>(e), LoadBigEndian<uint32_t>(e + 4)};
}

int64_t OffsetIndex::LargestLowerBound(int64_t target) const {
  int64_t lo = 0, hi = static_cast<int64_t>(entries()) - 1, found = -1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (entry(mid).offset <= target) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

std::optional<int64_t> OffsetIndex::FirstOffsetAtOrAfter(uint64_t position) const {
  size_t lo = 0, hi = entries();  // positions never fall: the first at or after is found by halving
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (entry(mid).position < position) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == entries()) return std::nullopt;
  return entry(lo).offset;
}

OffsetPosition OffsetIndex::Lookup(int64_t target) const {
  int64_t i = LargestLowerBound(target);
  return i < 0 ? OffsetPosition{base_offset_, 0} : entry(static_cast<size_t>(i));
}

void OffsetIndex::Append(int64_t offset, uint32_t position) {
  ABSL_CHECK_GT(offset, base_offset_);
  ABSL_CHECK_LE(offset - base_offset_, int64_t{UINT32_MAX});
  if (entries() > 0) {
    OffsetPosition last = entry(entries() - 1);
    ABSL_CHECK_GT(offset, last.offset) << file_->path();
    ABSL_CHECK_GE(position, last.position) << file_->path();
  }
  char e[kEntrySize];
  StoreBigEndian(e, static_cast<uint32_t>(offset - base_offset_));
  StoreBigEndian(e + 4, position);
  file_->Append(e);
}

void OffsetIndex::TruncateTo(int64_t offset) {
  int64_t i = LargestLowerBound(offset - 1);
  file_->TruncateToEntries(static_cast<size_t>(i + 1));
}

absl::Status OffsetIndex::SanityCheck(uint64_t log_size) const {
  int64_t previous_offset = base_offset_;
  uint32_t previous_position = 0;
  for (size_t i = 0; i < entries(); ++i) {
    OffsetPosition e = entry(i);
    if (e.offset <= previous_offset || e.position < previous_position || e.position >= log_size) {
      return MakeError(Errc::kInconsistentLog,
                       absl::StrCat("corrupt offset index ", file_->path(), ": entry ", i, " (offset ", e.offset,
                                    ", position ", e.position, ") after (", previous_offset, ", ",
                                    previous_position, ") with log size ", log_size));
    }
    previous_offset = e.offset;
    previous_position = e.position;
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
