#include "controller/broker_config.h"

#include <algorithm>
#include <limits>

#include "absl/strings/numbers.h"

namespace strata::controller {
namespace {

using Type = storage::TopicSetting::Type;

storage::TopicSetting Long(const char* name, int64_t min, int64_t max, const char* doc) {
  return storage::TopicSetting{.name = name, .type = Type::kLong, .min = min, .max = max, .doc = doc};
}

std::vector<storage::TopicSetting> MakeDynamicBrokerSettings() {
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  std::vector<storage::TopicSetting> t;
  t.push_back(Long("follower.replication.throttled.rate", 0, kInt64Max,
                   "bytes per second this broker's followers fetch for the throttled partitions out of the ISR"));
  t.push_back(Long("leader.replication.throttled.rate", 0, kInt64Max,
                   "bytes per second this broker's leaders give the throttled followers out of the ISR"));
  t.push_back(
      Long("log.cleaner.backoff.ms", 1, kInt32Max, "how long a cleaner thread waits when no log needs cleaning"));
  t.push_back(Long("log.cleaner.dedupe.buffer.size", int64_t{1} << 20, int64_t{1} << 40,
                   "memory for the cleaner threads' key -> offset maps, shared among them"));
  t.push_back(storage::TopicSetting{.name = "log.cleaner.io.max.bytes.per.second", .type = Type::kDouble,
                                    .min_double = 1, .max_double = std::numeric_limits<double>::max(),
                                    .doc = "the cleaner threads' read plus write rate, together"});
  t.push_back(Long("log.cleaner.threads", 1, 64, "threads compacting logs, each on its own log"));
  t.push_back(Long("remote.log.manager.copy.max.bytes.per.second", 1, kInt64Max,
                   "bytes per second this broker's copies to the remote tier read and upload, together"));
  t.push_back(Long("remote.log.manager.fetch.max.bytes.per.second", 1, kInt64Max,
                   "bytes per second this broker's fetches read from the remote tier, together"));
  t.push_back(storage::TopicSetting{.name = "replica.alter.log.dirs.io.max.bytes.per.second", .type = Type::kDouble,
                                    .min_double = 1, .max_double = std::numeric_limits<double>::max(),
                                    .doc = "the copy of replicas moving between log dirs, read plus write, together"});
  std::sort(t.begin(), t.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return t;
}

// The value found for name, if the table has the setting and the value passes it: the
// broker's own, else (none, or refused) the cluster default's.
std::optional<std::string> Checked(const MetadataImage& image, const std::string& name, int32_t broker_id) {
  const storage::TopicSetting* s = FindDynamicBrokerSetting(name);
  if (s == nullptr) return std::nullopt;
  for (int32_t id : {broker_id, -1}) {
    std::optional<std::string> value = image.DynamicBrokerConfig(name, id);
    if (value && s->Check(name, *value).ok()) return value;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<storage::TopicSetting>& DynamicBrokerSettings() {
  static const auto* table = new std::vector<storage::TopicSetting>(MakeDynamicBrokerSettings());
  return *table;
}

const storage::TopicSetting* FindDynamicBrokerSetting(const std::string& name) {
  for (const storage::TopicSetting& s : DynamicBrokerSettings()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

absl::Status ValidateBrokerConfig(const std::string& name, const std::string& value) {
  const storage::TopicSetting* s = FindDynamicBrokerSetting(name);
  if (s == nullptr) {
    s = storage::FindTopicSetting(name);
    if (s == nullptr || s->broker_key != name) return absl::OkStatus();
  }
  if (absl::Status checked = s->Check(name, value); !checked.ok()) {
    return absl::InvalidArgumentError(checked.message());
  }
  return absl::OkStatus();
}

std::optional<int64_t> DynamicBrokerLong(const MetadataImage& image, const std::string& name, int32_t broker_id) {
  int64_t out = 0;
  std::optional<std::string> value = Checked(image, name, broker_id);
  if (!value || !absl::SimpleAtoi(*value, &out)) return std::nullopt;
  return out;
}

std::optional<double> DynamicBrokerDouble(const MetadataImage& image, const std::string& name, int32_t broker_id) {
  double out = 0;
  std::optional<std::string> value = Checked(image, name, broker_id);
  if (!value || !absl::SimpleAtod(*value, &out)) return std::nullopt;
  return out;
}

}  // namespace strata::controller
