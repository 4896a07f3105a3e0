// Log's side of compaction (storage/cleaner.h): what may be cleaned now, the cleaned
// segment the cleaner writes, and the swap that puts it in place. Kept apart from
// log.cc: appends, reads and truncation do not depend on any of it.
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"
#include "storage/log.h"

namespace strata::storage {

CleaningView Log::ViewForCleaning() const {
  CleaningView view;
  absl::ReaderMutexLock lock(&mu_);
  if (closed_ || offline()) return view;
  view.log_start_offset = log_start_offset_;
  view.log_end_offset = log_end_offset_;
  view.config = config_;
  for (const auto& [id, entry] : producer_state_->producers()) {
    if (!entry.batches.empty()) view.producer_last_offsets[id] = entry.batches.back().last_offset;
  }
  for (auto it = segments_.begin(); it != segments_.end(); ++it) {
    auto next = std::next(it);
    if (next == segments_.end() || next->first > LastStableOffsetLocked()) break;
    const std::shared_ptr<LogSegment>& segment = it->second;
    view.segments.push_back(CleanableSegment{segment, segment->log_file(), it->first, next->first, segment->size(),
                                             segment->max_timestamp_so_far(), segment->txn_index().entries()});
  }
  return view;
}

absl::StatusOr<std::unique_ptr<LogSegment>> Log::NewCleanedSegment(int64_t base_offset) const {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  LogOptions options;
  {
    absl::ReaderMutexLock lock(&mu_);
    STRATA_RETURN_IF_ERROR(CheckOpenLocked());
    options = OptionsLocked();
  }
  // Leftovers of a cleaning that failed before (the loader removes them at start).
  for (absl::string_view kind : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix}) {
    std::string path = SegmentFileName(options.dir, base_offset, absl::StrCat(kind, kCleanedSuffix));
    auto exists = options.ops->Exists(path);
    if (!exists.ok()) return Io(exists.status());
    if (*exists) STRATA_RETURN_IF_ERROR(Io(options.ops->Remove(path)));
  }
  auto segment =
      LogSegment::Open(SegmentOptionsFor(options, base_offset, std::string(kCleanedSuffix), /*active=*/true), true);
  if (!segment.ok()) return Io(segment.status());
  return segment;
}

absl::Status Log::ReplaceSegments(const std::vector<std::shared_ptr<LogSegment>>& old,
                                  std::unique_ptr<LogSegment> cleaned, int64_t delete_snapshots_up_to) {
  ABSL_CHECK(!old.empty());
  ABSL_CHECK_EQ(old.front()->base_offset(), cleaned->base_offset());
  ABSL_CHECK_EQ(cleaned->suffix(), kCleanedSuffix);
  STRATA_RETURN_IF_ERROR(CheckOnline());
  auto discard = [&cleaned]() {
    cleaned->Abandon();
    (void)cleaned->DeleteFiles();
  };
  // Durable before any rename: a .swap is complete by the loader's rules.
  absl::Status flushed = cleaned->MakeInactive();
  if (flushed.ok()) flushed = cleaned->Flush();
  if (flushed.ok()) flushed = options_.ops->SyncDir(options_.dir);
  if (!flushed.ok()) {
    discard();
    return Io(flushed);
  }
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpenLocked(); !open.ok()) {
    discard();
    return open;
  }
  for (const auto& segment : old) {
    auto it = segments_.find(segment->base_offset());
    if (it == segments_.end() || it->second != segment || std::next(it) == segments_.end()) {
      discard();
      return absl::AbortedError(absl::StrCat(topic_partition_.DirName(), ": segment ", segment->base_offset(),
                                             " changed while it was cleaned; the cleaning is dropped"));
    }
  }
  if (delete_snapshots_up_to >= 0) {
    absl::Status deleted = producer_state_->DeleteSnapshotsBelow(delete_snapshots_up_to + 1);
    if (deleted.ok()) deleted = options_.ops->SyncDir(options_.dir);
    if (!deleted.ok()) {
      discard();
      return Io(deleted);
    }
  }
  const int64_t base = cleaned->base_offset();
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    STRATA_RETURN_IF_ERROR(cleaned->ChangeSuffix(std::string(kSwapSuffix)));
    for (const auto& segment : old) STRATA_RETURN_IF_ERROR(DeleteSegmentLocked(segments_.find(segment->base_offset())));
    STRATA_RETURN_IF_ERROR(cleaned->ChangeSuffix(""));
    segments_.emplace(base, std::shared_ptr<LogSegment>(std::move(cleaned)));
    dir_needs_sync_ = true;
    return absl::OkStatus();
  }();
  // A failed rename leaves the files as a crash would, and the dir goes offline: the
  // loader completes or rolls back the replace at the next start.
  if (!status.ok()) return Io(status);
  CheckInvariantsLocked();
  return absl::OkStatus();
}

}  // namespace strata::storage
