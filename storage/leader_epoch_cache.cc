#include "storage/leader_epoch_cache.h"

#include "base/logging.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::storage {

namespace {

// Every entry non-negative, epochs strictly and offsets weakly increasing.
absl::Status ValidateEntries(const std::vector<EpochEntry>& entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const EpochEntry& e = entries[i];
    if (e.epoch < 0 || e.start_offset < 0 ||
        (i > 0 && (e.epoch <= entries[i - 1].epoch || e.start_offset < entries[i - 1].start_offset))) {
      return MakeError(Errc::kInvalidArgument,
                       absl::StrCat("leader epoch entry ", i, " (", e.epoch, ", ", e.start_offset,
                                    ") is negative or does not follow the one before; nothing changed"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LeaderEpochCache>> LeaderEpochCache::Load(FileOps& ops, std::string path) {
  std::unique_ptr<LeaderEpochCache> cache(new LeaderEpochCache(ops, std::move(path)));
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(cache->path_));
  if (!exists) return cache;
  STRATA_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(ops, cache->path_));
  STRATA_ASSIGN_OR_RETURN(auto entries, ParseEpochCheckpoint(text, cache->path_));
  if (absl::Status valid = ValidateEntries(entries); !valid.ok()) {
    return MakeError(Errc::kInvalidCheckpoint, absl::StrCat("checkpoint ", cache->path_, ": ", valid.message()));
  }
  absl::MutexLock lock(&cache->mu_);
  cache->entries_ = std::move(entries);
  return cache;
}

absl::Status LeaderEpochCache::ApplyAssign(std::vector<EpochEntry>& entries, EpochEntry entry) {
  if (entry.epoch < 0 || entry.start_offset < 0) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat("leader epoch entry (", entry.epoch, ", ",
                                                          entry.start_offset, ") must be non-negative"));
  }
  if (!entries.empty() && entries.back().epoch == entry.epoch && entry.start_offset >= entries.back().start_offset) {
    return absl::OkStatus();  // already known
  }
  while (!entries.empty() &&
         (entries.back().epoch >= entry.epoch || entries.back().start_offset >= entry.start_offset)) {
    entries.pop_back();
  }
  entries.push_back(entry);
  return absl::OkStatus();
}

absl::Status LeaderEpochCache::Publish(std::vector<EpochEntry> next, EpochSync sync) {
  if (next == entries_ && (sync == EpochSync::kDeferred || !unsynced_)) return absl::OkStatus();
  if (sync == EpochSync::kDeferred) {
    entries_ = std::move(next);
    unsynced_ = true;
    return absl::OkStatus();
  }
  STRATA_RETURN_IF_ERROR(WriteFileAtomically(ops_, path_, FormatEpochCheckpoint(next)));
  entries_ = std::move(next);
  unsynced_ = false;
  return absl::OkStatus();
}

absl::Status LeaderEpochCache::Assign(int32_t epoch, int64_t start_offset, EpochSync sync) {
  absl::MutexLock file(&file_mu_);
  absl::MutexLock lock(&mu_);
  std::vector<EpochEntry> next = entries_;
  STRATA_RETURN_IF_ERROR(ApplyAssign(next, {epoch, start_offset}));
  return Publish(std::move(next), sync);
}

absl::Status LeaderEpochCache::Assign(const std::vector<EpochEntry>& entries, EpochSync sync) {
  STRATA_RETURN_IF_ERROR(ValidateEntries(entries));
  absl::MutexLock file(&file_mu_);
  absl::MutexLock lock(&mu_);
  std::vector<EpochEntry> next = entries_;
  for (const EpochEntry& e : entries) ABSL_CHECK_OK(ApplyAssign(next, e));
  return Publish(std::move(next), sync);
}

absl::Status LeaderEpochCache::Sync() {
  absl::MutexLock file(&file_mu_);
  std::vector<EpochEntry> state;
  {
    absl::MutexLock lock(&mu_);
    if (!unsynced_) return absl::OkStatus();
    state = entries_;
    unsynced_ = false;
  }
  absl::Status written = WriteFileAtomically(ops_, path_, FormatEpochCheckpoint(state));
  if (!written.ok()) {
    absl::MutexLock lock(&mu_);
    unsynced_ = true;
  }
  return written;
}

bool LeaderEpochCache::has_unsynced() const {
  absl::ReaderMutexLock lock(&mu_);
  return unsynced_;
}

absl::Status LeaderEpochCache::Validate(const std::vector<EpochEntry>& entries) { return ValidateEntries(entries); }

absl::Status LeaderEpochCache::Restore(const std::vector<EpochEntry>& entries) {
  STRATA_RETURN_IF_ERROR(ValidateEntries(entries));
  absl::MutexLock file(&file_mu_);
  absl::MutexLock lock(&mu_);
  return Publish(entries);
}

std::optional<EpochEntry> LeaderEpochCache::Latest() const {
  absl::ReaderMutexLock lock(&mu_);
  if (entries_.empty()) return std::nullopt;
  return entries_.back();
}

std::optional<EpochEntry> LeaderEpochCache::Earliest() const {
  absl::ReaderMutexLock lock(&mu_);
  if (entries_.empty()) return std::nullopt;
  return entries_.front();
}

std::pair<int32_t, int64_t> LeaderEpochCache::EndOffsetFor(int32_t requested_epoch, int64_t log_end_offset) const {
  absl::ReaderMutexLock lock(&mu_);
  if (requested_epoch == kUndefinedEpoch) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (!entries_.empty() && entries_.back().epoch == requested_epoch) return {requested_epoch, log_end_offset};
  // The first entry of a higher epoch ends the requested one.
  auto higher = std::upper_bound(entries_.begin(), entries_.end(), requested_epoch,
                                 [](int32_t epoch, const EpochEntry& e) { return epoch < e.epoch; });
  if (higher == entries_.end()) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (higher == entries_.begin()) return {requested_epoch, higher->start_offset};
  return {std::prev(higher)->epoch, higher->start_offset};
}

std::optional<int32_t> LeaderEpochCache::EpochForOffset(int64_t offset) const {
  absl::ReaderMutexLock lock(&mu_);
  std::optional<int32_t> epoch;
  for (const EpochEntry& e : entries_) {
    if (e.start_offset > offset) break;
    epoch = e.epoch;
  }
  return epoch;
}

absl::Status LeaderEpochCache::TruncateFromEnd(int64_t end_offset) {
  absl::MutexLock file(&file_mu_);
  absl::MutexLock lock(&mu_);
  std::vector<EpochEntry> next = entries_;
  while (!next.empty() && next.back().start_offset >= end_offset) next.pop_back();
  return Publish(std::move(next));
}

absl::Status LeaderEpochCache::TruncateFromStart(int64_t start_offset) {
  absl::MutexLock file(&file_mu_);
  absl::MutexLock lock(&mu_);
  std::vector<EpochEntry> next;
  for (size_t i = 0; i < entries_.size(); ++i) {
    bool next_starts_by = i + 1 < entries_.size() && entries_[i + 1].start_offset <= start_offset;
    if (next_starts_by) continue;  // wholly below start_offset
    EpochEntry e = entries_[i];
    if (e.start_offset < start_offset) e.start_offset = start_offset;
    next.push_back(e);
  }
  return Publish(std::move(next));
}

absl::Status LeaderEpochCache::Clear() {
  absl::MutexLock file(&file_mu_);
  absl::MutexLock lock(&mu_);
  return Publish({});
}

std::vector<EpochEntry> LeaderEpochCache::entries() const {
  absl::ReaderMutexLock lock(&mu_);
  return entries_;
}

}  // namespace strata::storage
