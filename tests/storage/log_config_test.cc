#include "storage/log_config.h"

#include <gtest/gtest.h>

#include "storage/errc.h"

namespace strata::storage {
namespace {

TEST(LogConfig, TopicAndBrokerNamesApply) {
  auto config = LogConfig::FromProperties({{"segment.bytes", "1048576"}, {"log.retention.ms", "-1"},
                                           {"index.interval.bytes", "100"}});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->segment_bytes, 1048576);
  EXPECT_EQ(config->retention_ms, -1);
  EXPECT_EQ(config->index_interval_bytes, 100);
  EXPECT_EQ(config->retention_bytes, -1);  // default kept
}

TEST(LogConfig, UnknownMalformedAndOutOfRangeValuesNameTheKey) {
  auto unknown = LogConfig::FromProperties({{"segment.byte", "10"}});
  EXPECT_EQ(ErrcOf(unknown.status()), Errc::kInvalidConfig);
  EXPECT_NE(unknown.status().message().find("'segment.byte'"), absl::string_view::npos);
  auto malformed = LogConfig::FromProperties({{"retention.ms", "7d"}});
  EXPECT_NE(malformed.status().message().find("'retention.ms' = '7d' is not an integer"), absl::string_view::npos)
      << malformed.status();
  auto range = LogConfig::FromProperties({{"segment.bytes", "10"}});
  EXPECT_NE(range.status().message().find("outside [14,"), absl::string_view::npos) << range.status();
}

TEST(LogConfig, TimestampTypeIsCreateTimeOrLogAppendTime) {
  auto topic = LogConfig::FromProperties({{"message.timestamp.type", "LogAppendTime"}});
  ASSERT_TRUE(topic.ok()) << topic.status();
  EXPECT_TRUE(topic->log_append_time);
  auto broker = LogConfig::FromProperties({{"log.message.timestamp.type", "CreateTime"}}, *topic);
  ASSERT_TRUE(broker.ok());
  EXPECT_FALSE(broker->log_append_time);
  auto bad = LogConfig::FromProperties({{"message.timestamp.type", "logappendtime"}});
  EXPECT_EQ(ErrcOf(bad.status()), Errc::kInvalidConfig);
  EXPECT_TRUE(LogConfig::IsLogSetting("message.timestamp.type"));
  EXPECT_TRUE(LogConfig::IsLogSetting("log.retention.ms"));
  EXPECT_FALSE(LogConfig::IsLogSetting("min.insync.replicas"));
}

}  // namespace
}  // namespace strata::storage
