#include "storage/log_manager.h"

#include "absl/cleanup/cleanup.h"

#include "base/logging.h"

#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/checkpoint_file.h"
#include "storage/errc.h"

namespace strata::storage {
absl::StatusOr<std::unique_ptr<LogManager>> LogManager::Open(const LogManagerOptions& options) {
  ABSL_CHECK(options.scheduler != nullptr);
  if (options.log_dirs.empty()) return MakeError(Errc::kInvalidConfig, "log.dirs is empty");
  std::unique_ptr<LogManager> manager(new LogManager(options));
  manager->transfer_checker_ = std::make_shared<TransferFailureChecker>(options.scheduler, &manager->failure_channel_);
  for (const auto& dir : options.log_dirs) manager->failure_channel_.RegisterDir(dir);
  if (options.directory_ids.size() == options.log_dirs.size()) {
    for (size_t i = 0; i < options.log_dirs.size(); ++i) {
      manager->directory_ids_[options.log_dirs[i]] = options.directory_ids[i];
    }
  }
  LogManager* raw = manager.get();
  manager->failure_channel_.AddListener([raw](const std::string& dir, const absl::Status&) { raw->OnDirOffline(dir); });
  std::map<std::string, std::string> directory_ids;  // id -> dir
  for (const auto& dir : options.log_dirs) {
    absl::Status s = manager->OpenDir(dir, directory_ids);
    if (s.ok()) continue;
    if (ErrcOf(s) == Errc::kInvalidConfig) return s;  // a misconfiguration, not a disk failure
    manager->failure_channel_.MaybeAddOfflineLogDir(dir, s);
  }
  if (manager->online_dirs().empty()) {
    return MakeError(Errc::kStorageError, "every log dir is offline; nothing can be served");
  }
  STRATA_RETURN_IF_ERROR(manager->CompleteInterruptedMoves());
  if (options.cleaner) {
    LogCleanerOptions cleaner_options = *options.cleaner;
    cleaner_options.ops = options.ops;
    cleaner_options.clock = options.clock;
    manager->cleaner_ = LogCleaner::Create(cleaner_options, manager->online_dirs(), [raw] {
      std::vector<CleanerCandidate> out;
      absl::MutexLock lock(&raw->mu_);
      if (raw->shut_down_) return out;
      for (const auto& [tp, log] : raw->logs_) out.push_back(CleanerCandidate{tp, log.get(), raw->dir_of_.at(tp)});
      return out;
    });
    manager->cleaner_->Start();
  }
  return manager;
}

LogManager::~LogManager() {
  if (cleaner_) cleaner_->Shutdown();  // before any log goes
  {
    absl::MutexLock lock(&lifetime_->mu);
    lifetime_->alive = false;
  }
  absl::MutexLock lock(&mu_);
  futures_.clear();
  logs_.clear();
}

LogOptions LogManager::OptionsFor(const std::string& path, const LogConfig& config) {
  LogOptions lo;
  lo.ops = options_.ops;
  lo.dir = path;
  lo.config = config;
  lo.clock = options_.clock;
  lo.scheduler = options_.scheduler;
  lo.failure_channel = &failure_channel_;
  lo.flush_stats = &flush_stats_;
  return lo;
}

absl::Status LogManager::OpenDir(const std::string& dir, std::map<std::string, std::string>& directory_ids) {
  FileOps& ops = *options_.ops;
  STRATA_RETURN_IF_ERROR(CreateDirRecursively(ops, dir));
  std::string meta_path = JoinPath(dir, kMetaPropertiesFile);
  STRATA_ASSIGN_OR_RETURN(bool has_meta, ops.Exists(meta_path));
  MetaProperties meta;
  if (has_meta) {
    STRATA_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(ops, meta_path));
    auto parsed = ParseMetaProperties(text, meta_path);
    if (!parsed.ok()) return MakeError(Errc::kInvalidConfig, parsed.status().message());
    meta = *parsed;
    if (!options_.cluster_id.empty() && meta.cluster_id != options_.cluster_id) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat(meta_path, " has cluster.id ", meta.cluster_id,
                                                          " but this node is configured for ", options_.cluster_id));
    }
    if (meta.node_id != options_.node_id) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat(meta_path, " has node.id ", meta.node_id,
                                                          " but this node is configured as ", options_.node_id));
    }
  } else {
    meta = MetaProperties{options_.cluster_id, options_.node_id, NewBase64Uuid()};
    STRATA_RETURN_IF_ERROR(WriteFileAtomically(ops, meta_path, FormatMetaProperties(meta)));
  }
  if (auto [it, inserted] = directory_ids.emplace(meta.directory_id, dir); !inserted) {
    return MakeError(Errc::kInvalidConfig, absl::StrCat(dir, " and ", it->second, " have the same directory.id ",
                                                        meta.directory_id));
  }

  std::string marker = JoinPath(dir, kCleanShutdownFile);
  STRATA_ASSIGN_OR_RETURN(bool clean, ops.Exists(marker));
  auto read_checkpoint = [&](absl::string_view name) -> absl::StatusOr<OffsetCheckpoint> {
    auto checkpoint = ReadOffsetCheckpoint(ops, JoinPath(dir, name));
    if (checkpoint.ok() || ErrcOf(checkpoint.status()) != Errc::kInvalidCheckpoint) return checkpoint;
    // A garbled checkpoint only costs time: offsets fall back to 0 and the logs of
    // this dir are recovered in full.
    spdlog::warn("{}; using no checkpoint, every log of {} is recovered", checkpoint.status().message(), dir);
    clean = false;
    return OffsetCheckpoint();
  };
  STRATA_ASSIGN_OR_RETURN(OffsetCheckpoint recovery_points, read_checkpoint(kRecoveryPointCheckpointFile));
  STRATA_ASSIGN_OR_RETURN(OffsetCheckpoint log_starts, read_checkpoint(kLogStartOffsetCheckpointFile));
  STRATA_ASSIGN_OR_RETURN(OffsetCheckpoint high_watermarks, read_checkpoint(kReplicationOffsetCheckpointFile));

  STRATA_ASSIGN_OR_RETURN(auto names, ops.ListDir(dir));
  std::map<TopicPartition, std::unique_ptr<Log>> loaded;
  std::map<TopicPartition, std::unique_ptr<Log>> loaded_futures;
  for (const auto& name : names) {
    std::string path = JoinPath(dir, name);
    STRATA_ASSIGN_OR_RETURN(bool is_dir, ops.IsDirectory(path));
    if (!is_dir || name == kRemoteChunkCacheDirName) continue;
    if (absl::EndsWith(name, kDeleteDirSuffix)) {
      STRATA_RETURN_IF_ERROR(RemoveRecursively(ops, path));
      continue;
    }
    auto tp = ParsePartitionDirName(name);
    auto future = ParseFutureDirName(name);
    if (!tp && !future) {
      spdlog::warn("{}: ignoring directory {}, not named <topic>-<partition>", dir, name);
      continue;
    }
    if (future) tp = future;
    LogOptions lo = OptionsFor(path, options_.default_config);
    lo.had_clean_shutdown = clean;
    auto lookup = [&](const OffsetCheckpoint& c) { auto it = c.find(*tp); return it == c.end() ? 0 : it->second; };
    lo.recovery_point = lookup(recovery_points);
    lo.log_start_offset = lookup(log_starts);
    lo.high_watermark = lookup(high_watermarks);
    STRATA_ASSIGN_OR_RETURN(auto log, Log::Open(lo));
    auto& into = future ? loaded_futures : loaded;
    if (!into.emplace(*tp, std::move(log)).second) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat(dir, " has two future logs of ", tp->DirName()));
    }
  }
  if (clean) STRATA_RETURN_IF_ERROR(ops.Remove(marker));
  else {
    STRATA_ASSIGN_OR_RETURN(bool marker_exists, ops.Exists(marker));
    if (marker_exists) STRATA_RETURN_IF_ERROR(ops.Remove(marker));
  }

  absl::MutexLock lock(&mu_);
  for (auto& [tp, log] : loaded) {
    if (dir_of_.count(tp)) {
      return MakeError(Errc::kInvalidConfig,
                       absl::StrCat("partition ", tp.DirName(), " is in both ", dir_of_[tp], " and ", dir));
    }
    dir_of_[tp] = dir;
    log->set_transfer_failure_handler(transfer_checker_->HandlerFor(dir));
    logs_[tp] = std::move(log);
  }
  for (auto& [tp, log] : loaded_futures) {
    if (auto it = futures_.find(tp); it != futures_.end()) {
      return MakeError(Errc::kInvalidConfig,
                       absl::StrCat("partition ", tp.DirName(), " has future logs in both ", it->second.dir, " and ", dir));
    }
    spdlog::info("{}: future log of {} found; its move goes on", dir, tp.DirName());
    futures_[tp] = FutureLog{std::move(log), dir};
  }
  // As the controller names dirs (the partition records' directories): 16 raw bytes.
  auto raw_id = DecodeBase64Uuid(meta.directory_id);
  if (!raw_id.ok()) return MakeError(Errc::kInvalidConfig, absl::StrCat(meta_path, ": ", raw_id.status().message()));
  directory_ids_[dir] = *raw_id;
  return absl::OkStatus();
}

