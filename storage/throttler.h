#pragma once
// Throttler: paces a background job to at most a given rate of bytes per second
// (log.cleaner.io.max.bytes.per.second). The job reports what it read and wrote; when it
// is ahead of the rate, Acquire waits until it is not, or until `stop` says to give up.
// SetRate changes the rate for the bytes counted after it and ends the waits in
// progress (a dynamic config). Not a
// synchronisation device: it only spaces I/O out. Thread-safe.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace strata::storage {

class Throttler {
 public:
  // bytes_per_second <= 0 or infinite: no pacing.
  explicit Throttler(double bytes_per_second) : rate_(bytes_per_second) {}
  Throttler(const Throttler&) = delete;
  Throttler& operator=(const Throttler&) = delete;

  // Counts bytes; returns false when stop became true while waiting.
  bool Acquire(int64_t bytes, const std::atomic<bool>& stop) {
    absl::MutexLock lock(&mu_);
    if (!(rate_ > 0) || rate_ == std::numeric_limits<double>::infinity()) return !stop.load();
    // Each job's bytes take their time after the previous ones': no burst builds up
    // while the job is idle or slower than the rate.
    next_free_ = std::max(next_free_, absl::Now()) + absl::Seconds(static_cast<double>(bytes) / rate_);
    const absl::Time due = next_free_;
    const int64_t generation = generation_;
    // A new rate ends the wait: what was counted is taken as paid.
    ++waiters_;
    while (!stop.load() && generation == generation_ && absl::Now() < due) {
      // Woken early by Wake() and SetRate(); the deadline bounds the wait.
      cv_.WaitWithDeadline(&mu_, std::min(due, absl::Now() + absl::Milliseconds(100)));
    }
    --waiters_;
    return !stop.load();
  }
  // The rate in force (<= 0 or infinite: none).
  double rate() {
    absl::MutexLock lock(&mu_);
    return rate_;
  }
  // Whether Acquire may wait (a finite positive rate).
  bool paced() {
    const double r = rate();
    return r > 0 && r != std::numeric_limits<double>::infinity();
  }
  // Jobs waiting in Acquire now (tests).
  int waiters() {
    absl::MutexLock lock(&mu_);
    return waiters_;
  }
  void SetRate(double bytes_per_second) {
    absl::MutexLock lock(&mu_);
    if (rate_ == bytes_per_second) return;
    rate_ = bytes_per_second;
    next_free_ = absl::InfinitePast();
    ++generation_;
    cv_.SignalAll();
  }
  // Ends waits early (the job is stopping).
  void Wake() {
    absl::MutexLock lock(&mu_);
    cv_.SignalAll();
  }

 private:
  absl::Mutex mu_;
  double rate_ ABSL_GUARDED_BY(mu_);
  int64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // of SetRate
  int waiters_ ABSL_GUARDED_BY(mu_) = 0;
  absl::CondVar cv_;
  absl::Time next_free_ = absl::InfinitePast();
};

}  // namespace strata::storage
