// LogRateLimit: N lines admitted in a second, the rest refused (their count goes to the
// next line admitted, a second later: not waited for here).

#include "base/log_rate_limit.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(LogRateLimit, AdmitsNInASecondAndRefusesTheRest) {
  LogRateLimit limit(3);
  int64_t held_back = -1;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(limit.Admit(&held_back)) << i;  // the window opened at the first call
    EXPECT_EQ(held_back, 0);
  }
  int64_t untouched = -7;
  EXPECT_FALSE(limit.Admit(&untouched));
  EXPECT_FALSE(limit.Admit(&untouched));
  EXPECT_EQ(untouched, -7) << "a refused line is not told anything";
}

}  // namespace
}  // namespace strata