void LogManager::OnDirOffline(const std::string& dir) {
  // Runs on the thread that hit the error, possibly inside a Log's lock: the logs
  // already refuse work (their dir flag is set); closing them is left to the scheduler.
  auto scheduled = options_.scheduler->Schedule(absl::StrCat("close-logs-of-offline-dir ", dir),
                                                std::chrono::milliseconds(0),
                                                [this, dir, lifetime = lifetime_] {
    absl::MutexLock alive_lock(&lifetime->mu);
    if (!lifetime->alive) return;
    absl::MutexLock lock(&mu_);
    for (auto& [tp, log] : logs_) {
      if (dir_of_[tp] == dir) log->CloseAfterDirFailure();
    }
    for (auto& [tp, future] : futures_) {
      if (future.dir == dir) future.log->CloseAfterDirFailure();
    }
  });
  if (!scheduled.ok()) spdlog::error("could not schedule closing the logs of {}: {}", dir, scheduled.status().message());
}

absl::StatusOr<Log*> LogManager::GetOrCreateLog(const TopicPartition& tp, const std::optional<LogConfig>& config,
                                                 const std::string& directory_id) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return MakeError(Errc::kStorageError, "log manager is shut down");
  if (auto it = logs_.find(tp); it != logs_.end()) return it->second.get();
  if (!directory_id.empty()) {
    for (const auto& [dir, id] : directory_ids_) {
      if (id == directory_id && failure_channel_.IsOffline(dir)) {
        // The replica is in a dir that failed: creating it afresh elsewhere would serve
        // an empty log as if it were this replica.
        return MakeError(Errc::kLogDirOffline, absl::StrCat("the replica of ", tp.DirName(), " is in log dir ", dir,
                                                            ", which is offline; it is not re-created in another"));
      }
    }
  }
  std::string chosen;
  size_t fewest = SIZE_MAX;
  // (Future logs are not counted: they are moving in, and their current logs count.)
  for (const auto& dir : options_.log_dirs) {
    if (failure_channel_.IsOffline(dir)) continue;
    auto id = directory_ids_.find(dir);
    if (!directory_id.empty() && id != directory_ids_.end() && id->second == directory_id) {
      chosen = dir;  // the dir the controller placed the replica in
      break;
    }
    size_t count = 0;
    for (const auto& [other, d] : dir_of_) count += d == dir;
    if (count < fewest) {
      fewest = count;
      chosen = dir;
    }
  }
  if (chosen.empty()) return MakeError(Errc::kLogDirOffline, "no online log dir to place " + tp.DirName());
  LogOptions lo = OptionsFor(JoinPath(chosen, tp.DirName()), config.value_or(options_.default_config));
  lo.had_clean_shutdown = true;  // a new, empty log
  STRATA_ASSIGN_OR_RETURN(auto log, Log::Open(lo));
  Log* raw = log.get();
  log->set_transfer_failure_handler(transfer_checker_->HandlerFor(chosen));
  logs_[tp] = std::move(log);
  dir_of_[tp] = chosen;
  return raw;
}

