#pragma once
// The topic-level settings a topic may carry (Kafka's names), checked against the one table
// of topic settings (storage::TopicSettings(), storage/log_config.h) that the brokers' logs
// apply too, so that CreateTopics and AlterConfigs refuse an unknown key or a value no
// broker can take with a precise message (the setting and what it takes) before anything
// is written. DescribeConfigs shows that table's defaults. Thread-safe (constant tables).

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace strata::controller {

// INVALID_ARGUMENT naming the key (unknown) or the key, the value and what is allowed.
absl::Status ValidateTopicConfig(const std::string& name, const std::string& value);
absl::Status ValidateTopicConfigs(const std::map<std::string, std::string>& configs);
// The rules between settings, on a topic's configs as they will stand: remote storage
// needs the cluster's remote.log.storage.system.enable and is refused on a compacted
// topic (Kafka's rule: compaction would rewrite segments the remote tier already holds);
// local.retention.* may not exceed retention.* (a local copy longer than the whole log).
absl::Status ValidateTopicConfigsTogether(const std::map<std::string, std::string>& configs,
                                          bool remote_storage_system_enable);

}  // namespace strata::controller
