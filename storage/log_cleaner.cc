#include "storage/log_cleaner.h"

#include <chrono>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "storage/checkpoint_file.h"
#include "storage/errc.h"

namespace strata::storage {

std::unique_ptr<LogCleaner> LogCleaner::Create(const LogCleanerOptions& options,
                                               const std::vector<std::string>& log_dirs, LogsFn logs) {
  ABSL_CHECK_GE(options.threads, 1);
  std::unique_ptr<LogCleaner> cleaner(new LogCleaner(options, std::move(logs)));
  absl::MutexLock lock(&cleaner->mu_);
  for (const std::string& dir : log_dirs) {
    auto offsets = ReadOffsetCheckpoint(*options.ops, JoinPath(dir, kCleanerOffsetCheckpointFile));
    if (!offsets.ok()) {
      // Only costs work: the dir's logs are cleaned again from their log start.
      spdlog::warn("log cleaner: {}; cleaning {}'s logs from their start", offsets.status().message(), dir);
      continue;
    }
    cleaner->checkpoints_[dir] = *std::move(offsets);
  }
  return cleaner;
}

LogCleaner::LogCleaner(const LogCleanerOptions& options, LogsFn logs)
    : logs_(std::move(logs)), throttler_(options.io_max_bytes_per_second), options_(options) {}

LogCleaner::~LogCleaner() { Shutdown(); }

void LogCleaner::Start() {
  absl::MutexLock lifecycle(&lifecycle_mu_);
  if (!started_) StartLocked();
}

void LogCleaner::Shutdown() {
  absl::MutexLock lifecycle(&lifecycle_mu_);
  StopLocked();
}

void LogCleaner::StartLocked() {
  ABSL_CHECK(threads_.empty());
  int threads = 0;
  {
    absl::MutexLock lock(&mu_);
    stopping_.store(false);
    threads = options_.threads;
  }
  started_ = true;
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

void LogCleaner::StopLocked() {
  {
    absl::MutexLock lock(&mu_);
    stopping_.store(true);
    for (auto& [tp, abort] : aborts_) abort->store(true);
    changed_.SignalAll();
  }
  throttler_.Wake();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  started_ = false;
}

void LogCleaner::Reconfigure(const LogCleanerOptions& next) {
  absl::MutexLock lifecycle(&lifecycle_mu_);
  ABSL_CHECK_GE(next.threads, 1);
  throttler_.SetRate(next.io_max_bytes_per_second);
  bool restart = false;
  {
    absl::MutexLock lock(&mu_);
    restart = started_ && next.threads != options_.threads;
    options_.threads = next.threads;
    options_.dedupe_buffer_size = next.dedupe_buffer_size;
    options_.io_max_bytes_per_second = next.io_max_bytes_per_second;
    options_.backoff_ms = next.backoff_ms;
    changed_.SignalAll();  // a waiting thread waits the new backoff
  }
  if (!restart) return;
  spdlog::info("log cleaner: restarting with {} threads", next.threads);
  StopLocked();
  StartLocked();
}

LogCleanerOptions LogCleaner::options() const {
  absl::MutexLock lock(&mu_);
  return options_;
}

void LogCleaner::Run() {
  running_.fetch_add(1);
  absl::Cleanup ran = [this] { running_.fetch_sub(1); };
  while (!stopping_.load()) {
    absl::StatusOr<bool> cleaned = CleanDirtiestOnce();
    if (cleaned.ok() && *cleaned) continue;
    absl::MutexLock lock(&mu_);
    if (stopping_.load()) break;
    // Woken early by Shutdown and Reconfigure only; the backoff bounds the wait.
    changed_.WaitWithTimeout(&mu_, absl::Milliseconds(options_.backoff_ms));
  }
}

absl::StatusOr<bool> LogCleaner::CleanDirtiestOnce() {
  CleanerCandidate chosen;
  std::optional<int64_t> checkpoint;
  std::shared_ptr<std::atomic<bool>> abort;
  int64_t now = 0;
  size_t offset_map_bytes = 0;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_.load()) return false;
    now = options_.clock->NowMs();
    offset_map_bytes = static_cast<size_t>(options_.dedupe_buffer_size / options_.threads);
    double best = -1;
    double max_ratio = 0;
    for (const CleanerCandidate& c : logs_()) {
      if (in_progress_.count(c.tp) || paused_.count(c.tp) || uncleanable_.count(c.tp) || c.log->offline()) continue;
      if (!c.log->config().cleanup_compact) continue;  // before copying the log's segments and producers
      CleaningView view = c.log->ViewForCleaning();
      std::optional<int64_t> offset;
      auto& dir_checkpoints = checkpoints_[c.dir];
      if (auto it = dir_checkpoints.find(c.tp); it != dir_checkpoints.end()) offset = it->second;
      Dirtiness d = MeasureDirtiness(view, offset, now);
      max_ratio = std::max(max_ratio, d.ratio());
      if (!d.cleanable() || (d.ratio() < view.config.min_cleanable_dirty_ratio && !d.past_max_lag)) continue;
      // A log past max.compaction.lag.ms goes first.
      double score = d.ratio() + (d.past_max_lag ? 1.0 : 0.0);
      if (score > best) {
        best = score;
        chosen = c;
        checkpoint = offset;
      }
    }
    stats_.max_dirty_ratio = max_ratio;
    ++stats_.picks;
    if (chosen.log == nullptr) return false;
    in_progress_.insert(chosen.tp);
    abort = std::make_shared<std::atomic<bool>>(false);
    aborts_[chosen.tp] = abort;
  }
  CleanParams params;
  params.now_ms = now;
  params.offset_map_bytes = offset_map_bytes;
  params.throttler = &throttler_;
  params.abort = abort.get();
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<CleanResult> result = CleanLog(*chosen.log, checkpoint, params);
  const int64_t elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();

