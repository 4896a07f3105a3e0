#include "broker/replication/replication_quota.h"

namespace strata::broker {

ReplicationQuota::ReplicationQuota() : ReplicationQuota(Options{}) {}
ReplicationQuota::ReplicationQuota(Options options) : quota_(options) {}

void ReplicationQuota::SetRate(std::optional<int64_t> bytes_per_second) {
  absl::MutexLock lock(&mu_);
  quota_.SetRate(bytes_per_second);
  limited_ = bytes_per_second.has_value();
  active_.store(limited_ && !throttled_.empty(), std::memory_order_relaxed);
}

void ReplicationQuota::SetThrottled(std::map<std::string, ThrottledPartitions> topics) {
  absl::MutexLock lock(&mu_);
  throttled_ = std::move(topics);
  active_.store(limited_ && !throttled_.empty(), std::memory_order_relaxed);
}

std::optional<int64_t> ReplicationQuota::rate() const { return quota_.rate(); }

bool ReplicationQuota::IsThrottled(const storage::TopicPartition& tp) const {
  if (!active_.load(std::memory_order_relaxed)) return false;  // the fetch path's usual case: no lock
  absl::MutexLock lock(&mu_);
  if (!limited_) return false;
  auto it = throttled_.find(tp.topic);
  return it != throttled_.end() && (it->second.all || it->second.partitions.count(tp.partition) > 0);
}

void ReplicationQuota::Record(int64_t bytes, Clock::time_point now) { quota_.Record(bytes, now); }

bool ReplicationQuota::Exceeded(Clock::time_point now) const { return quota_.Exceeded(now); }

std::chrono::milliseconds ReplicationQuota::ThrottleTime(Clock::time_point now) const {
  return quota_.ThrottleTime(now);
}

}  // namespace strata::broker
