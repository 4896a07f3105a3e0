#pragma once
// LogManager: the logs of one broker across its log.dirs. At start it checks each
// dir's meta.properties (cluster id, node id, directory id), reads the dir's
// checkpoints and clean-shutdown marker and loads every partition (recovery as
// LogLoader says). New partitions go to the online dir holding the fewest. A dir that
// cannot be used at start, or that reports an I/O error later, goes offline through
// the LogDirFailureChannel: its logs are closed on the scheduler and later operations
// on them fail with LOG_DIR_OFFLINE without touching the disk. Shutdown() flushes,
// writes the checkpoints and the clean-shutdown marker of each online dir.
// Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/clock.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"
#include "storage/log.h"
#include "storage/log_cleaner.h"
#include "storage/log_config.h"
#include "storage/log_dir_failure_channel.h"
#include "storage/meta_properties.h"
#include "storage/scheduler.h"
#include "storage/task_lifetime.h"
#include "storage/transfer_failure_checker.h"

namespace strata::storage {

struct LogManagerOptions {
  std::vector<std::string> log_dirs;
  std::string cluster_id;  // must match meta.properties when that exists
  int32_t node_id = 0;
  // The directory.id of each of log_dirs as the node read it at start (empty: read here).
  // A dir that cannot be opened keeps its id, so its replicas are known to be offline.
  std::vector<std::string> directory_ids;
  LogConfig default_config;
  FileOps* ops = FileOps::Default();
  Clock* clock = Clock::System();
  Scheduler* scheduler = nullptr;  // required
  // log.cleaner.enable: the compaction threads, started by Open (nullopt: none).
  std::optional<LogCleanerOptions> cleaner;
};

class LogManager {
 public:
  static absl::StatusOr<std::unique_ptr<LogManager>> Open(const LogManagerOptions& options);
  ~LogManager();

  // The log of tp, created when absent in the online dir whose id is directory_id
  // (where the controller placed the replica), else in the emptiest online dir. When
  // directory_id names one of this manager's dirs that is offline: LOG_DIR_OFFLINE, never
  // a new empty log elsewhere.
  absl::StatusOr<Log*> GetOrCreateLog(const TopicPartition& tp, const std::optional<LogConfig>& config = std::nullopt,
                                      const std::string& directory_id = "");
  // nullptr when absent.
  Log* GetLog(const TopicPartition& tp) const;
  std::vector<TopicPartition> partitions() const;
  // Removes the partition: its dir is renamed <tp>.<id>-delete and removed later.
  absl::Status DeleteLog(const TopicPartition& tp);

  // Future logs (AlterReplicaLogDirs, Kafka's): a replica moving to another of this
  // broker's dirs is copied into a future log there, "<topic>-<partition>.<id>-future",
  // which then takes the current log's place (ReplaceCurrentWithFuture). A future log is
  // in the checkpoints of its dir, is loaded at start like the others, and is never
  // retained, cleaned or flushed on a timer (its copy decides what it holds).
  //
  // The future log of tp in dir: the existing one there, or a new empty one.
  // kInvalidArgument when tp has no log here, dir is not one of log.dirs, dir already
  // holds tp's log, or tp has a future log in another dir (delete it first);
  // kLogDirOffline when any dir is offline (as Kafka: a future log made while a dir is
  // offline could be the second copy of a replica in that dir, which Open could not tell).
  absl::StatusOr<Log*> GetOrCreateFutureLog(const TopicPartition& tp, const std::string& dir);
  // nullptr when tp has none.
  Log* GetFutureLog(const TopicPartition& tp) const;
  std::vector<TopicPartition> future_partitions() const;
  // Deletes tp's future log (the move was cancelled or goes elsewhere); OK when none.
  absl::Status DeleteFutureLog(const TopicPartition& tp);
  // tp's future log becomes its log. The future log takes the current one's state
  // (Log::TakeOverStateOf) and is closed; the current log's directory is renamed
  // <tp>.<id>-delete, then the future log's gets the partition's name and is opened
  // again in its place. A restart between the two renames finds a future log without a
  // current one and finishes the move (Open). Returns the new log and the replaced one,
  // retired (Log::Retire): readable by whoever still holds it, closed and removed after
  // file.delete.delay.ms. REQUIRES: nothing writes either log meanwhile, and both end at
  // the same offset.
  struct Replaced {
    Log* log = nullptr;
    std::shared_ptr<Log> retired;
  };
  absl::StatusOr<Replaced> ReplaceCurrentWithFuture(const TopicPartition& tp);

  // Writes the recovery-point, log-start-offset and replication-offset checkpoints
  // of every online dir.
  absl::Status CheckpointAll();
  // One of them, in every online dir: recovery points every
  // log.flush.offset.checkpoint.interval.ms, log start offsets every
  // log.flush.start.offset.checkpoint.interval.ms, high watermarks every
  // replica.high.watermark.checkpoint.interval.ms.
  absl::Status CheckpointRecoveryPoints();
  absl::Status CheckpointLogStartOffsets();
  absl::Status CheckpointHighWatermarks();
  // flush.ms: flushes every log not flushed for that long (every
  // log.flush.scheduler.interval.ms).
  void FlushDirtyLogs();
  // Retention on every online log; returns segments deleted.
  absl::StatusOr<int> DeleteOldSegments();
  absl::Status FlushAll();
  // The log cleaner (null unless options.cleaner).
  LogCleaner* cleaner() const { return cleaner_.get(); }
  // Clean shutdown (the cleaner stops first). The manager serves nothing afterwards.
  absl::Status Shutdown();

