#pragma once
// LogCleaner: the broker's compaction threads (log.cleaner.threads). Each thread picks
// the dirtiest log with cleanup.policy containing compact — the highest share of bytes
// not cleaned yet, among those at or above min.cleanable.dirty.ratio or past
// max.compaction.lag.ms — cleans it (storage/cleaner.h), and records where the cleaning
// stopped in its log dir's `cleaner-offset-checkpoint` (Kafka's offset checkpoint format,
// written tmp -> fsync -> rename). With nothing to clean a thread waits
// log.cleaner.backoff.ms. The threads share log.cleaner.dedupe.buffer.size (one offset map
// each) and log.cleaner.io.max.bytes.per.second (one throttler).
// An I/O error takes the log's dir offline through the failure channel (the Log reports
// it); a log whose data does not decode is marked uncleanable (logged once) and skipped
// until the broker restarts, as Kafka does.
// Deleting a log: AbortAndPause (waits for a cleaning of it to stop), then Forget.
// Reconfigure changes the threads, the offset maps' memory, the rate and the backoff
// while it runs (Kafka's dynamic log.cleaner.* configs): a new thread count restarts the
// threads (cleanings in progress are cancelled and picked again), the others apply from
// the next cleaning or wait.
// Thread-safe. Lock order: the lifecycle mutex, then the cleaner's mutex, then whatever
// `logs` takes, then a Log's.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/cleaner.h"
#include "storage/clock.h"
#include "storage/file_ops.h"
#include "storage/log.h"
#include "storage/throttler.h"

namespace strata::storage {

inline constexpr absl::string_view kCleanerOffsetCheckpointFile = "cleaner-offset-checkpoint";

struct LogCleanerOptions {
  int threads = 1;                               // log.cleaner.threads
  int64_t dedupe_buffer_size = 128LL << 20;      // log.cleaner.dedupe.buffer.size
  double io_max_bytes_per_second = 0;            // log.cleaner.io.max.bytes.per.second (<= 0: no limit)
  int64_t backoff_ms = 15000;                    // log.cleaner.backoff.ms
  FileOps* ops = FileOps::Default();
  Clock* clock = Clock::System();
};

// A log the cleaner may clean, as the LogManager lists it.
struct CleanerCandidate {
  TopicPartition tp;
  Log* log = nullptr;
  std::string dir;  // its log dir
};

// Totals since start, for metrics and tests.
struct CleanerStats {
  int64_t cleanings = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t records_removed = 0;
  int64_t failures = 0;
  int64_t last_cleaning_ms = 0;  // duration of the last cleaning
  double max_dirty_ratio = 0;    // of the logs measured by the last pick
  int64_t picks = 0;             // looks for the dirtiest log
  int threads = 0;               // cleaner threads running now
};

class LogCleaner {
 public:
  using LogsFn = std::function<std::vector<CleanerCandidate>()>;
  // Reads each dir's cleaner-offset-checkpoint; one that cannot be read is logged and
  // its dir's logs are cleaned from their start (a lost checkpoint only costs work).
  static std::unique_ptr<LogCleaner> Create(const LogCleanerOptions& options,
                                                            const std::vector<std::string>& log_dirs, LogsFn logs);
  ~LogCleaner();  // Shutdown()

  void Start();
  // Stops the threads (a cleaning in progress is cancelled between batches).
  void Shutdown();
  // Takes threads, dedupe_buffer_size, io_max_bytes_per_second and backoff_ms from
  // options (the others are fixed at Create). A started cleaner stays started.
  void Reconfigure(const LogCleanerOptions& options);
  // The options as last configured.
  LogCleanerOptions options() const;
  // One pick and cleaning on the caller's thread (tests; `strata-storage`): whether a
  // log was cleaned.
  absl::StatusOr<bool> CleanDirtiestOnce();
  // No cleaning of tp starts after this returns, and one in progress has stopped.
  void AbortAndPause(const TopicPartition& tp);
  void Resume(const TopicPartition& tp);
  // After the log was deleted: drops its checkpoint entry (written with the next
  // cleaning of its dir) and resumes it.
  void Forget(const TopicPartition& tp);

  std::optional<int64_t> checkpoint(const TopicPartition& tp) const;
  bool paused(const TopicPartition& tp) const;
  CleanerStats stats() const;

 private:
  LogCleaner(const LogCleanerOptions& options, LogsFn logs);
  void Run();
  void StartLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(lifecycle_mu_);
  void StopLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(lifecycle_mu_);
  absl::Status WriteCheckpoint(const std::string& dir) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const LogsFn logs_;
  Throttler throttler_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> running_{0};  // threads in Run

  absl::Mutex lifecycle_mu_;  // Start, Shutdown, Reconfigure
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(lifecycle_mu_);
  bool started_ ABSL_GUARDED_BY(lifecycle_mu_) = false;

  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  LogCleanerOptions options_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::map<TopicPartition, int64_t>> checkpoints_ ABSL_GUARDED_BY(mu_);  // dir -> tp -> offset
  std::set<TopicPartition> in_progress_ ABSL_GUARDED_BY(mu_);
  std::map<TopicPartition, std::shared_ptr<std::atomic<bool>>> aborts_ ABSL_GUARDED_BY(mu_);
  std::set<TopicPartition> paused_ ABSL_GUARDED_BY(mu_);
  std::set<TopicPartition> uncleanable_ ABSL_GUARDED_BY(mu_);
  CleanerStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::storage