Log* LogManager::GetLog(const TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  auto it = logs_.find(tp);
  return it == logs_.end() ? nullptr : it->second.get();
}

std::vector<TopicPartition> LogManager::partitions() const {
  absl::MutexLock lock(&mu_);
  std::vector<TopicPartition> out;
  for (const auto& [tp, log] : logs_) out.push_back(tp);
  return out;
}

std::vector<LogManager::LogSummary> LogManager::Summaries() const {
  absl::MutexLock lock(&mu_);
  std::vector<LogSummary> out;
  for (const auto& [tp, log] : logs_) {
    const std::string& dir = dir_of_.at(tp);
    if (failure_channel_.IsOffline(dir)) continue;  // closed
    out.push_back({tp, dir, log->size_in_bytes(), log->high_watermark(), log->log_end_offset()});
  }
  for (const auto& [tp, future] : futures_) {
    if (failure_channel_.IsOffline(future.dir)) continue;
    auto current = logs_.find(tp);
    int64_t current_end = current == logs_.end() || failure_channel_.IsOffline(dir_of_.at(tp))
                              ? future.log->log_end_offset()
                              : current->second->log_end_offset();
    out.push_back({tp, future.dir, future.log->size_in_bytes(), future.log->high_watermark(),
                   future.log->log_end_offset(), /*is_future=*/true, current_end});
  }
  return out;
}

