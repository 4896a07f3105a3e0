#pragma once
// The background scheduler: named one-shot and periodic tasks run by a fixed set of
// threads (segment deletion, checkpoints, flushes, re-reads after a failed transfer).
// Bounded: at most max_pending tasks wait; Schedule fails with RESOURCE_EXHAUSTED past
// that instead of growing. A periodic task is not run again while it is running.
// Shutdown() stops the threads after the running tasks finish; pending tasks are
// dropped. Thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace strata::storage {

class Scheduler {
 public:
  using TaskId = uint64_t;
  using Task = std::function<void()>;

  explicit Scheduler(int threads = 1, size_t max_pending = 10'000);
  ~Scheduler();  // Shutdown()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  absl::StatusOr<TaskId> Schedule(std::string name, std::chrono::milliseconds delay, Task task);
  absl::StatusOr<TaskId> SchedulePeriodic(std::string name, std::chrono::milliseconds initial_delay,
                                          std::chrono::milliseconds period, Task task);
  // Removes a pending task; a running one finishes. False if it was not pending.
  bool Cancel(TaskId id);
  // Waits until no task is pending within `horizon` or running (for tests and
  // orderly shutdown); returns false on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);
  void Shutdown();

  size_t pending() const;
  int64_t completed() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    TaskId id;
    std::string name;
    Clock::time_point due;
    std::chrono::milliseconds period;  // 0 for one-shot
    Task task;
  };

  absl::StatusOr<TaskId> Add(std::string name, std::chrono::milliseconds delay, std::chrono::milliseconds period,
                             Task task);
  void Run();
  bool HasDueTask() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_pending_;
  mutable absl::Mutex mu_;
  // Pending tasks by (due time, id).
  std::map<std::pair<Clock::time_point, TaskId>, Entry> queue_ ABSL_GUARDED_BY(mu_);
  std::map<TaskId, Clock::time_point> due_by_id_ ABSL_GUARDED_BY(mu_);
  TaskId next_id_ ABSL_GUARDED_BY(mu_) = 1;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t completed_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace strata::storage
