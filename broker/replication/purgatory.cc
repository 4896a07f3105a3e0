#include "broker/replication/purgatory.h"

#include <algorithm>

namespace strata::broker {

namespace {
// Watch lists kept while empty, at most (beyond it, an emptied list goes).
constexpr size_t kMaxIdleKeys = 1 << 16;
}  // namespace

bool DelayedOperation::ForceComplete() {
  {
    absl::MutexLock lock(&mu_);
    if (completed_) return false;
    completed_ = true;
  }
  OnComplete();
  return true;
}

bool DelayedOperation::completed() const {
  absl::MutexLock lock(&mu_);
  return completed_;
}

Purgatory::Purgatory(std::string name) : name_(std::move(name)) {
  reaper_ = std::thread([this] { Reap(); });
}

Purgatory::~Purgatory() {
  std::multimap<std::chrono::steady_clock::time_point, Timer> pending;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    pending.swap(timers_);
    watchers_.clear();
  }
  cv_.SignalAll();
  reaper_.join();
  // Nobody will wake them any more: they answer with what there is.
  for (auto& [deadline, timer] : pending) timer.op->ForceComplete();
}

void Purgatory::TryCompleteElseWatch(const std::shared_ptr<DelayedOperation>& op, std::vector<std::string> keys) {
  bool stopping;
  {
    absl::MutexLock lock(&mu_);
    stopping = stopping_;
    if (!stopping) {
      for (const std::string& key : keys) watchers_[key].push_back(op);
      timers_.emplace(op->deadline(), Timer{op, std::move(keys)});
      // Woken only when it would sleep past this deadline: at most once per idle spell,
      // not once per operation (the timers are often empty, since completed ones leave).
      if (op->deadline() < wake_at_) {
        wake_at_ = op->deadline();
        cv_.SignalAll();
      }
    }
  }
  if (stopping) {
    op->ForceComplete();
    return;
  }
  op->TryComplete();
  if (op->completed()) {
    absl::MutexLock lock(&mu_);
    ForgetLocked(op);
  }
}

void Purgatory::ForgetLocked(const std::shared_ptr<DelayedOperation>& op) {
  auto [first, last] = timers_.equal_range(op->deadline());
  auto timer = std::find_if(first, last, [&](const auto& entry) { return entry.second.op == op; });
  if (timer == last) return;  // the reaper took it already
  for (const std::string& key : timer->second.keys) {
    auto it = watchers_.find(key);
    if (it == watchers_.end()) continue;
    auto& list = it->second;
    list.erase(std::remove(list.begin(), list.end(), op), list.end());
    // Kept while empty, but not without bound (keys of deleted partitions).
    if (list.empty() && watchers_.size() > kMaxIdleKeys) watchers_.erase(it);
  }
  timers_.erase(timer);
}

int Purgatory::CheckAndComplete(const std::string& key) {
  std::vector<std::shared_ptr<DelayedOperation>> ops;
  {
    absl::MutexLock lock(&mu_);
    auto it = watchers_.find(key);
    if (it == watchers_.end()) return 0;
    // Drop the completed ones while here.
    auto& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(), [](const auto& op) { return op->completed(); }), list.end());
    if (list.empty()) return 0;
    ops = list;
  }
  int completed = 0;
  for (auto& op : ops) {
    if (op->completed()) {
      op = nullptr;  // another thread completed it: that thread forgets it
      continue;
    }
    op->TryCompleteFor(key);
    if (op->completed()) {
      ++completed;
    } else {
      op = nullptr;
    }
  }
  if (completed > 0) {
    // Out of the timers and watch lists now, not at their deadline: at thousands of
    // acks=all produces a second, completed ones would otherwise pile up for a timeout.
    absl::MutexLock lock(&mu_);
    for (const auto& op : ops) {
      if (op != nullptr) ForgetLocked(op);
    }
  }
  return completed;
}

size_t Purgatory::waiting() const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [deadline, timer] : timers_) n += timer.op->completed() ? 0 : 1;
  return n;
}

size_t Purgatory::held() const {
  absl::MutexLock lock(&mu_);
  return timers_.size();
}

void Purgatory::Reap() {
  // Sleeps until the earliest deadline it saw. Operations that complete leave the timers,
  // so it may wake for one that is gone: it then sleeps until the next.
  constexpr auto kIdle = std::chrono::seconds(1);
  mu_.Lock();
  while (!stopping_) {
    auto now = std::chrono::steady_clock::now();
    if (timers_.empty()) {
      // Nothing waits: no key is watched, and the lists kept for them can go.
      watchers_.clear();
      wake_at_ = now + kIdle;
      cv_.WaitWithTimeout(&mu_, absl::FromChrono(kIdle));
      continue;
    }
    auto first = timers_.begin();
    std::shared_ptr<DelayedOperation> op = first->second.op;
    if (!op->completed() && first->first > now) {
      wake_at_ = first->first;
      cv_.WaitWithTimeout(&mu_, absl::FromChrono(first->first - now));
      continue;
    }
    // Leave the watch lists too, so keys nobody changes do not collect dead operations.
    ForgetLocked(op);
    if (op->completed()) continue;
    mu_.Unlock();
    op->ForceComplete();  // expired: it answers with what it has
    mu_.Lock();
  }
  mu_.Unlock();
}

}  // namespace strata::broker
