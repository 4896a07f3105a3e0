#include "broker/replication/replication_quota.h"

#include <algorithm>

namespace strata::broker {

ReplicationQuota::ReplicationQuota() : ReplicationQuota(Options{}) {}
ReplicationQuota::ReplicationQuota(Options options) : bytes_(options) {}

void ReplicationQuota::SetRate(std::optional<int64_t> bytes_per_second) {
  absl::MutexLock lock(&mu_);
  rate_ = bytes_per_second;
  active_.store(rate_.has_value() && !throttled_.empty(), std::memory_order_relaxed);
}

void ReplicationQuota::SetThrottled(std::map<std::string, ThrottledPartitions> topics) {
  absl::MutexLock lock(&mu_);
  throttled_ = std::move(topics);
  active_.store(rate_.has_value() && !throttled_.empty(), std::memory_order_relaxed);
}

std::optional<int64_t> ReplicationQuota::rate() const {
  absl::MutexLock lock(&mu_);
  return rate_;
}

bool ReplicationQuota::IsThrottled(const storage::TopicPartition& tp) const {
  if (!active_.load(std::memory_order_relaxed)) return false;  // the fetch path's usual case: no lock
  absl::MutexLock lock(&mu_);
  if (!rate_) return false;
  auto it = throttled_.find(tp.topic);
  return it != throttled_.end() && (it->second.all || it->second.partitions.count(tp.partition) > 0);
}

void ReplicationQuota::Record(int64_t bytes, Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  bytes_.Record(static_cast<double>(bytes), now);
}

bool ReplicationQuota::Exceeded(Clock::time_point now) const {
  absl::MutexLock lock(&mu_);
  if (!rate_) return false;
  return bytes_.Measure(now) > static_cast<double>(*rate_);
}

std::chrono::milliseconds ReplicationQuota::ThrottleTime(Clock::time_point now) const {
  absl::MutexLock lock(&mu_);
  if (!rate_ || *rate_ <= 0) return std::chrono::milliseconds(0);
  return bytes_.ThrottleTime(static_cast<double>(*rate_), now);
}

}  // namespace strata::broker