  LogDirFailureChannel& failure_channel() { return failure_channel_; }
  const LogDirFailureChannel& failure_channel() const { return failure_channel_; }
  const FlushStats& flush_stats() const { return flush_stats_; }
  // What loading the logs at start recovered, summed over the logs (segments, bytes,
  // producer-state rebuilds).
  LoadStats startup_recovery() const;
  // Re-reads after failed zero-copy sends (seed 000); its counters for tests.
  const TransferFailureChecker& transfer_checker() const { return *transfer_checker_; }
  std::vector<std::string> online_dirs() const;
  // Every dir of log.dirs, online or not, as configured.
  const std::vector<std::string>& log_dirs() const { return options_.log_dirs; }
  // What each log of an online dir holds (DescribeLogDirs), read under the manager's
  // lock: a log deleted meanwhile is never read after it went.
  struct LogSummary {
    TopicPartition tp;
    std::string dir;
    int64_t size_in_bytes = 0;
    int64_t high_watermark = 0;
    int64_t log_end_offset = 0;
    // A future log (AlterReplicaLogDirs); current_log_end_offset is then the current
    // log's end, which it copies up to.
    bool is_future = false;
    int64_t current_log_end_offset = 0;
  };
  std::vector<LogSummary> Summaries() const;
  // The directory.id of dir as 16 raw bytes (as the controller's partition records and
  // the broker's registration name dirs); "" when unknown.
  std::string directory_id(const std::string& dir) const;
  // The dir holding tp's log ("" when absent).
  std::string dir_of(const TopicPartition& tp) const;

 private:
  explicit LogManager(const LogManagerOptions& options) : options_(options) {}
  absl::Status OpenDir(const std::string& dir, std::map<std::string, std::string>& directory_ids);
  // The options of tp's log at path in dir (the dir's checkpoints' values: 0).
  LogOptions OptionsFor(const std::string& path, const LogConfig& config);
  // After every dir loaded, all of them online: a future log without a current one is
  // what a restart between ReplaceCurrentWithFuture's renames leaves (a future log is
  // only ever made from a current one, and DeleteLog deletes it first), so it takes the
  // partition's name. With a dir offline it is left as it is: that dir may hold the
  // current log.
  absl::Status CompleteInterruptedMoves() ABSL_LOCKS_EXCLUDED(mu_);
  // Renames the closed future log's directory to tp's name in dir (synced); a failure
  // takes dir offline.
  absl::Status RenameIntoPlace(const Log& future, const std::string& dir, const TopicPartition& tp)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Opens the log just renamed into place from the closed future log's figures.
  absl::StatusOr<std::unique_ptr<Log>> OpenMoved(const Log& closed, const std::string& dir, const TopicPartition& tp)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Renames log's directory <tp>.<id>-delete in dir (a failure takes dir offline);
  // returns the new path.
  absl::StatusOr<std::string> RenameForDeletion(const Log& log, const std::string& dir, const TopicPartition& tp)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes doomed after file.delete.delay.ms (at once when the scheduler is full),
  // calling before first.
  absl::Status ScheduleRemoval(const std::string& doomed, std::function<void()> before = nullptr);
  enum class Checkpoint { kRecoveryPoints, kLogStartOffsets, kHighWatermarks };
  absl::Status WriteCheckpoint(const std::string& dir, Checkpoint which) ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status CheckpointDir(const std::string& dir) ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // WriteCheckpoint(which) in every online dir; a dir that fails goes offline.
  absl::Status CheckpointOnlineDirs(Checkpoint which);
  void OnDirOffline(const std::string& dir);

  const LogManagerOptions options_;
  // Tasks it scheduled run only while it lives (task_lifetime.h).
  std::shared_ptr<TaskLifetime> lifetime_ = std::make_shared<TaskLifetime>();
  LogDirFailureChannel failure_channel_;
  FlushStats flush_stats_;
  std::shared_ptr<TransferFailureChecker> transfer_checker_;
  std::unique_ptr<LogCleaner> cleaner_;  // set by Open; lives until ~LogManager
  mutable absl::Mutex mu_;
  std::map<TopicPartition, std::unique_ptr<Log>> logs_ ABSL_GUARDED_BY(mu_);
  std::map<TopicPartition, std::string> dir_of_ ABSL_GUARDED_BY(mu_);
  // Each dir's directory.id: written only while Open runs, before the manager is shared,
  // and read without a lock afterwards (the metadata thread asks for every partition it
  // applies; it must not wait behind a checkpoint's write under mu_).
  std::map<std::string, std::string> directory_ids_;
  struct FutureLog {
    std::unique_ptr<Log> log;
    std::string dir;
  };
  std::map<TopicPartition, FutureLog> futures_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata::storage
