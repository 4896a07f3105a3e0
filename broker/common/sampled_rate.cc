#include "broker/common/sampled_rate.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace strata::broker {

void SampledRate::Record(double value, Clock::time_point now) {
  if (samples_.empty()) samples_.push_back({now, 0});
  if (now - samples_[current_].start >= options_.window) {
    // The current window is complete: the next one starts now (reusing the oldest slot).
    current_ = (current_ + 1) % static_cast<size_t>(options_.samples);
    if (current_ >= samples_.size()) {
      samples_.push_back({now, 0});
    } else {
      samples_[current_] = {now, 0};
    }
  }
  samples_[current_].value += value;
}

void SampledRate::Purge(Clock::time_point now) {
  const auto expire = options_.window * options_.samples;
  for (Sample& s : samples_) {
    if (now - s.start >= expire) s = {now, 0};
  }
}

double SampledRate::WindowMs(Clock::time_point now) {
  Purge(now);
  Clock::time_point oldest = now;
  for (const Sample& s : samples_) oldest = std::min(oldest, s.start);
  const double window_ms = std::chrono::duration<double, std::milli>(options_.window).count();
  double elapsed = std::chrono::duration<double, std::milli>(now - oldest).count();
  const int64_t full = static_cast<int64_t>(elapsed / window_ms);
  const int64_t min_full = options_.samples - 1;
  if (full < min_full) elapsed += static_cast<double>(min_full - full) * window_ms;
  return elapsed;
}

double SampledRate::Measure(Clock::time_point now) {
  const double span_ms = WindowMs(now);  // purges first
  double sum = 0;
  for (const Sample& s : samples_) sum += s.value;
  return sum / (span_ms / 1000.0);
}

std::chrono::milliseconds SampledRate::ThrottleTime(double bound, Clock::time_point now) {
  ABSL_CHECK(bound > 0) << "a quota bound of " << bound;
  const double measured = Measure(now);
  if (measured <= bound) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(std::llround((measured - bound) / bound * WindowMs(now)));
}

}  // namespace strata::broker
