#include "storage/log_config.h"

#include <functional>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "storage/compression.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

struct Setting {
  const char* topic_key;
  const char* broker_key;
  int64_t min;
  int64_t max;
  std::function<void(LogConfig&, int64_t)> set;
  std::function<int64_t(const LogConfig&)> get;
  const char* doc;
};

const std::vector<Setting>& Settings() {
  static const std::vector<Setting> settings = {
      {"segment.bytes", "log.segment.bytes", 14, INT32_MAX, [](LogConfig& c, int64_t v) { c.segment_bytes = v; },
       [](const LogConfig& c) { return c.segment_bytes; }, "a segment rolls once it holds this many bytes"},
      {"segment.ms", "log.roll.ms", 1, INT64_MAX, [](LogConfig& c, int64_t v) { c.segment_ms = v; },
       [](const LogConfig& c) { return c.segment_ms; }, "a segment rolls once its first record is this old"},
      {"index.interval.bytes", "log.index.interval.bytes", 0, INT32_MAX,
       [](LogConfig& c, int64_t v) { c.index_interval_bytes = static_cast<int32_t>(v); },
       [](const LogConfig& c) { return int64_t{c.index_interval_bytes}; },
       "bytes of records between two entries of the offset index"},
      {"segment.index.bytes", "log.index.size.max.bytes", 12, INT32_MAX,
       [](LogConfig& c, int64_t v) { c.segment_index_bytes = static_cast<int32_t>(v); },
       [](const LogConfig& c) { return int64_t{c.segment_index_bytes}; },
       "the size of a segment's offset and time indexes; a full index rolls the segment"},
      {"retention.ms", "log.retention.ms", -1, INT64_MAX, [](LogConfig& c, int64_t v) { c.retention_ms = v; },
       [](const LogConfig& c) { return c.retention_ms; }, "rolled segments older than this are deleted (-1: kept)"},
      {"retention.bytes", "log.retention.bytes", -1, INT64_MAX, [](LogConfig& c, int64_t v) { c.retention_bytes = v; },
       [](const LogConfig& c) { return c.retention_bytes; },
       "the oldest segments are deleted while a partition holds more (-1: no limit)"},
      {"local.retention.ms", "log.local.retention.ms", -2, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.local_retention_ms = v; }, [](const LogConfig& c) { return c.local_retention_ms; },
       "with remote storage: rolled segments older than this and copied to the remote tier leave the local disk "
       "(-2: retention.ms, -1: kept)"},
      {"local.retention.bytes", "log.local.retention.bytes", -2, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.local_retention_bytes = v; },
       [](const LogConfig& c) { return c.local_retention_bytes; },
       "with remote storage: the oldest copied segments leave the local disk while it holds more (-2: "
       "retention.bytes, -1: no limit)"},
      {"file.delete.delay.ms", "log.segment.delete.delay.ms", 0, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.file_delete_delay_ms = v; },
       [](const LogConfig& c) { return c.file_delete_delay_ms; },
       "a deleted segment's files stay (renamed .deleted) this long for readers still on them"},
      {"max.message.bytes", "message.max.bytes", 0, INT32_MAX,
       [](LogConfig& c, int64_t v) { c.max_message_bytes = static_cast<int32_t>(v); },
       [](const LogConfig& c) { return int64_t{c.max_message_bytes}; },
       "the largest record batch a producer may append (MESSAGE_TOO_LARGE above it)"},
      {"flush.messages", "log.flush.interval.messages", 1, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.flush_messages = v; }, [](const LogConfig& c) { return c.flush_messages; },
       "records appended but not flushed that make the append flush the log (fsync) before it is answered"},
      {"flush.ms", "log.flush.interval.ms", 0, INT64_MAX, [](LogConfig& c, int64_t v) { c.flush_ms = v; },
       [](const LogConfig& c) { return c.flush_ms; },
       "a log not flushed for this long is flushed; checked every log.flush.scheduler.interval.ms, so it has no "
       "effect while that is left at its default (never), as in Kafka"},
      {"min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", 0, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.min_compaction_lag_ms = v; },
       [](const LogConfig& c) { return c.min_compaction_lag_ms; },
       "compacted topics: a record stays uncompacted at least this long (its segment's newest record is older)"},
      {"max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms", 1, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.max_compaction_lag_ms = v; },
       [](const LogConfig& c) { return c.max_compaction_lag_ms; },
       "compacted topics: a log whose oldest uncleaned record is older than this is cleaned whatever its dirty "
       "ratio, and its active segment rolls by then"},
      {"delete.retention.ms", "log.cleaner.delete.retention.ms", 0, INT64_MAX,
       [](LogConfig& c, int64_t v) { c.delete_retention_ms = v; },
       [](const LogConfig& c) { return c.delete_retention_ms; },
       "compacted topics: a tombstone (null value) is kept at least this long after its timestamp, so that "
       "consumers reading the log see the delete"},
  };
  return settings;
}

