#pragma once
// The broker settings a running broker takes from the dynamic configs (AlterConfigs on a
// broker id, or on "" for the cluster-wide default), in one table of Kafka's names, types
// and ranges: the controller checks an alter against it, and the brokers read the image's
// values through it. The log defaults (a topic setting's broker-level name,
// log.retention.ms...) are checked against the topic settings' table
// (storage/log_config.h) instead; they apply under each topic's own
// (broker/replication TopicLogConfig). A broker's own value outranks the cluster-wide
// default, which outranks strata-server's static setting (Kafka's order). Thread-safe
// (constant tables).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "controller/metadata_image.h"
#include "storage/log_config.h"

namespace strata::controller {

// leader.replication.throttled.rate, follower.replication.throttled.rate (bytes per
// second, at least 0), log.cleaner.threads (1..64), log.cleaner.dedupe.buffer.size,
// log.cleaner.io.max.bytes.per.second (a double, at least 1), log.cleaner.backoff.ms,
// remote.log.manager.copy.max.bytes.per.second and .fetch.max.bytes.per.second (KIP-956);
// each with its doc and range (the checked-setting type the topic table uses; no `set`).
const std::vector<storage::TopicSetting>& DynamicBrokerSettings();
const storage::TopicSetting* FindDynamicBrokerSetting(const std::string& name);

// A dynamic broker config: a setting of the table above or a log default is checked
// (INVALID_ARGUMENT naming the key, the value and what it takes); other names are kept
// as given (stored and shown; Kafka's other dynamic broker configs do not apply yet).
absl::Status ValidateBrokerConfig(const std::string& name, const std::string& value);

// A setting of the table above on broker broker_id as the image gives it
// (MetadataImage::DynamicBrokerConfig), each layer's value only if it passes the table
// (not one an older controller took): the broker's own, else the cluster default's;
// nullopt when neither gives one, so that the static setting applies.
std::optional<int64_t> DynamicBrokerLong(const MetadataImage& image, const std::string& name, int32_t broker_id);
std::optional<double> DynamicBrokerDouble(const MetadataImage& image, const std::string& name, int32_t broker_id);

}  // namespace strata::controller
