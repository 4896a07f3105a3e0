#include "storage/scheduler.h"

#include "base/logging.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/check.h"
#include "storage/errc.h"

namespace strata::storage {

Scheduler::Scheduler(int threads, size_t max_pending) : max_pending_(max_pending) {
  ABSL_CHECK_GT(threads, 0);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

Scheduler::~Scheduler() { Shutdown(); }

absl::StatusOr<Scheduler::TaskId> Scheduler::Schedule(std::string name, std::chrono::milliseconds delay, Task task) {
  return Add(std::move(name), delay, std::chrono::milliseconds(0), std::move(task));
}

absl::StatusOr<Scheduler::TaskId> Scheduler::SchedulePeriodic(std::string name,
                                                              std::chrono::milliseconds initial_delay,
                                                              std::chrono::milliseconds period, Task task) {
  ABSL_CHECK_GT(period.count(), 0);
  return Add(std::move(name), initial_delay, period, std::move(task));
}

absl::StatusOr<Scheduler::TaskId> Scheduler::Add(std::string name, std::chrono::milliseconds delay,
                                                 std::chrono::milliseconds period, Task task) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return absl::FailedPreconditionError(absl::StrCat("scheduler is shut down; task ", name));
  if (queue_.size() >= max_pending_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("scheduler has ", queue_.size(), " pending tasks (the bound); task ", name, " refused"));
  }
  TaskId id = next_id_++;
  Clock::time_point due = Clock::now() + delay;
  queue_.emplace(std::make_pair(due, id), Entry{id, std::move(name), due, period, std::move(task)});
  due_by_id_[id] = due;
  return id;
}

bool Scheduler::Cancel(TaskId id) {
  absl::MutexLock lock(&mu_);
  auto it = due_by_id_.find(id);
  if (it == due_by_id_.end()) return false;
  queue_.erase({it->second, id});
  due_by_id_.erase(it);
  return true;
}

bool Scheduler::HasDueTask() const {
  return stopping_ || (!queue_.empty() && queue_.begin()->first.first <= Clock::now());
}

void Scheduler::Run() {
  absl::MutexLock lock(&mu_);
  while (true) {
    if (queue_.empty()) {
      mu_.Await(absl::Condition(
          +[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS { return s->stopping_ || !s->queue_.empty(); }, this));
    } else {
      auto wait = queue_.begin()->first.first - Clock::now();
      if (wait > Clock::duration::zero()) {
        mu_.AwaitWithTimeout(
            absl::Condition(+[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS { return s->HasDueTask(); }, this),
            absl::FromChrono(wait));
      }
    }
    if (stopping_) return;
    if (queue_.empty() || queue_.begin()->first.first > Clock::now()) continue;
    Entry entry = std::move(queue_.begin()->second);
    queue_.erase(queue_.begin());
    due_by_id_.erase(entry.id);
    ++running_;
    mu_.Unlock();
    try {
      entry.task();
    } catch (const std::exception& e) {
      spdlog::error("background task {} threw: {}", entry.name, e.what());
    }
    mu_.Lock();
    --running_;
    ++completed_;
    if (entry.period.count() > 0 && !stopping_) {
      Clock::time_point due = Clock::now() + entry.period;
      TaskId id = entry.id;
      due_by_id_[id] = due;
      queue_.emplace(std::make_pair(due, id), std::move(entry));
    }
  }
}

bool Scheduler::WaitIdle(std::chrono::milliseconds timeout) {
  absl::MutexLock lock(&mu_);
  auto idle = [](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (s->running_ > 0) return false;
    for (const auto& [key, entry] : s->queue_) {
      if (entry.period.count() == 0) return false;  // periodic tasks never drain
    }
    return true;
  };
  return mu_.AwaitWithTimeout(absl::Condition(+idle, this), absl::FromChrono(timeout));
}

void Scheduler::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    queue_.clear();
    due_by_id_.clear();
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

size_t Scheduler::pending() const {
  absl::MutexLock lock(&mu_);
  return queue_.size();
}

int64_t Scheduler::completed() const {
  absl::MutexLock lock(&mu_);
  return completed_;
}

}  // namespace strata::storage