constexpr const char* kTimestampType = "message.timestamp.type";
constexpr const char* kCleanupPolicy = "cleanup.policy";
constexpr const char* kBrokerCleanupPolicy = "log.cleanup.policy";
constexpr const char* kDirtyRatio = "min.cleanable.dirty.ratio";
constexpr const char* kBrokerDirtyRatio = "log.cleaner.min.cleanable.ratio";
constexpr const char* kCompressionType = "compression.type";  // the broker's setting has the same name
constexpr const char* kBrokerTimestampType = "log.message.timestamp.type";
constexpr const char* kRemoteStorageEnable = "remote.storage.enable";  // topic only, as in Kafka
// A broker setting (strata-server's table sets the default) that a topic may override.
constexpr const char* kFetchLastTieredOffset = "follower.fetch.last.tiered.offset.enable";

// The boolean settings: key -> field.
bool* BoolField(LogConfig& c, const std::string& key) {
  if (key == kRemoteStorageEnable) return &c.remote_storage_enable;
  if (key == kFetchLastTieredOffset) return &c.follower_fetch_last_tiered_offset;
  return nullptr;
}

}  // namespace

std::vector<LogConfig::SettingInfo> LogConfig::Describe() {
  const LogConfig defaults;
  std::vector<SettingInfo> out;
  for (const Setting& s : Settings()) {
    out.push_back({s.broker_key, s.topic_key, absl::StrCat(s.get(defaults)), "long", s.doc,
                   absl::StrCat(s.min, "..", s.max == INT64_MAX ? std::string("") : absl::StrCat(s.max))});
  }
  out.push_back({kBrokerTimestampType, kTimestampType, defaults.log_append_time ? "LogAppendTime" : "CreateTime",
                 "string", "CreateTime keeps the producer's timestamps; LogAppendTime stamps each batch on append",
                 "CreateTime, LogAppendTime"});
  out.push_back({kBrokerCleanupPolicy, kCleanupPolicy, "delete", "list",
                 "delete: retention.* deletes old segments; compact: the log cleaner keeps the latest record of each "
                 "key; both: compacted and deleted by retention",
                 "delete, compact, compact,delete"});
  out.push_back({kBrokerDirtyRatio, kDirtyRatio, "0.5", "double",
                 "compacted topics: a log is cleaned once this share of it (by bytes) has not been cleaned yet",
                 "0..1"});
  out.push_back({kCompressionType, kCompressionType, "producer", "string",
                 "producer keeps each batch as the producer compressed it; uncompressed or a codec makes the leader "
                 "recompress batches that use another",
                 "producer, uncompressed, gzip, snappy, lz4, zstd"});
  return out;
}

namespace {

// "compact", "delete" or both, comma-separated.
absl::Status ParseCleanupPolicy(const std::string& key, const std::string& text, LogConfig& config) {
  bool compact = false;
  bool del = false;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part == "compact") {
      compact = true;
    } else if (part == "delete") {
      del = true;
    } else {
      return MakeError(Errc::kInvalidConfig,
                       absl::StrCat("setting '", key, "' = '", text, "' must be delete, compact or compact,delete"));
    }
  }
  config.cleanup_compact = compact;
  config.cleanup_delete = del;
  return absl::OkStatus();
}

}  // namespace

bool LogConfig::IsLogSetting(const std::string& key) {
  LogConfig scratch;
  if (key == kTimestampType || key == kBrokerTimestampType || BoolField(scratch, key) != nullptr) return true;
  if (key == kCleanupPolicy || key == kBrokerCleanupPolicy || key == kDirtyRatio || key == kBrokerDirtyRatio ||
      key == kCompressionType) {
    return true;
  }
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
    if (key == kCleanupPolicy || key == kBrokerCleanupPolicy) {
      if (absl::Status s = ParseCleanupPolicy(key, text, config); !s.ok()) return s;
      continue;
    }
    if (key == kDirtyRatio || key == kBrokerDirtyRatio) {
      double ratio = 0;
      if (!absl::SimpleAtod(text, &ratio) || !(ratio >= 0 && ratio <= 1)) {
        return MakeError(Errc::kInvalidConfig, absl::StrCat("setting '", key, "' = '", text, "' must be in [0, 1]"));
      }
      config.min_cleanable_dirty_ratio = ratio;
      continue;
    }
    if (key == kCompressionType) {
      auto codec = ParseCompressionType(text);
      if (!codec.ok()) return codec.status();
      config.compression_type = *codec;
      continue;
    }
    if (bool* field = BoolField(config, key)) {
      if (text != "true" && text != "false") {
        return MakeError(Errc::kInvalidConfig, absl::StrCat("setting '", key, "' = '", text, "' must be true or false"));
      }
      *field = text == "true";
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
