#pragma once
// LogRateLimit: at most N log lines a second from one source (a decision log, refusals),
// so that a flood of bad requests cannot flood the log; the first line written after
// some were held back says how many. Time is the wall clock's whole seconds windows.
// Thread-safe.

#include <cstdint>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace strata {

class LogRateLimit {
 public:
  explicit LogRateLimit(int lines_per_second) : lines_per_second_(lines_per_second) {}

  // Whether a line may be written now. When it may, *held_back is the number of lines
  // refused since the last one admitted (0 when none).
  bool Admit(int64_t* held_back) {
    absl::MutexLock lock(&mu_);
    const int64_t now_ms = absl::ToUnixMillis(absl::Now());
    if (now_ms - window_start_ms_ >= 1000) {
      window_start_ms_ = now_ms;
      admitted_in_window_ = 0;
    }
    if (admitted_in_window_ >= lines_per_second_) {
      ++held_back_;
      return false;
    }
    ++admitted_in_window_;
    *held_back = std::exchange(held_back_, 0);
    return true;
  }

 private:
  const int lines_per_second_;
  absl::Mutex mu_;
  int64_t window_start_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int admitted_in_window_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t held_back_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata
