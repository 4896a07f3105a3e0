// LogManager's future logs: a replica moving between this broker's log dirs
// (AlterReplicaLogDirs). See log_manager.h.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "storage/errc.h"
#include "storage/log_manager.h"

namespace strata::storage {

absl::StatusOr<Log*> LogManager::GetOrCreateFutureLog(const TopicPartition& tp, const std::string& dir) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return MakeError(Errc::kStorageError, "log manager is shut down");
  if (std::find(options_.log_dirs.begin(), options_.log_dirs.end(), dir) == options_.log_dirs.end()) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat(dir, " is not one of log.dirs"));
  }
  auto current = logs_.find(tp);
  if (current == logs_.end()) return MakeError(Errc::kInvalidArgument, absl::StrCat("no log of ", tp.DirName()));
  if (dir_of_.at(tp) == dir) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat("the log of ", tp.DirName(), " is in ", dir, " already"));
  }
  if (auto it = futures_.find(tp); it != futures_.end()) {
    if (it->second.dir == dir) return it->second.log.get();
    return MakeError(Errc::kInvalidArgument,
                     absl::StrCat(tp.DirName(), " is moving to ", it->second.dir, " already, not to ", dir));
  }
  for (const auto& d : options_.log_dirs) {
    if (failure_channel_.IsOffline(d)) {
      return MakeError(Errc::kLogDirOffline,
                       absl::StrCat("log dir ", d, " is offline: no replica moves until it is back"));
    }
  }
  LogOptions lo = OptionsFor(JoinPath(dir, FutureDirName(tp)), current->second->config());
  lo.had_clean_shutdown = true;  // a new, empty log
  STRATA_ASSIGN_OR_RETURN(auto log, Log::Open(lo));
  // The partition's topic id goes along (Kafka's partition.metadata), so that the
  // future log is never taken for a later topic of the same name.
  const std::string metadata = JoinPath(current->second->dir(), kPartitionMetadataFile);
  if (auto text = ReadWholeFile(*options_.ops, metadata); text.ok()) {
    if (absl::Status copied = WriteFileAtomically(*options_.ops, JoinPath(log->dir(), kPartitionMetadataFile), *text);
        !copied.ok()) {
      failure_channel_.MaybeAddOfflineLogDir(dir, copied);
      return copied;
    }
  }
  log->set_transfer_failure_handler(transfer_checker_->HandlerFor(dir));
  Log* raw = log.get();
  spdlog::info("moving {} from {} to {}: future log {}", tp.DirName(), dir_of_.at(tp), dir, log->dir());
  futures_[tp] = FutureLog{std::move(log), dir};
  return raw;
}

Log* LogManager::GetFutureLog(const TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  auto it = futures_.find(tp);
  return it == futures_.end() ? nullptr : it->second.log.get();
}

std::vector<TopicPartition> LogManager::future_partitions() const {
  absl::MutexLock lock(&mu_);
  std::vector<TopicPartition> out;
  for (const auto& [tp, future] : futures_) out.push_back(tp);
  return out;
}

absl::Status LogManager::DeleteFutureLog(const TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  auto it = futures_.find(tp);
  if (it == futures_.end()) return absl::OkStatus();
  FutureLog future = std::move(it->second);
  futures_.erase(it);
  future.log->CloseAfterDirFailure();  // drop handles; the files go with the directory
  spdlog::info("{}: deleting the future log of {}", future.dir, tp.DirName());
  STRATA_ASSIGN_OR_RETURN(std::string doomed, RenameForDeletion(*future.log, future.dir, tp));
  return ScheduleRemoval(doomed);
}

absl::StatusOr<std::unique_ptr<Log>> LogManager::OpenMoved(const Log& closed, const std::string& dir,
                                                           const TopicPartition& tp) {
  LogOptions lo = OptionsFor(JoinPath(dir, tp.DirName()), closed.config());
  lo.recovery_point = closed.log_end_offset();  // Close flushed it whole
  lo.log_start_offset = closed.log_start_offset();
  lo.high_watermark = closed.high_watermark();
  lo.had_clean_shutdown = true;
  STRATA_ASSIGN_OR_RETURN(auto log, Log::Open(lo));
  log->set_highest_offset_in_remote_storage(closed.highest_offset_in_remote_storage());
  log->set_transfer_failure_handler(transfer_checker_->HandlerFor(dir));
  return log;
}

absl::Status LogManager::RenameIntoPlace(const Log& future, const std::string& dir, const TopicPartition& tp) {
  absl::Status renamed = options_.ops->Rename(future.dir(), JoinPath(dir, tp.DirName()));
  if (renamed.ok()) renamed = options_.ops->SyncDir(dir);
  if (!renamed.ok()) failure_channel_.MaybeAddOfflineLogDir(dir, renamed);
  return renamed;
}

