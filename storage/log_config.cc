#include "storage/log_config.h"

#include "storage/throttled_replicas.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/compression.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

using Type = TopicSetting::Type;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

int64_t Long(const std::string& text) {
  int64_t v = 0;
  ABSL_CHECK(absl::SimpleAtoi(text, &v)) << text;  // Check accepted it
  return v;
}

std::vector<std::string> ListItems(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view p : absl::StrSplit(text, ',')) out.emplace_back(absl::StripAsciiWhitespace(p));
  return out;
}

// A long or int setting held in one LogConfig field.
template <typename T>
TopicSetting Number(const char* name, const char* broker_key, Type type, int64_t min, int64_t max, const char* def,
                    T LogConfig::*field, const char* doc) {
  TopicSetting s{.name = name, .broker_key = broker_key, .type = type, .min = min, .max = max, .default_value = def,
                 .doc = doc};
  s.set = [field](LogConfig& c, const std::string& v) { c.*field = static_cast<T>(Long(v)); };
  s.get = [field](const LogConfig& c) { return absl::StrCat(c.*field); };
  return s;
}

TopicSetting Boolean(const char* name, const char* broker_key, const char* doc, bool LogConfig::*field) {
  TopicSetting s{.name = name, .broker_key = broker_key, .type = Type::kBoolean, .choices = {"true", "false"},
                 .default_value = "false", .doc = doc};
  if (field != nullptr) {
    s.set = [field](LogConfig& c, const std::string& v) { c.*field = v == "true"; };
    s.get = [field](const LogConfig& c) { return std::string(c.*field ? "true" : "false"); };
  }
  return s;
}

