// KIP-1241's delayed upload: which rolled segments remote.copy.lag.ms / .bytes let the
// remote log manager copy (broker/tiered/upload_eligibility.h).
#include "broker/tiered/upload_eligibility.h"

#include <gtest/gtest.h>

namespace strata::broker {
namespace {

constexpr int64_t kNow = 1'000'000;

storage::LogConfig Config(int64_t lag_ms, int64_t lag_bytes) {
  storage::LogConfig c;
  c.remote_storage_enable = true;
  c.remote_copy_lag_ms = lag_ms;
  c.remote_copy_lag_bytes = lag_bytes;
  return c;
}

TEST(UploadEligibilityTest, TheDefaultsCopyEveryRolledSegmentAtOnce) {
  storage::LogConfig c;
  EXPECT_EQ(c.remote_copy_lag_ms, 0);
  EXPECT_EQ(c.remote_copy_lag_bytes, -1);
  EXPECT_TRUE(UploadEligible(c, kNow, 0, kNow)) << "written this instant, nothing after it";
}

TEST(UploadEligibilityTest, ZeroInEitherSettingCopiesAtOnce) {
  EXPECT_TRUE(UploadEligible(Config(60'000, 0), kNow, 0, kNow));
  EXPECT_TRUE(UploadEligible(Config(0, 1 << 20), kNow, 0, kNow));
}

TEST(UploadEligibilityTest, ATimeLagWaitsForTheNewestRecordToBeThatOld) {
  storage::LogConfig c = Config(60'000, -1);  // local retention unlimited: no size check
  c.retention_ms = -1;
  EXPECT_FALSE(UploadEligible(c, kNow - 59'999, 1LL << 40, kNow)) << "bytes behind it do not count";
  EXPECT_TRUE(UploadEligible(c, kNow - 60'000, 0, kNow));
  EXPECT_TRUE(UploadEligible(c, -1, 0, kNow)) << "a segment without timestamps is old";
}

TEST(UploadEligibilityTest, ASizeLagWaitsForThatManyBytesOfTheLocalLogAfterTheSegment) {
  storage::LogConfig c = Config(-1, 4096);
  c.retention_ms = -1;  // local.retention.ms -2 -> retention.ms -1: no time check
  EXPECT_FALSE(UploadEligible(c, 0, 4095, kNow)) << "however old";
  EXPECT_TRUE(UploadEligible(c, kNow, 4096, kNow));
}

TEST(UploadEligibilityTest, EitherCheckThatAppliesMakesItEligible) {
  storage::LogConfig c = Config(60'000, 4096);
  EXPECT_FALSE(UploadEligible(c, kNow - 1000, 100, kNow));
  EXPECT_TRUE(UploadEligible(c, kNow - 60'000, 100, kNow));
  EXPECT_TRUE(UploadEligible(c, kNow - 1000, 4096, kNow));
}

TEST(UploadEligibilityTest, MinusOneTakesTheEffectiveLocalRetention) {
  storage::LogConfig c = Config(-1, -1);
  c.retention_ms = 7'200'000;
  c.local_retention_ms = -2;  // -> retention.ms
  c.local_retention_bytes = 8192;
  EXPECT_FALSE(UploadEligible(c, kNow - 7'199'999, 8191, kNow));
  EXPECT_TRUE(UploadEligible(c, kNow - 7'200'000, 0, kNow)) << "as old as local retention keeps";
  EXPECT_TRUE(UploadEligible(c, kNow, 8192, kNow)) << "as far behind as local retention keeps";
  c.local_retention_ms = 0;
  EXPECT_TRUE(UploadEligible(c, kNow, 0, kNow)) << "local retention of nothing: at once";
}

TEST(UploadEligibilityTest, MinusOneWithUnlimitedLocalRetentionNeverCopies) {
  storage::LogConfig c = Config(-1, -1);
  c.retention_ms = -1;
  c.retention_bytes = -1;
  EXPECT_FALSE(UploadEligible(c, -1, 1LL << 50, kNow)) << "nothing ever makes it due (Kafka's rule)";
  c.remote_copy_lag_bytes = 1 << 20;  // one check that applies is enough
  EXPECT_TRUE(UploadEligible(c, -1, 1 << 20, kNow));
}

TEST(UploadEligibilityTest, TheSettingsParseUnderKafkasNames) {
  auto c = storage::LogConfig::FromProperties({{"remote.copy.lag.ms", "3600000"}, {"log.remote.copy.lag.bytes", "-1"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->remote_copy_lag_ms, 3'600'000);
  EXPECT_EQ(c->remote_copy_lag_bytes, -1);
  EXPECT_FALSE(storage::LogConfig::FromProperties({{"remote.copy.lag.bytes", "-2"}}).ok()) << "-1 is the least";
}

}  // namespace
}  // namespace strata::broker