absl::StatusOr<LogManager::Replaced> LogManager::ReplaceCurrentWithFuture(const TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return MakeError(Errc::kStorageError, "log manager is shut down");
  auto current = logs_.find(tp);
  auto future = futures_.find(tp);
  if (current == logs_.end() || future == futures_.end()) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat(tp.DirName(), " has no current and future log to swap"));
  }
  const std::string source = dir_of_.at(tp);
  const std::string target = future->second.dir;
  Log& moving = *future->second.log;
  STRATA_RETURN_IF_ERROR(moving.TakeOverStateOf(*current->second));
  // Flushed whole, with the producer snapshot and epochs it took over: it opens clean.
  // A failure so far changed nothing of the current log.
  STRATA_RETURN_IF_ERROR(moving.Close());
  // The current log's flushes and epoch writes would go to a directory renamed below.
  current->second->Retire();
  // From here a failure also takes the source dir offline: the current log in memory is
  // retired, and a restart sorts out what the disk holds (CompleteInterruptedMoves).
  auto fail_source = [&](const absl::Status& cause) {
    failure_channel_.MaybeAddOfflineLogDir(
        source, MakeError(Errc::kStorageError, absl::StrCat("the move of ", tp.DirName(), " to ", target,
                                                            " failed midway: ", cause.message())));
    return cause;
  };
  const std::string current_path = current->second->dir();
  STRATA_ASSIGN_OR_RETURN(std::string doomed, RenameForDeletion(*current->second, source, tp));
  if (absl::Status synced = options_.ops->SyncDir(source); !synced.ok()) return fail_source(synced);
  // Until the next rename a restart finds only the future log, and finishes the move.
  if (absl::Status renamed = RenameIntoPlace(moving, target, tp); !renamed.ok()) {
    // The current log's copy is whole: back under its name, the partition's log at the
    // next start (its removal, scheduled, then finds nothing).
    (void)options_.ops->Rename(doomed, current_path);
    return fail_source(renamed);
  }
  std::unique_ptr<Log> closed = std::move(future->second.log);
  futures_.erase(future);
  auto moved = OpenMoved(*closed, target, tp);
  if (!moved.ok()) return fail_source(moved.status());  // the target dir is offline, and the replica with it
  // Opening drops an epoch that has no batch yet (as Kafka's load does); the partition
  // still leads or follows in it.
  auto latest = current->second->leader_epoch_cache().Latest();
  if (latest && latest->start_offset == (*moved)->log_end_offset()) {
    if (absl::Status started = (*moved)->StartLeaderEpoch(latest->epoch); !started.ok()) {
      return fail_source(started);
    }
  }
  Replaced out;
  out.retired = std::shared_ptr<Log>(std::move(current->second));
  out.log = moved->get();
  current->second = *std::move(moved);
  dir_of_[tp] = target;
  spdlog::info("{} moved from {} to {}; the old log is {} until it is removed", tp.DirName(), source, target, doomed);
  // Readable meanwhile by whoever still holds it; closed with its directory's removal.
  // (A weak reference: the scheduler destroys its tasks under its lock, where ~Log, which
  // takes the log's locks, must not run.)
  (void)ScheduleRemoval(doomed, [retired = std::weak_ptr<Log>(out.retired)] {
    if (std::shared_ptr<Log> log = retired.lock()) log->CloseAfterDirFailure();
  });
  return out;
}

absl::Status LogManager::CompleteInterruptedMoves() {
  absl::MutexLock lock(&mu_);
  if (futures_.empty()) return absl::OkStatus();
  if (online_dirs().size() != options_.log_dirs.size()) {
    spdlog::warn("{} replica moves wait: a log dir is offline", futures_.size());
    return absl::OkStatus();
  }
  for (auto it = futures_.begin(); it != futures_.end();) {
    const TopicPartition tp = it->first;
    if (logs_.count(tp)) {
      ++it;
      continue;
    }
    std::string dir = it->second.dir;
    spdlog::warn("{}: the move of {} to it was interrupted after the old log went; finishing it", dir, tp.DirName());
    std::unique_ptr<Log> future = std::move(it->second.log);
    it = futures_.erase(it);
    // A failure takes dir offline (the logs report it): the others still serve.
    absl::Status closed = future->Close();
    if (closed.ok()) closed = RenameIntoPlace(*future, dir, tp);
    absl::StatusOr<std::unique_ptr<Log>> log = closed.ok() ? OpenMoved(*future, dir, tp) : closed;
    if (!log.ok()) {
      spdlog::error("{}: finishing the move of {}: {}", dir, tp.DirName(), log.status().message());
      continue;
    }
    logs_[tp] = *std::move(log);
    dir_of_[tp] = dir;
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