std::vector<TopicSetting> MakeTopicSettings() {
  std::vector<TopicSetting> t;
  TopicSetting cleanup{.name = "cleanup.policy", .broker_key = "log.cleanup.policy", .type = Type::kList,
                       .choices = {"delete", "compact"}, .default_value = "delete",
                       .doc = "delete: retention.* deletes old segments; compact: the log cleaner keeps the latest "
                              "record of each key; both: compacted and deleted by retention"};
  cleanup.set = [](LogConfig& c, const std::string& v) {
    std::vector<std::string> items = ListItems(v);
    c.cleanup_compact = std::count(items.begin(), items.end(), "compact") > 0;
    c.cleanup_delete = std::count(items.begin(), items.end(), "delete") > 0;
  };
  cleanup.get = [](const LogConfig& c) {
    std::vector<std::string> parts;
    if (c.cleanup_compact) parts.push_back("compact");
    if (c.cleanup_delete) parts.push_back("delete");
    return absl::StrJoin(parts, ",");
  };
  t.push_back(cleanup);
  TopicSetting compression{.name = "compression.type", .broker_key = "compression.type", .type = Type::kString,
                           .choices = {"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"},
                           .default_value = "producer",
                           .doc = "producer keeps each batch as the producer compressed it; uncompressed or a codec "
                                  "makes the leader recompress batches that use another"};
  compression.set = [](LogConfig& c, const std::string& v) {
    auto codec = ParseCompressionType(v);
    ABSL_CHECK(codec.ok()) << v;  // one of the choices
    c.compression_type = *codec;
  };
  compression.get = [](const LogConfig& c) -> std::string {
    if (!c.compression_type) return "producer";
    return *c.compression_type == Compression::kNone ? "uncompressed" : CompressionName(*c.compression_type);
  };
  t.push_back(compression);
  t.push_back(Number("delete.retention.ms", "log.cleaner.delete.retention.ms", Type::kLong, 0, kInt64Max, "86400000",
                     &LogConfig::delete_retention_ms,
                     "compacted topics: a tombstone (null value) is kept at least this long after its timestamp, so "
                     "that consumers reading the log see the delete"));
  t.push_back(Number("file.delete.delay.ms", "log.segment.delete.delay.ms", Type::kLong, 0, kInt64Max, "60000",
                     &LogConfig::file_delete_delay_ms,
                     "a deleted segment's files stay (renamed .deleted) this long for readers still on them"));
  t.push_back(Number("flush.messages", "log.flush.interval.messages", Type::kLong, 1, kInt64Max,
                     "9223372036854775807", &LogConfig::flush_messages,
                     "records appended but not flushed that make the append flush the log (fsync) before it is "
                     "answered"));
  t.push_back(Number("flush.ms", "log.flush.interval.ms", Type::kLong, 0, kInt64Max, "9223372036854775807",
                     &LogConfig::flush_ms,
                     "a log not flushed for this long is flushed; checked every log.flush.scheduler.interval.ms, so "
                     "it has no effect while that is left at its default (never), as in Kafka"));
  t.push_back(Boolean("follower.fetch.last.tiered.offset.enable", "follower.fetch.last.tiered.offset.enable",
                      "an empty follower, or one whose position is in the remote tier, starts at the leader's earliest "
                      "pending upload offset instead of its local log start (KIP-1023)",
                      &LogConfig::follower_fetch_last_tiered_offset));
  t.push_back(Number("index.interval.bytes", "log.index.interval.bytes", Type::kInt, 0, kInt32Max, "4096",
                     &LogConfig::index_interval_bytes, "bytes of records between two entries of the offset index"));
  for (const char* side : {"leader", "follower"}) {
    TopicSetting throttled{.name = absl::StrCat(side, ".replication.throttled.replicas"), .type = Type::kList,
                           .default_value = "",
                           .doc = absl::StrCat("the replicas whose replication ", side == std::string("leader") ?
                                                   "the leader sends" : "the follower fetches",
                                               " is held to ", side, ".replication.throttled.rate while they are "
                                               "out of the ISR: '*' or partition:broker,... (KIP-73)")};
    throttled.check_list = [](const std::string& value) { return ParseThrottledReplicas(value).status(); };
    t.push_back(std::move(throttled));
  }
  t.push_back(Number("local.retention.bytes", "log.local.retention.bytes", Type::kLong, -2, kInt64Max, "-2",
                     &LogConfig::local_retention_bytes,
                     "with remote storage: the oldest copied segments leave the local disk while it holds more (-2: "
                     "retention.bytes, -1: no limit)"));
  t.push_back(Number("local.retention.ms", "log.local.retention.ms", Type::kLong, -2, kInt64Max, "-2",
                     &LogConfig::local_retention_ms,
                     "with remote storage: rolled segments older than this and copied to the remote tier leave the "
                     "local disk (-2: retention.ms, -1: kept)"));
  t.push_back(Number("max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms", Type::kLong, 1, kInt64Max,
                     "9223372036854775807", &LogConfig::max_compaction_lag_ms,
                     "compacted topics: a log whose oldest uncleaned record is older than this is cleaned whatever "
                     "its dirty ratio, and its active segment rolls by then"));
  t.push_back(Number("max.message.bytes", "message.max.bytes", Type::kInt, 0, kInt32Max, "1048588",
                     &LogConfig::max_message_bytes,
                     "the largest record batch a producer may append (MESSAGE_TOO_LARGE above it)"));
  TopicSetting timestamp{.name = "message.timestamp.type", .broker_key = "log.message.timestamp.type",
                         .type = Type::kString, .choices = {"CreateTime", "LogAppendTime"},
                         .default_value = "CreateTime",
                         .doc = "CreateTime keeps the producer's timestamps; LogAppendTime stamps each batch on "
                                "append"};
  timestamp.set = [](LogConfig& c, const std::string& v) { c.log_append_time = v == "LogAppendTime"; };
  timestamp.get = [](const LogConfig& c) { return std::string(c.log_append_time ? "LogAppendTime" : "CreateTime"); };
  t.push_back(timestamp);
  TopicSetting ratio{.name = "min.cleanable.dirty.ratio", .broker_key = "log.cleaner.min.cleanable.ratio",
                     .type = Type::kDouble, .min_double = 0, .max_double = 1, .default_value = "0.5",
                     .doc = "compacted topics: a log is cleaned once this share of it (by bytes) has not been "
                            "cleaned yet"};
  ratio.set = [](LogConfig& c, const std::string& v) {
    ABSL_CHECK(absl::SimpleAtod(v, &c.min_cleanable_dirty_ratio)) << v;
  };
  ratio.get = [](const LogConfig& c) { return absl::StrCat(c.min_cleanable_dirty_ratio); };
  t.push_back(ratio);
  t.push_back(Number("min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", Type::kLong, 0, kInt64Max, "0",
                     &LogConfig::min_compaction_lag_ms,
                     "compacted topics: a record stays uncompacted at least this long (its segment's newest record "
                     "is older)"));
  t.push_back(TopicSetting{.name = "min.insync.replicas", .broker_key = "min.insync.replicas", .type = Type::kInt,
                           .min = 1, .max = kInt32Max, .default_value = "1",
                           .doc = "acks=all produces need this many replicas in the ISR (NOT_ENOUGH_REPLICAS below "
                                  "it)"});
  t.push_back(Boolean("remote.storage.enable", "",
                      "rolled segments are copied to the remote tier, retention.* bounds both tiers and local.* the "
                      "local copy (KIP-405; needs remote.log.storage.system.enable)",
                      &LogConfig::remote_storage_enable));
  t.push_back(Number("remote.copy.lag.bytes", "log.remote.copy.lag.bytes", Type::kLong, -1, kInt64Max, "-1",
                     &LogConfig::remote_copy_lag_bytes,
                     "with remote storage: a rolled segment is copied once this many bytes of the local log follow "
                     "it, or by remote.copy.lag.ms (KIP-1241; 0: at once, -1: the effective local.retention.bytes, "
                     "no check when that is unlimited)"));
  t.push_back(Number("remote.copy.lag.ms", "log.remote.copy.lag.ms", Type::kLong, -1, kInt64Max, "0",
                     &LogConfig::remote_copy_lag_ms,
                     "with remote storage: a rolled segment is copied once its newest record is this old, or by "
                     "remote.copy.lag.bytes (KIP-1241; 0: at once, the default, -1: the effective "
                     "local.retention.ms, no check when that is unlimited)"));
  t.push_back(Number("retention.bytes", "log.retention.bytes", Type::kLong, -1, kInt64Max, "-1",
                     &LogConfig::retention_bytes,
                     "the oldest segments are deleted while a partition holds more (-1: no limit)"));
  t.push_back(Number("retention.ms", "log.retention.ms", Type::kLong, -1, kInt64Max, "604800000",
                     &LogConfig::retention_ms, "rolled segments older than this are deleted (-1: kept)"));
  t.push_back(Number("segment.bytes", "log.segment.bytes", Type::kInt, 14, kInt32Max, "1073741824",
                     &LogConfig::segment_bytes, "a segment rolls once it holds this many bytes"));
  // 12, not Kafka's 4: an index must hold at least one entry (a time index entry is 12
  // bytes), or the log cannot open its active segment.
  t.push_back(Number("segment.index.bytes", "log.index.size.max.bytes", Type::kInt, 12, kInt32Max, "10485760",
                     &LogConfig::segment_index_bytes,
                     "the size of a segment's offset and time indexes; a full index rolls the segment"));
  t.push_back(Number("segment.ms", "log.roll.ms", Type::kLong, 1, kInt64Max, "604800000", &LogConfig::segment_ms,
                     "a segment rolls once its first record is this old"));
  t.push_back(Boolean("unclean.leader.election.enable", "unclean.leader.election.enable",
                      "a replica out of the ISR may be elected leader when no ISR member is left (records may be "
                      "lost)",
                      nullptr));
  std::sort(t.begin(), t.end(), [](const TopicSetting& a, const TopicSetting& b) { return a.name < b.name; });
  return t;
}

