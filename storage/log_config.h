#pragma once
// Per-log settings, named as Kafka names them: the topic-level names (segment.bytes,
// retention.ms, ...) and the broker-level defaults (log.segment.bytes, log.retention.ms,
// ...). An unknown key or a malformed or out-of-range value is an INVALID_CONFIG error
// naming the key.
//
// TopicSettings() is the one definition of every topic setting, the log's and the others
// (min.insync.replicas, unclean.leader.election.enable): its name, type, valid values,
// default, the broker setting it falls back to and its doc. The controller checks
// CreateTopics and config changes against it (controller/topic_config.h), the log applies
// it (LogConfig::FromProperties), strata-server's docs/configuration.md is generated from
// it; so a value the controller accepts is one every broker's log takes (issue 34: the
// controller took segment.index.bytes=8, which the log refused, and the broker then ran
// the topic on its defaults, every setting of the topic dropped). Thread-safe (a value
// type and constant tables).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/record_batch.h"

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
  // Tiered storage (KIP-405). remote.storage.enable (topic only): rolled segments are
  // copied to the remote tier, and then retention.* bounds the whole log (both tiers)
  // while local.retention.ms / local.retention.bytes (log.local.retention.*) bound the
  // local copy; -2 takes the retention.* value. A local segment goes only once its copy
  // has FINISHED (Log::set_highest_offset_in_remote_storage).
  bool remote_storage_enable = false;
  // follower.fetch.last.tiered.offset.enable (KIP-1023; the broker's default, a topic
  // may override it): an empty follower, or one whose position is in the remote tier,
  // starts at the leader's earliest pending upload offset instead of its local log start.
  bool follower_fetch_last_tiered_offset = false;
  int64_t local_retention_ms = -2;
  int64_t local_retention_bytes = -2;
  // Delayed upload (KIP-1241): remote.copy.lag.ms / remote.copy.lag.bytes
  // (log.remote.copy.lag.*). A rolled segment is copied once its newest record is this old
  // or this many bytes of the local log follow it; 0 copies at once (the default), -1
  // takes the effective local retention (and applies no check when that is unlimited).
  // broker/tiered/upload_eligibility.h decides.
  int64_t remote_copy_lag_ms = 0;
  int64_t remote_copy_lag_bytes = -1;
  // cleanup.policy / log.cleanup.policy: delete (retention.* applies), compact (the log
  // cleaner keeps each key's latest record; retention.* does not delete), or both.
  bool cleanup_delete = true;
  bool cleanup_compact = false;
  // Compaction (storage/log_cleaner.h): min.cleanable.dirty.ratio
  // (log.cleaner.min.cleanable.ratio), min.compaction.lag.ms, max.compaction.lag.ms and
  // delete.retention.ms (log.cleaner.*).
  double min_cleanable_dirty_ratio = 0.5;
  int64_t min_compaction_lag_ms = 0;
  int64_t max_compaction_lag_ms = INT64_MAX;
  int64_t delete_retention_ms = 24LL * 3600 * 1000;
  // compression.type: nullopt keeps the producer's codec ("producer"); a codec (kNone
  // for "uncompressed") makes the leader recompress batches written with another.
  std::optional<Compression> compression_type;

  // What local retention keeps (the local.* values, -2 resolved).
  int64_t effective_local_retention_ms() const { return local_retention_ms == -2 ? retention_ms : local_retention_ms; }
  int64_t effective_local_retention_bytes() const {
    return local_retention_bytes == -2 ? retention_bytes : local_retention_bytes;
  }

  bool operator==(const LogConfig&) const = default;

  // Applies props on top of base. Keys may be topic-level or broker-level names.
  static absl::StatusOr<LogConfig> FromProperties(const std::map<std::string, std::string>& props,
                                                  const LogConfig& base);
  static absl::StatusOr<LogConfig> FromProperties(const std::map<std::string, std::string>& props) {
    return FromProperties(props, LogConfig{});
  }
  // Whether key (topic- or broker-level) is one FromProperties knows; topic configs
  // hold other keys too (min.insync.replicas, unclean.leader.election.enable).
  static bool IsLogSetting(const std::string& key);
};

// One topic-level setting.
struct TopicSetting {
  enum class Type { kBoolean, kInt, kLong, kDouble, kString, kList };
  std::string name;        // the topic-level name (Kafka's)
  std::string broker_key;  // the broker setting whose value is its default (empty: none)
  Type type = Type::kLong;
  int64_t min = 0;  // kInt, kLong: the range
  int64_t max = 0;
  double min_double = 0;  // kDouble: the range
  double max_double = 0;
  std::vector<std::string> choices;  // kString: one of them; kList: a comma-separated list of them
  // kList without choices: what a value must be (an error message when it is not).
  std::function<absl::Status(const std::string& value)> check_list;
  std::string default_value;         // Kafka's default, as text
  std::string doc;
  // How a LogConfig takes a value Check accepted, and shows its own. Null for the settings
  // that are not the log's (min.insync.replicas, unclean.leader.election.enable).
  std::function<void(LogConfig&, const std::string&)> set;
  std::function<std::string(const LogConfig&)> get;

  bool is_log_setting() const { return set != nullptr; }
  std::string type_name() const;     // boolean, int, long, double, string, list
  std::string valid_values() const;  // "14..2147483647", "delete, compact", "true, false", ...
  // OK, or INVALID_CONFIG naming key (the name it was given by) and what it takes.
  absl::Status Check(const std::string& key, const std::string& value) const;
};

// Every topic setting, sorted by name.
const std::vector<TopicSetting>& TopicSettings();
// The setting key names, by its topic-level name or its broker-level one; null if none.
const TopicSetting* FindTopicSetting(const std::string& key);

}  // namespace strata::storage
