// Replication throttles (broker/replication/replication_quota.h): the throttled-replicas
// settings as Kafka reads them, and the measured rate against the quota with a clock the
// test moves.

#include "broker/replication/replication_quota.h"

#include <gtest/gtest.h>

#include "storage/throttled_replicas.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;

TEST(ThrottledReplicas, StarThrottlesEveryReplicaAndAListNamesPartitionsByBroker) {
  auto all = storage::ParseThrottledReplicas("*");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->all);
  auto listed = storage::ParseThrottledReplicas("0:1, 0:3,2:3 ,5:4");
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->PartitionsOf(3), (std::set<int32_t>{0, 2}));
  EXPECT_EQ(listed->PartitionsOf(4), (std::set<int32_t>{5}));
  auto none = storage::ParseThrottledReplicas("");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, storage::ThrottledReplicas{});
  for (const char* bad : {"0", "a:1", "0:1:2", "-1:3", "0:x"}) {
    EXPECT_FALSE(storage::ParseThrottledReplicas(bad).ok()) << bad;
  }
}

TEST(ReplicationQuota, OnlyNamedPartitionsWithARateSetAreThrottled) {
  ReplicationQuota quota;
  quota.SetThrottled({{"orders", {false, {1}}}, {"all", {true, {}}}});
  EXPECT_FALSE(quota.IsThrottled({"orders", 1}));  // no rate: nothing is throttled
  quota.SetRate(1000);
  EXPECT_TRUE(quota.IsThrottled({"orders", 1}));
  EXPECT_FALSE(quota.IsThrottled({"orders", 0}));
  EXPECT_TRUE(quota.IsThrottled({"all", 7}));
  EXPECT_FALSE(quota.IsThrottled({"other", 1}));
}

TEST(ReplicationQuota, TheRateIsMeasuredOverTheWindowsAndTheThrottleTimeBringsItBack) {
  ReplicationQuota quota({.samples = 11, .window = 1s});
  quota.SetRate(1000);  // bytes per second
  const auto t0 = ReplicationQuota::Clock::time_point() + 100s;
  // 10 s worth at the start (the span is at least 10 windows): at the quota, not above.
  quota.Record(10000, t0);
  EXPECT_FALSE(quota.Exceeded(t0));
  EXPECT_EQ(quota.ThrottleTime(t0), 0ms);
  // 15000 over 10.5 s (the half second elapsed, plus the 10 whole windows not yet
  // seen, Kafka's Rate.windowSize): 1428.6 per second.
  quota.Record(5000, t0 + 500ms);
  EXPECT_TRUE(quota.Exceeded(t0 + 500ms));
  // (1428.6 - 1000) / 1000 of the 10.5 s span.
  EXPECT_EQ(quota.ThrottleTime(t0 + 500ms), 4500ms);
  // Once the samples leave the window (11 s), the rate is back under the quota.
  EXPECT_FALSE(quota.Exceeded(t0 + 12s));
  // Steady just below the quota stays within it (11 windows of 900 bytes span 10 s at
  // the least: 990 per second).
  for (int s = 13; s < 40; ++s) {
    quota.Record(900, t0 + std::chrono::seconds(s));
    EXPECT_FALSE(quota.Exceeded(t0 + std::chrono::seconds(s))) << s;
  }
  quota.Record(3000, t0 + 40s);
  EXPECT_TRUE(quota.Exceeded(t0 + 40s));
  quota.SetRate(std::nullopt);
  EXPECT_FALSE(quota.Exceeded(t0 + 40s));
}

}  // namespace
}  // namespace strata::broker