absl::Status Invalid(const std::string& key, const std::string& text, absl::string_view what) {
  return MakeError(Errc::kInvalidConfig, absl::StrCat("setting '", key, "' = '", text, "' ", what));
}

}  // namespace

const std::vector<TopicSetting>& TopicSettings() {
  static const auto* settings = new std::vector<TopicSetting>(MakeTopicSettings());
  return *settings;
}

const TopicSetting* FindTopicSetting(const std::string& key) {
  for (const TopicSetting& s : TopicSettings()) {
    if (key == s.name || (!s.broker_key.empty() && key == s.broker_key)) return &s;
  }
  return nullptr;
}

std::string TopicSetting::type_name() const {
  switch (type) {
    case Type::kBoolean: return "boolean";
    case Type::kInt: return "int";
    case Type::kLong: return "long";
    case Type::kDouble: return "double";
    case Type::kString: return "string";
    case Type::kList: return "list";
  }
  return "";
}

std::string TopicSetting::valid_values() const {
  switch (type) {
    case Type::kInt:
    case Type::kLong: return absl::StrCat(min, "..", max == kInt64Max ? std::string() : absl::StrCat(max));
    case Type::kDouble: return absl::StrCat(min_double, "..", max_double);
    case Type::kBoolean:
    case Type::kString: return absl::StrJoin(choices, ", ");
    case Type::kList:
      if (check_list) return "*, or a comma-separated list of partition:broker";
      return absl::StrCat(absl::StrJoin(choices, ", "), ", or a comma-separated list of them");
  }
  return "";
}

