#include "broker/replication/replication_quota.h"

#include <algorithm>

namespace strata::broker {

ReplicationQuota::ReplicationQuota() : ReplicationQuota(Options{}) {}
ReplicationQuota::ReplicationQuota(Options options) : options_(options) {}

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

void ReplicationQuota::AdvanceLocked(Clock::time_point now) {
  if (!samples_.empty() && now < samples_.back().start + options_.window) return;
  // A new window: windows with nothing in them between are not kept (they add no bytes,
  // and the span below counts from the oldest kept).
  samples_.push_back({now, 0});
  if (samples_.size() > static_cast<size_t>(options_.samples)) samples_.erase(samples_.begin());
}

void ReplicationQuota::Record(int64_t bytes, Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  AdvanceLocked(now);
  samples_.back().bytes += bytes;
}

std::pair<double, double> ReplicationQuota::MeasureLocked(Clock::time_point now) const {
  const Clock::time_point horizon = now - options_.window * options_.samples;
  int64_t bytes = 0;
  Clock::time_point oldest = now;
  for (const Sample& s : samples_) {
    if (s.start + options_.window <= horizon) continue;  // wholly out of the window
    bytes += s.bytes;
    oldest = std::min(oldest, s.start);
  }
  // Kafka's Rate.windowSize: at least samples - 1 whole windows.
  const double window_s = std::chrono::duration<double>(options_.window).count();
  const double span = std::max(std::chrono::duration<double>(now - oldest).count(), (options_.samples - 1) * window_s);
  return {static_cast<double>(bytes) / span, span};
}

bool ReplicationQuota::Exceeded(Clock::time_point now) const {
  absl::MutexLock lock(&mu_);
  if (!rate_) return false;
  return MeasureLocked(now).first > static_cast<double>(*rate_);
}

std::chrono::milliseconds ReplicationQuota::ThrottleTime(Clock::time_point now) const {
  absl::MutexLock lock(&mu_);
  if (!rate_ || *rate_ <= 0) return std::chrono::milliseconds(0);
  auto [measured, span] = MeasureLocked(now);
  const double bound = static_cast<double>(*rate_);
  if (measured <= bound) return std::chrono::milliseconds(0);
  // Kafka's QuotaUtils.throttleTime: how long until the bytes measured fit the bound.
  return std::chrono::milliseconds(static_cast<int64_t>((measured - bound) / bound * span * 1000));
}

}  // namespace strata::broker