  absl::MutexLock lock(&mu_);
  in_progress_.erase(chosen.tp);
  aborts_.erase(chosen.tp);
  changed_.SignalAll();
  if (!result.ok()) {
    ++stats_.failures;
    const absl::Status& s = result.status();
    if (s.code() == absl::StatusCode::kCancelled || s.code() == absl::StatusCode::kAborted ||
        ErrcOf(s) == Errc::kLogDirOffline || ErrcOf(s) == Errc::kStorageError) {
      // Deleted, truncated or offline meanwhile; an I/O error went to the failure channel.
      spdlog::info("log cleaner: {}: {}", chosen.tp.DirName(), s.message());
    } else {
      spdlog::error("log cleaner: {} cannot be cleaned and is skipped until restart: {}", chosen.tp.DirName(),
                    s.message());
      uncleanable_.insert(chosen.tp);
    }
    return s;
  }
  ++stats_.cleanings;
  stats_.bytes_read += result->bytes_read;
  stats_.bytes_written += result->bytes_written;
  stats_.records_removed += result->records_removed;
  stats_.last_cleaning_ms = elapsed_ms;
  spdlog::info("log cleaner: cleaned {} offsets [{}, {}) in {} ms: {} segments, {} bytes read, {} written, {} "
               "records removed ({} tombstones, {} without a key, {} of aborted transactions), {} empty producer "
               "batches kept, {} transaction markers removed",
               chosen.tp.DirName(), result->first_dirty_offset, result->next_dirty_offset, elapsed_ms,
               result->segments_cleaned, result->bytes_read, result->bytes_written, result->records_removed,
               result->tombstones_removed, result->keyless_removed, result->aborted_records_removed,
               result->empty_batches_kept, result->markers_removed);
  checkpoints_[chosen.dir][chosen.tp] = result->next_dirty_offset;
  absl::Status written = WriteCheckpoint(chosen.dir);
  if (!written.ok()) return chosen.log->ReportIo(written);
  return true;
}

absl::Status LogCleaner::WriteCheckpoint(const std::string& dir) {
  return WriteOffsetCheckpoint(*options_.ops, JoinPath(dir, kCleanerOffsetCheckpointFile), checkpoints_[dir]);
}

void LogCleaner::AbortAndPause(const TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  paused_.insert(tp);
  if (auto it = aborts_.find(tp); it != aborts_.end()) it->second->store(true);
  throttler_.Wake();
  while (in_progress_.count(tp)) changed_.Wait(&mu_);
}

void LogCleaner::Resume(const TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  paused_.erase(tp);
}

void LogCleaner::Forget(const TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  for (auto& [dir, offsets] : checkpoints_) offsets.erase(tp);
  uncleanable_.erase(tp);
  paused_.erase(tp);
}

std::optional<int64_t> LogCleaner::checkpoint(const TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  for (const auto& [dir, offsets] : checkpoints_) {
    if (auto it = offsets.find(tp); it != offsets.end()) return it->second;
  }
  return std::nullopt;
}

bool LogCleaner::paused(const TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  return paused_.count(tp) > 0;
}

CleanerStats LogCleaner::stats() const {
  absl::MutexLock lock(&mu_);
  CleanerStats out = stats_;
  out.threads = running_.load();
  return out;
}

}  // namespace strata::storage
