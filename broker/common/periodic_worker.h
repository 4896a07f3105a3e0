#pragma once
// PeriodicWorker: a thread that calls tick every `period` until the worker is destroyed
// (the destructor stops it and waits for a tick in progress). The transaction and share
// coordinators run their loads and timers on one. Thread-safe.

#include <functional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace strata::broker {

class PeriodicWorker {
 public:
  PeriodicWorker(absl::Duration period, std::function<void()> tick)
      : period_(period), tick_(std::move(tick)), thread_([this] { Run(); }) {}
  ~PeriodicWorker() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    thread_.join();
  }
  PeriodicWorker(const PeriodicWorker&) = delete;
  PeriodicWorker& operator=(const PeriodicWorker&) = delete;

 private:
  void Run() {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        auto stop = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
        mu_.AwaitWithTimeout(absl::Condition(&stop), period_);
        if (stopping_) return;
      }
      tick_();
    }
  }

  const absl::Duration period_;
  const std::function<void()> tick_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once the fields above are made
};

}  // namespace strata::broker
