// base/deadlock_detection.h, and that every test program aborts on a lock-order cycle
// (tests/support/deadlock_detection.cc is linked into each).

#include "base/deadlock_detection.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

// Takes a then b, later b then a: never both at once, but a deadlock in waiting.
void TakeTwoLocksInBothOrders() {
  absl::Mutex a;
  absl::Mutex b;
  {
    absl::MutexLock first(&a);
    absl::MutexLock second(&b);
  }
  absl::MutexLock first(&b);
  absl::MutexLock second(&a);
}

TEST(DeadlockDetection, ATestProgramDiesWhenTwoLocksAreTakenInBothOrders) {
  EXPECT_DEATH(TakeTwoLocksInBothOrders(), "Potential Mutex deadlock");
}

TEST(DeadlockDetection, TheVariableTakesAbortReportOrOffAndRefusesAnythingElseByName) {
  EXPECT_TRUE(SetDeadlockDetection("report").ok());
  EXPECT_TRUE(SetDeadlockDetection("off").ok());
  EXPECT_TRUE(SetDeadlockDetection(nullptr).ok());
  absl::Status bad = SetDeadlockDetection("on");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(), "STRATA_MUTEX_DEADLOCK_DETECTION='on' is not one of abort, report, off");
  // Off: the same two orders pass.
  ASSERT_TRUE(SetDeadlockDetection("off").ok());
  TakeTwoLocksInBothOrders();
  ASSERT_TRUE(SetDeadlockDetection("abort").ok());  // as every test program runs
}

}  // namespace
}  // namespace strata