std::string LogManager::dir_of(const TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  auto it = dir_of_.find(tp);
  return it == dir_of_.end() ? "" : it->second;
}

absl::Status LogManager::DeleteLog(const TopicPartition& tp) {
  // The future log first: one left without its current log would be taken for an
  // interrupted move at the next start (CompleteInterruptedMoves).
  STRATA_RETURN_IF_ERROR(DeleteFutureLog(tp));
  // Not under mu_: a cleaning in progress lists the logs (lock order: cleaner, then mu_).
  if (cleaner_) cleaner_->AbortAndPause(tp);
  absl::Cleanup forget = [this, &tp] {
    if (cleaner_) cleaner_->Forget(tp);
  };
  absl::MutexLock lock(&mu_);
  auto it = logs_.find(tp);
  if (it == logs_.end()) return absl::OkStatus();
  std::unique_ptr<Log> log = std::move(it->second);
  std::string dir = dir_of_[tp];
  logs_.erase(it);
  dir_of_.erase(tp);
  log->CloseAfterDirFailure();  // drop handles; the files go with the directory
  STRATA_ASSIGN_OR_RETURN(std::string doomed, RenameForDeletion(*log, dir, tp));
  return ScheduleRemoval(doomed);
}

absl::StatusOr<std::string> LogManager::RenameForDeletion(const Log& log, const std::string& dir,
                                                          const TopicPartition& tp) {
  std::string doomed = JoinPath(dir, absl::StrCat(tp.DirName(), ".", NewBase64Uuid(), kDeleteDirSuffix));
  absl::Status renamed = options_.ops->Rename(log.dir(), doomed);
  if (!renamed.ok()) {
    failure_channel_.MaybeAddOfflineLogDir(dir, renamed);
    return renamed;
  }
  return doomed;
}

absl::Status LogManager::ScheduleRemoval(const std::string& doomed, std::function<void()> before) {
  FileOps& ops = *options_.ops;
  auto remove = [&ops, doomed, before = std::move(before)] {
    if (before) before();
    (void)RemoveRecursively(ops, doomed);
  };
  auto scheduled = options_.scheduler->Schedule(absl::StrCat("delete-partition-dir ", doomed),
                                                std::chrono::milliseconds(options_.default_config.file_delete_delay_ms),
                                                remove);
  if (!scheduled.ok()) remove();  // the scheduler is full: now
  return absl::OkStatus();
}

absl::Status LogManager::WriteCheckpoint(const std::string& dir, Checkpoint which) {
  OffsetCheckpoint offsets;
  auto add = [&](const TopicPartition& tp, const Log& log) {
    switch (which) {
      case Checkpoint::kRecoveryPoints: offsets[tp] = log.recovery_point(); break;
      case Checkpoint::kLogStartOffsets: offsets[tp] = log.log_start_offset(); break;
      case Checkpoint::kHighWatermarks: offsets[tp] = log.high_watermark(); break;
    }
  };
  for (const auto& [tp, log] : logs_) {
    if (dir_of_.at(tp) == dir) add(tp, *log);
  }
  // A dir never holds both tp's log and its future log (GetOrCreateFutureLog).
  for (const auto& [tp, future] : futures_) {
    if (future.dir == dir) add(tp, *future.log);
  }
  absl::string_view name = which == Checkpoint::kRecoveryPoints    ? kRecoveryPointCheckpointFile
                     : which == Checkpoint::kLogStartOffsets ? kLogStartOffsetCheckpointFile
                                                             : kReplicationOffsetCheckpointFile;
  return WriteOffsetCheckpoint(*options_.ops, JoinPath(dir, name), offsets);
}

