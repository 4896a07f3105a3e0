// Log's side of a replica moving between log dirs (AlterReplicaLogDirs; the
// LogManager's future logs, log_manager_futures.cc).

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/errc.h"
#include "storage/log.h"

namespace strata::storage {

absl::Status Log::TakeOverStateOf(const Log& current) {
  // Read first: the two logs' locks are never held together.
  const int64_t current_end = current.log_end_offset();
  const int64_t high_watermark = current.high_watermark();
  const int64_t log_start = current.log_start_offset();
  const std::vector<EpochEntry> epochs = current.leader_epoch_cache_->entries();
  std::map<int64_t, ProducerStateEntry> producers = current.ProducerStates();
  if (log_end_offset() != current_end) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat(dir(), " ends at ", log_end_offset(), ", ",
                                                          current.dir(), " at ", current_end));
  }
  UpdateConfig(current.config());
  set_highest_offset_in_remote_storage(current.highest_offset_in_remote_storage());
  UpdateHighWatermark(high_watermark);
  if (log_start > log_start_offset()) STRATA_RETURN_IF_ERROR(MaybeIncrementLogStartOffset(log_start));
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  STRATA_RETURN_IF_ERROR(Io(leader_epoch_cache_->Restore(epochs)));
  // The producers whose batches lie below the copied range (the current log's snapshot
  // holds them) are known here only through this.
  if (producer_state_->map_end_offset() != log_end_offset_) {
    return MakeError(Errc::kStorageError, absl::StrCat(dir(), ": producer state ends at ",
                                                       producer_state_->map_end_offset(), ", the log at ",
                                                       log_end_offset_));
  }
  producer_state_->ReplaceProducers(std::move(producers));
  return absl::OkStatus();
}

void Log::Retire() {
  EndScheduledTasks();
  absl::MutexLock lock(&mu_);
  retired_ = true;
}

}  // namespace strata::storage
