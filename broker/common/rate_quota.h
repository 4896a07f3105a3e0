#pragma once
// RateQuota: a byte rate measured over Kafka's sampled windows (sampled_rate.h) against a
// bound that may change at any time (a dynamic config), as Kafka's quota managers keep
// one: replication throttles (replication/replication_quota.h) and the remote tier's
// copy and fetch quotas (KIP-956's remote.log.manager.copy/fetch.max.bytes.per.second,
// tiered/). No bound: nothing is ever exceeded.
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/sampled_rate.h"

namespace strata::broker {

class RateQuota {
 public:
  using Clock = std::chrono::steady_clock;
  using Options = SampledRate::Options;  // window.num x window.size: Kafka's 11 x 1 s
  RateQuota() : RateQuota(Options{}) {}
  explicit RateQuota(Options options) : bytes_(options) {}

  // nullopt: no bound.
  void SetRate(std::optional<int64_t> bytes_per_second) {
    absl::MutexLock lock(&mu_);
    rate_ = bytes_per_second;
  }
  std::optional<int64_t> rate() const {
    absl::MutexLock lock(&mu_);
    return rate_;
  }
  void Record(int64_t bytes, Clock::time_point now) {
    absl::MutexLock lock(&mu_);
    bytes_.Record(static_cast<double>(bytes), now);
  }
  // Whether the measured rate is above the bound.
  bool Exceeded(Clock::time_point now) const {
    absl::MutexLock lock(&mu_);
    return rate_.has_value() && bytes_.Measure(now) > static_cast<double>(*rate_);
  }
  // How long until the measured rate is back at the bound (Kafka's throttle time); zero
  // when it is not above it.
  std::chrono::milliseconds ThrottleTime(Clock::time_point now) const {
    absl::MutexLock lock(&mu_);
    if (!rate_ || *rate_ <= 0) return std::chrono::milliseconds(0);
    return bytes_.ThrottleTime(static_cast<double>(*rate_), now);
  }

 private:
  mutable absl::Mutex mu_;
  std::optional<int64_t> rate_ ABSL_GUARDED_BY(mu_);
  mutable SampledRate bytes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
