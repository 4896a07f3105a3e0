#include "broker/partition_lookup.h"

#include "absl/strings/str_cat.h"
#include "broker/kafka_error.h"
#include "broker/replica_manager.h"

namespace strata::broker {

namespace kafka = proto::kafka;
namespace pb = metadata::v1;

absl::StatusOr<std::shared_ptr<Partition>> LookupPartition(const KafkaApisContext& context, const std::string& topic,
                                                           int32_t partition) {
  bool exists = false;
  if (context.store != nullptr) {
    exists = context.store->Read([&](const controller::MetadataImage& image) {
      const controller::TopicState* t = image.FindTopic(topic);
      return t != nullptr && t->partitions.count(partition) > 0;
    });
  }
  if (!exists) {
    return KafkaError(kafka::ErrorCode::kUnknownTopicOrPartition,
                      absl::StrCat("this server does not host partition ", partition, " of topic '", topic, "'"));
  }
  std::shared_ptr<Partition> p =
      context.replicas != nullptr ? context.replicas->GetPartition({topic, partition}) : nullptr;
  if (p == nullptr) {
    return KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", context.broker_id, " is not a replica of ", topic, "-", partition));
  }
  return p;
}

std::optional<std::string> TopicNameForId(const KafkaApisContext& context, const std::string& topic_id) {
  if (context.store == nullptr) return std::nullopt;
  return context.store->Read([&](const controller::MetadataImage& image) -> std::optional<std::string> {
    const controller::TopicState* t = image.FindTopicById(topic_id);
    if (t == nullptr) return std::nullopt;
    return t->name;
  });
}

std::optional<std::string> TopicConfig(const KafkaApisContext& context, const std::string& topic,
                                       const std::string& key) {
  if (context.store == nullptr) return std::nullopt;
  return context.store->Read([&](const controller::MetadataImage& image) -> std::optional<std::string> {
    auto it = image.configs().find({pb::Config::TOPIC, topic});
    if (it == image.configs().end()) return std::nullopt;
    auto value = it->second.find(key);
    if (value == it->second.end()) return std::nullopt;
    return value->second;
  });
}

}  // namespace strata::broker
