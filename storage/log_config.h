#pragma once
// Per-log settings, named as Kafka names them: the topic-level names (segment.bytes,
// retention.ms, ...) and the broker-level defaults (log.segment.bytes, log.retention.ms,
// ...). An unknown key or a malformed or out-of-range value is an INVALID_CONFIG error
// naming the key. Thread-safe (a value type).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::storage {

struct LogConfig {
  int64_t segment_bytes = 1024LL * 1024 * 1024;       // segment.bytes / log.segment.bytes
  int64_t segment_ms = 7LL * 24 * 3600 * 1000;         // segment.ms / log.roll.ms
  int32_t index_interval_bytes = 4096;                 // index.interval.bytes / log.index.interval.bytes
  int32_t segment_index_bytes = 10 * 1024 * 1024;      // segment.index.bytes / log.index.size.max.bytes
  int64_t retention_ms = 7LL * 24 * 3600 * 1000;       // retention.ms / log.retention.ms (-1: keep)
  int64_t retention_bytes = -1;                        // retention.bytes / log.retention.bytes (-1: keep)
  int64_t file_delete_delay_ms = 60'000;               // file.delete.delay.ms / log.segment.delete.delay.ms
  int32_t max_message_bytes = 1024 * 1024 + 12;        // max.message.bytes / message.max.bytes
  // flush.messages / log.flush.interval.messages: flush once this many records are
  // unflushed. flush.ms / log.flush.interval.ms: flush a log not flushed for this long
  // (checked every log.flush.scheduler.interval.ms). Kafka's defaults: never; durability
  // comes from replication, and a rolled segment is flushed at once.
  int64_t flush_messages = INT64_MAX;
  int64_t flush_ms = INT64_MAX;
  // message.timestamp.type / log.message.timestamp.type: CreateTime (false) or
  // LogAppendTime (true: the leader stamps each batch with its clock on append).
  bool log_append_time = false;

  bool operator==(const LogConfig&) const = default;

  // Applies props on top of base. Keys may be topic-level or broker-level names.
  static absl::StatusOr<LogConfig> FromProperties(const std::map<std::string, std::string>& props,
                                                  const LogConfig& base);
  static absl::StatusOr<LogConfig> FromProperties(const std::map<std::string, std::string>& props) {
    return FromProperties(props, LogConfig{});
  }
  // What FromProperties knows, for documentation (strata-server --help-config): the
  // broker-level name, the topic-level name, the default, the type, what it does and the
  // values it takes.
  struct SettingInfo {
    std::string broker_key;
    std::string topic_key;
    std::string default_value;
    std::string type;
    std::string doc;
    std::string valid_values;
  };
  static std::vector<SettingInfo> Describe();

  // Whether key (topic- or broker-level) is one FromProperties knows; topic configs
  // hold other keys too (cleanup.policy, min.insync.replicas, ...).
  static bool IsLogSetting(const std::string& key);
};

}  // namespace strata::storage