absl::Status TopicSetting::Check(const std::string& key, const std::string& text) const {
  auto one_of = [&] {
    if (choices.size() == 2) return absl::StrCat(choices[0], " or ", choices[1]);
    return absl::StrCat(absl::StrJoin(choices.begin(), choices.end() - 1, ", "), " or ", choices.back());
  };
  switch (type) {
    case Type::kInt:
    case Type::kLong: {
      int64_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) return Invalid(key, text, "is not an integer");
      if (value < min || value > max) {
        return MakeError(Errc::kInvalidConfig,
                         absl::StrCat("setting '", key, "' = ", value, " is outside [", min, ", ", max, "]"));
      }
      return absl::OkStatus();
    }
    case Type::kDouble: {
      double value = 0;
      if (!absl::SimpleAtod(text, &value) || !(value >= min_double && value <= max_double)) {
        return Invalid(key, text, absl::StrCat("must be in [", min_double, ", ", max_double, "]"));
      }
      return absl::OkStatus();
    }
    case Type::kBoolean:
    case Type::kString:
      if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
        return Invalid(key, text, absl::StrCat("must be ", one_of()));
      }
      return absl::OkStatus();
    case Type::kList: {
      if (check_list) {
        if (absl::Status s = check_list(text); !s.ok()) return Invalid(key, text, s.message());
        return absl::OkStatus();
      }
      std::vector<std::string> items = ListItems(text);
      std::set<std::string> distinct(items.begin(), items.end());
      bool known = std::all_of(items.begin(), items.end(), [&](const std::string& item) {
        return std::find(choices.begin(), choices.end(), item) != choices.end();
      });
      if (!known || distinct.size() != items.size()) {
        return Invalid(key, text, absl::StrCat("must be ", absl::StrJoin(choices, ", "), " or a list of them"));
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

bool LogConfig::IsLogSetting(const std::string& key) {
  const TopicSetting* s = FindTopicSetting(key);
  return s != nullptr && s->is_log_setting();
}

absl::StatusOr<LogConfig> LogConfig::FromProperties(const std::map<std::string, std::string>& props,
                                                    const LogConfig& base) {
  LogConfig config = base;
  for (const auto& [key, text] : props) {
    const TopicSetting* s = FindTopicSetting(key);
    if (s == nullptr || !s->is_log_setting()) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat("unknown log setting '", key, "'"));
    }
    STRATA_RETURN_IF_ERROR(s->Check(key, text));
    s->set(config, text);
  }
  return config;
}

}  // namespace strata::storage
