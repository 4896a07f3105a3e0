#include "storage/log_config.h"

#include <functional>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

struct Setting {
  const char* topic_key;
  const char* broker_key;
  int64_t min;
  int64_t max;
  std::function<void(LogConfig&, int64_t)> set;
};

const std::vector<Setting>& Settings() {
  static const std::vector<Setting> settings = {
      {"segment.bytes", "log.segment.bytes", 14, INT32_MAX, [](LogConfig& c, int64_t v) { c.segment_bytes = v; }},
      {"segment.ms", "log.roll.ms", 1, INT64_MAX, [](LogConfig& c, int64_t v) { c.segment_ms = v; }},
      {"index.interval.bytes", "log.index.interval.bytes", 0, INT32_MAX,
       [](LogConfig& c, int64_t v) { c.index_interval_bytes = static_cast<int32_t>(v); }},
      {"segment.index.bytes", "log.index.size.max.bytes", 12, INT32_MAX,
       [](LogConfig& c, int64_t v) { c.segment_index_bytes = static_cast<int32_t>(v); }},
      {"retention.ms", "log.retention.ms", -1, INT64_MAX, [](LogConfig& c, int64_t v) { c.retention_ms = v; }},
      {"retention.bytes", "log.retention.bytes", -1, INT64_MAX, [](LogConfig& c, int64_t v) { c.retention_bytes = v; }},
      {"file.delete.delay.ms", "log.segment.delete.delay.ms", 0, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.file_delete_delay_ms = v; }},
      {"max.message.bytes", "message.max.bytes", 0, INT32_MAX,
       [](LogConfig& c, int64_t v) { c.max_message_bytes = static_cast<int32_t>(v); }},
  };
  return settings;
}

constexpr const char* kTimestampType = "message.timestamp.type";
constexpr const char* kBrokerTimestampType = "log.message.timestamp.type";

}  // namespace

bool LogConfig::IsLogSetting(const std::string& key) {
  if (key == kTimestampType || key == kBrokerTimestampType) return true;
  for (const Setting& s : Settings()) {
    if (key == s.topic_key || key == s.broker_key) return true;
  }
  return false;
}

absl::StatusOr<LogConfig> LogConfig::FromProperties(const std::map<std::string, std::string>& props,
                                                    const LogConfig& base) {
  LogConfig config = base;
  for (const auto& [key, text] : props) {
    if (key == kTimestampType || key == kBrokerTimestampType) {
      if (text != "CreateTime" && text != "LogAppendTime") {
        return MakeError(Errc::kInvalidConfig,
                         absl::StrCat("setting '", key, "' = '", text, "' must be CreateTime or LogAppendTime"));
      }
      config.log_append_time = text == "LogAppendTime";
      continue;
    }
    const Setting* found = nullptr;
    for (const Setting& s : Settings()) {
      if (key == s.topic_key || key == s.broker_key) found = &s;
    }
    if (found == nullptr) return MakeError(Errc::kInvalidConfig, absl::StrCat("unknown log setting '", key, "'"));
    int64_t value = 0;
    if (!absl::SimpleAtoi(text, &value)) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat("setting '", key, "' = '", text, "' is not an integer"));
    }
    if (value < found->min || value > found->max) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat("setting '", key, "' = ", value, " is outside [",
                                                          found->min, ", ", found->max, "]"));
    }
    found->set(config, value);
  }
  return config;
}

}  // namespace strata::storage
