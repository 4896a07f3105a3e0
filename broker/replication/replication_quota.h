#pragma once
// Replication throttles (Kafka's ReplicationQuotaManager, KIP-73): the bytes a broker
// replicates for throttled partitions, measured over the last `samples` windows, against
// a rate in bytes per second (leader.replication.throttled.rate for what a leader sends,
// follower.replication.throttled.rate for what a follower fetches).
//  * Which partitions are throttled comes from the topic settings
//    leader.replication.throttled.replicas / follower.replication.throttled.replicas:
//    "*" (every replica of the topic) or "partition:broker,..." — a partition is
//    throttled on this broker when an entry names it with this broker's id.
//  * The measured rate is Kafka's (common/sampled_rate.h): the bytes of the samples in
//    the window over the time they span, at least (samples - 1) windows, so a throttle
//    starts without a burst above it once the first window is full.
//  * Replicas in the ISR are never throttled (the callers check), so a throttle slows a
//    reassignment or a replica catching up, never produce.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/rate_quota.h"
#include "storage/file_names.h"

namespace strata::broker {

// The partitions of one topic throttled on this broker: every one ("*"), or those its
// throttled-replicas setting lists with this broker's id (storage/throttled_replicas.h).
struct ThrottledPartitions {
  bool all = false;
  std::set<int32_t> partitions;
  bool operator==(const ThrottledPartitions&) const = default;
};

class ReplicationQuota {
 public:
  using Clock = std::chrono::steady_clock;
  // replication.quota.window.num and replication.quota.window.size.seconds: 11 x 1 s.
  using Options = RateQuota::Options;
  ReplicationQuota();  // Kafka's defaults
  explicit ReplicationQuota(Options options);

  // nullopt: no limit (nothing is throttled, whatever the partitions).
  void SetRate(std::optional<int64_t> bytes_per_second);
  // The throttled partitions, by topic (replaces the earlier ones).
  void SetThrottled(std::map<std::string, ThrottledPartitions> topics);

  // Whether tp's replication counts against the quota (a rate is set and tp is named).
  bool IsThrottled(const storage::TopicPartition& tp) const;
  void Record(int64_t bytes, Clock::time_point now);
  // Whether the measured rate is above the rate set.
  bool Exceeded(Clock::time_point now) const;
  // How long replication of throttled partitions waits to bring the measured rate back
  // to the quota (Kafka's throttle time); zero when not exceeded.
  std::chrono::milliseconds ThrottleTime(Clock::time_point now) const;
  std::optional<int64_t> rate() const;

 private:
  RateQuota quota_;
  mutable absl::Mutex mu_;
  bool limited_ ABSL_GUARDED_BY(mu_) = false;  // a rate is set
  std::map<std::string, ThrottledPartitions> throttled_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> active_{false};                   // a rate and some throttled topic: set under mu_
};

}  // namespace strata::broker
