#include "storage/time_index.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "storage/bytes.h"
#include "storage/errc.h"

namespace strata::storage {

TimestampOffset TimeIndex::entry(size_t i) const {
  const char* e = file_->entry(i);
  return {LoadBigEndian<int64_t>(e), base_offset_ + LoadBigEndian<uint32_t>(e + 8)};
}

TimestampOffset TimeIndex::last_entry() const {
  return entries() == 0 ? TimestampOffset{-1, base_offset_} : entry(entries() - 1);
}

TimestampOffset TimeIndex::Lookup(int64_t target) const {
  int64_t lo = 0, hi = static_cast<int64_t>(entries()) - 1;
  TimestampOffset found{-1, base_offset_};
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    TimestampOffset e = entry(mid);
    if (e.timestamp <= target) {
      found = e;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

void TimeIndex::MaybeAppend(int64_t timestamp, int64_t offset, bool skip_full_check) {
  if (offset < base_offset_ || timestamp == -1) return;  // nothing appended yet
  TimestampOffset last = last_entry();
  if (entries() > 0 && timestamp <= last.timestamp) return;
  if (file_->full()) {
    ABSL_CHECK(skip_full_check) << "time index " << file_->path() << " is full";
    return;
  }
  ABSL_CHECK_GE(offset, last.offset) << file_->path();
  ABSL_CHECK_LE(offset - base_offset_, int64_t{UINT32_MAX});
  char e[kEntrySize];
  StoreBigEndian(e, timestamp);
  StoreBigEndian(e + 8, static_cast<uint32_t>(offset - base_offset_));
  file_->Append(e);
}

void TimeIndex::TruncateTo(int64_t offset) {
  size_t keep = entries();
  while (keep > 0 && entry(keep - 1).offset >= offset) --keep;
  file_->TruncateToEntries(keep);
}

absl::Status TimeIndex::SanityCheck(int64_t next_offset) const {
  for (size_t i = 0; i < entries(); ++i) {
    TimestampOffset e = entry(i);
    if (e.offset >= next_offset) {
      return MakeError(Errc::kInconsistentLog,
                       absl::StrCat("corrupt time index ", file_->path(), ": entry ", i, " (timestamp ", e.timestamp,
                                    ", offset ", e.offset, ") lies past the segment's records, which end before ",
                                    next_offset));
    }
    if (i == 0) continue;
    TimestampOffset previous = entry(i - 1);
    if (e.timestamp <= previous.timestamp || e.offset < previous.offset) {
      return MakeError(Errc::kInconsistentLog,
                       absl::StrCat("corrupt time index ", file_->path(), ": entry ", i, " (timestamp ", e.timestamp,
                                    ", offset ", e.offset, ") after (", previous.timestamp, ", ", previous.offset,
                                    ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