absl::Status LogManager::CheckpointDir(const std::string& dir) {
  for (Checkpoint which : {Checkpoint::kRecoveryPoints, Checkpoint::kLogStartOffsets, Checkpoint::kHighWatermarks}) {
    STRATA_RETURN_IF_ERROR(WriteCheckpoint(dir, which));
  }
  return absl::OkStatus();
}

absl::Status LogManager::CheckpointOnlineDirs(Checkpoint which) {
  absl::ReaderMutexLock lock(&mu_);
  absl::Status first;
  for (const auto& dir : options_.log_dirs) {
    if (failure_channel_.IsOffline(dir)) continue;
    absl::Status s = WriteCheckpoint(dir, which);
    if (!s.ok()) {
      failure_channel_.MaybeAddOfflineLogDir(dir, s);
      first.Update(s);
    }
  }
  return first;
}

absl::Status LogManager::CheckpointRecoveryPoints() { return CheckpointOnlineDirs(Checkpoint::kRecoveryPoints); }
absl::Status LogManager::CheckpointLogStartOffsets() { return CheckpointOnlineDirs(Checkpoint::kLogStartOffsets); }
absl::Status LogManager::CheckpointHighWatermarks() { return CheckpointOnlineDirs(Checkpoint::kHighWatermarks); }

absl::Status LogManager::CheckpointAll() {
  absl::Status first;
  first.Update(CheckpointRecoveryPoints());
  first.Update(CheckpointLogStartOffsets());
  first.Update(CheckpointHighWatermarks());
  return first;
}

void LogManager::FlushDirtyLogs() {
  absl::ReaderMutexLock lock(&mu_);
  int64_t now = options_.clock->NowMs();
  for (const auto& [tp, log] : logs_) {
    if (!log->offline()) (void)log->MaybeFlushForTime(now);  // a failure takes the dir offline
  }
}

absl::StatusOr<int> LogManager::DeleteOldSegments() {
  absl::ReaderMutexLock lock(&mu_);
  int deleted = 0;
  for (const auto& [tp, log] : logs_) {
    if (log->offline()) continue;
    auto n = log->DeleteOldSegments();
    if (n.ok()) deleted += *n;
  }
  return deleted;
}

absl::Status LogManager::FlushAll() {
  absl::ReaderMutexLock lock(&mu_);
  absl::Status first;
  for (const auto& [tp, log] : logs_) {
    if (!log->offline()) first.Update(log->FlushAll());
  }
  return first;
}

absl::Status LogManager::Shutdown() {
  if (cleaner_) cleaner_->Shutdown();
  absl::MutexLock lock(&mu_);
  if (shut_down_) return absl::OkStatus();
  shut_down_ = true;
  absl::Status first;
  for (const auto& dir : options_.log_dirs) {
    if (failure_channel_.IsOffline(dir)) continue;
    absl::Status s;
    for (auto& [tp, log] : logs_) {
      if (dir_of_[tp] == dir) s.Update(log->Close());
    }
    for (auto& [tp, future] : futures_) {
      if (future.dir == dir) s.Update(future.log->Close());
    }
    s.Update(CheckpointDir(dir));
    if (s.ok()) s = WriteFileAtomically(*options_.ops, JoinPath(dir, kCleanShutdownFile), "");
    if (!s.ok()) {
      spdlog::error("unclean shutdown of log dir {}: {}", dir, s.message());
      first.Update(s);
    }
  }
  return first;
}

std::vector<std::string> LogManager::online_dirs() const {
  std::vector<std::string> out;
  for (const auto& dir : options_.log_dirs) {
    if (!failure_channel_.IsOffline(dir)) out.push_back(dir);
  }
  return out;
}

LoadStats LogManager::startup_recovery() const {
  absl::MutexLock lock(&mu_);
  LoadStats total;
  for (const auto& [tp, log] : logs_) {
    total.segments_recovered += log->load_stats().segments_recovered;
    total.bytes_recovered += log->load_stats().bytes_recovered;
    total.indexes_rebuilt += log->load_stats().indexes_rebuilt;
    total.swaps_completed += log->load_stats().swaps_completed;
    total.producer_batches_replayed += log->load_stats().producer_batches_replayed;
    total.producer_state_rebuilds += log->load_stats().producer_state_rebuilds;
  }
  return total;
}

std::string LogManager::directory_id(const std::string& dir) const {
  auto it = directory_ids_.find(dir);
  return it == directory_ids_.end() ? "" : it->second;
}

}  // namespace strata::storage
