#pragma once
// Throttler: paces a background job to at most a given rate of bytes per second
// (log.cleaner.io.max.bytes.per.second). The job reports what it read and wrote; when it
// is ahead of the rate, Acquire waits until it is not, or until `stop` says to give up.
// Not a synchronisation device: it only spaces I/O out. Thread-safe.

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

  // Counts bytes; returns false when stop became true while waiting.
  bool Acquire(int64_t bytes, const std::atomic<bool>& stop) {
    if (!(rate_ > 0) || rate_ == std::numeric_limits<double>::infinity()) return !stop.load();
    absl::MutexLock lock(&mu_);
    // Each job's bytes take their time after the previous ones': no burst builds up
    // while the job is idle or slower than the rate.
    next_free_ = std::max(next_free_, absl::Now()) + absl::Seconds(static_cast<double>(bytes) / rate_);
    const absl::Time due = next_free_;
    while (!stop.load() && absl::Now() < due) {
      // Woken early only by Wake(); the deadline bounds the wait.
      cv_.WaitWithDeadline(&mu_, std::min(due, absl::Now() + absl::Milliseconds(100)));
    }
    return !stop.load();
  }
  // Ends waits early (the job is stopping).
  void Wake() {
    absl::MutexLock lock(&mu_);
    cv_.SignalAll();
  }

 private:
  const double rate_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  absl::Time next_free_ = absl::InfinitePast();
};

}  // namespace strata::storage
