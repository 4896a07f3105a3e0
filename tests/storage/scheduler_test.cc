#include "storage/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/synchronization/notification.h"

namespace strata::storage {
namespace {

using std::chrono::milliseconds;

TEST(Scheduler, RunsOneShotAndPeriodicTasksAndCancels) {
  Scheduler scheduler(2);
  absl::Notification ran;
  ASSERT_TRUE(scheduler.Schedule("once", milliseconds(0), [&] { ran.Notify(); }).ok());
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  std::atomic<int> ticks{0};
  absl::Notification three;
  auto id = scheduler.SchedulePeriodic("tick", milliseconds(0), milliseconds(1), [&] {
    if (++ticks == 3) three.Notify();
  });
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(three.WaitForNotificationWithTimeout(absl::Seconds(10)));
  // Cancel may race with a run in progress; after it, the count stops growing.
  while (!scheduler.Cancel(*id)) {
  }
  ASSERT_TRUE(scheduler.WaitIdle(milliseconds(10'000)));
  int after = ticks.load();
  EXPECT_FALSE(scheduler.Cancel(*id));
  ASSERT_TRUE(scheduler.WaitIdle(milliseconds(10'000)));
  EXPECT_EQ(ticks.load(), after);
  bool never = false;
  auto later = scheduler.Schedule("later", milliseconds(3'600'000), [&] { never = true; });
  EXPECT_TRUE(scheduler.Cancel(*later));
  scheduler.Shutdown();
  EXPECT_FALSE(never);
}

TEST(Scheduler, RefusesTasksPastItsBound) {
  Scheduler scheduler(1, /*max_pending=*/2);
  ASSERT_TRUE(scheduler.Schedule("a", milliseconds(3'600'000), [] {}).ok());
  ASSERT_TRUE(scheduler.Schedule("b", milliseconds(3'600'000), [] {}).ok());
  auto refused = scheduler.Schedule("c", milliseconds(0), [] {});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(scheduler.pending(), 2u);
}

}  // namespace
}  // namespace strata::storage
