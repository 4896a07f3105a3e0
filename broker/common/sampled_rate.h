#pragma once
// SampledRate: Kafka's Rate over a SampledStat, which its quotas measure with
// (replication throttles, client quotas): values are summed into `samples` windows of
// `window` each, a new window starting when the current one is a window old; windows
// older than samples x window count for nothing. The rate is the sum over the span from
// the oldest window's start to now, that span counted as at least (samples - 1) whole
// windows, so that a quota starts without a burst above it before the first windows
// are full (Kafka's Rate.windowSize).
// Not thread-safe: the owner serialises access.

#include <chrono>
#include <vector>

namespace strata::broker {

class SampledRate {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    int samples = 11;                        // quota.window.num
    std::chrono::milliseconds window{1000};  // quota.window.size.seconds
  };
  SampledRate() : SampledRate(Options{}) {}
  explicit SampledRate(Options options) : options_(options) {}

  void Record(double value, Clock::time_point now);
  // Per second, over WindowMs.
  double Measure(Clock::time_point now);
  // The span the rate is over (Kafka's Rate.windowSize), in milliseconds.
  double WindowMs(Clock::time_point now);
  // How long until the rate is back to bound (Kafka's QuotaUtils.throttleTime: the excess
  // over the bound, relative to it, times the span); zero when not above it.
  // REQUIRES: bound > 0.
  std::chrono::milliseconds ThrottleTime(double bound, Clock::time_point now);

 private:
  struct Sample {
    Clock::time_point start;
    double value = 0;
  };
  void Purge(Clock::time_point now);

  const Options options_;
  std::vector<Sample> samples_;  // a ring of at most options_.samples
  size_t current_ = 0;
};

}  // namespace strata::broker
