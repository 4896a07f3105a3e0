#pragma once
// LogDirMover: moves replicas between this broker's log dirs (AlterReplicaLogDirs;
// Kafka's ReplicaAlterLogDirsManager and its thread). For each partition with a future
// log attached (Partition::AttachFutureLog) its thread copies the current log into the
// future log, copy_bytes at a time (paced to max_bytes_per_second when set:
// replica.alter.log.dirs.io.max.bytes.per.second), while the partition keeps serving;
// once a step found less than copy_bytes left, the partition puts the future log in the
// current log's place under its exclusive lock (Partition::ReplaceLogWithFuture), which
// copies the rest first. The log cleaner leaves a moving partition alone.
// A partition whose move cannot go on (a log dir failed, the partition was dropped, the
// move was cancelled) is dropped from the mover; a failed dir is reported by the storage
// layer, and a future log left behind is deleted.
// The controller is told where each moved replica is now (AssignReplicasToDirs; KIP-858),
// so that a directory reported offline later maps to the replicas it holds; so is any
// replica whose directory the image names wrongly (a move finished just before a
// restart). Unanswered reports are sent again.
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/replication/partition.h"
#include "storage/log_manager.h"
#include "storage/throttler.h"

namespace strata::broker {

struct LogDirMoverOptions {
  int32_t broker_id = 0;
  storage::LogManager* logs = nullptr;  // required
  // The partition of tp when this broker hosts it (ReplicaManager::GetPartition).
  std::function<std::shared_ptr<Partition>(const storage::TopicPartition&)> partition;  // required
  // Null: directories are not reported (tests without a controller).
  ControllerChannel* controller = nullptr;
  std::function<int64_t()> broker_epoch;
  uint64_t copy_bytes = 1 << 20;
  double max_bytes_per_second = 0;  // 0: unpaced
};

class LogDirMover {
 public:
  explicit LogDirMover(LogDirMoverOptions options);  // starts the thread
  ~LogDirMover();
  LogDirMover(const LogDirMover&) = delete;
  LogDirMover& operator=(const LogDirMover&) = delete;

  // Moves tp: its partition has a future log attached. Idempotent.
  void Add(const storage::TopicPartition& tp);
  // The controller is to record that this broker's replica of tp (topic_id) is in the
  // directory directory_id (16 raw bytes).
  void ReportDirectory(const storage::TopicPartition& tp, const std::string& topic_id,
                       const std::string& directory_id);
  // replica.alter.log.dirs.io.max.bytes.per.second changed (0: unpaced).
  void SetRate(double bytes_per_second) { throttler_.SetRate(bytes_per_second); }
  // Stops the move of tp (cancelled, or unable to go on): the partition forgets its
  // future log, which is deleted.
  absl::Status StopMove(Partition& partition, const storage::TopicPartition& tp);
  // Stops the thread (a move under way stays where it is: its future log is on disk
  // and goes on at the next start).
  void Shutdown();

  std::set<storage::TopicPartition> moving() const;
  int64_t moves_completed() const { return moves_completed_.load(std::memory_order_relaxed); }
  int64_t moves_failed() const { return moves_failed_.load(std::memory_order_relaxed); }
  int64_t bytes_copied() const { return bytes_copied_.load(std::memory_order_relaxed); }
  // Reports not answered yet (tests).
  size_t directory_reports_pending() const;

 private:
  void Run();
  // One copy step of tp, or its swap: true when tp is done with (moved or dropped).
  bool Step(const storage::TopicPartition& tp);
  void Finish(const storage::TopicPartition& tp);
  void SendDirectoryReports();

  const LogDirMoverOptions options_;
  storage::Throttler throttler_;
  // copy_bytes, or less when paced: a quarter second's worth (at least 4 KiB), so that
  // a paced copy goes at its rate rather than a step at a time.
  uint64_t StepBytes();
  mutable absl::Mutex mu_;
  std::set<storage::TopicPartition> moving_ ABSL_GUARDED_BY(mu_);
  struct Report {
    std::string topic_id;
    std::string directory_id;
  };
  std::map<storage::TopicPartition, Report> reports_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> stop_{false};  // for the throttler's wait
  std::atomic<int64_t> moves_completed_{0};
  std::atomic<int64_t> moves_failed_{0};
  std::atomic<int64_t> bytes_copied_{0};
  std::thread thread_;
};

}  // namespace strata::broker
