#include "broker/handlers/partition_lookup.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "broker/common/kafka_error.h"
#include "broker/replication/replica_manager.h"

namespace strata::broker {

namespace kafka = proto::kafka;
namespace pb = metadata::v1;

absl::StatusOr<std::shared_ptr<Partition>> LookupPartition(const KafkaApisContext& context, const std::string& topic,
                                                           int32_t partition) {
  // Hosted: the image named it here when it was applied (the common case, one lookup).
  if (std::shared_ptr<Partition> hosted = context.replicas.GetPartition({topic, partition})) return hosted;
  bool exists = false;
  bool replica_here = false;
  context.store.WithImage([&](const controller::MetadataImage& image) {
    const controller::TopicState* t = image.FindTopic(topic);
    if (t == nullptr) return;
    auto p = t->partitions.find(partition);
    if (p == t->partitions.end()) return;
    exists = true;
    for (int32_t r : p->second.replicas()) replica_here = replica_here || r == context.broker_id;
  });
  if (!exists) {
    return KafkaError(kafka::ErrorCode::kUnknownTopicOrPartition,
                      absl::StrCat("this server does not host partition ", partition, " of topic '", topic, "'"));
  }
  std::shared_ptr<Partition> p = context.replicas.GetPartition({topic, partition});
  // The image is published before the ReplicaManager applies it (milliseconds): a
  // client that saw a new partition in Metadata may ask before its log is open here.
  // Wait for that (bounded) rather than answer an error the client did nothing to earn.
  // A broker that has not caught up with the metadata log since it started hosts
  // nothing yet (its image may be stale): it answers at once.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (p == nullptr && replica_here && context.replicas.following_image() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    p = context.replicas.GetPartition({topic, partition});
  }
  if (p == nullptr) {
    return KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", context.broker_id, " is not a replica of ", topic, "-", partition));
  }
  return p;
}

std::optional<std::string> TopicNameForId(const KafkaApisContext& context, const std::string& topic_id) {
  return context.store.WithImage([&](const controller::MetadataImage& image) -> std::optional<std::string> {
    const controller::TopicState* t = image.FindTopicById(topic_id);
    if (t == nullptr) return std::nullopt;
    return t->name;
  });
}

std::optional<std::string> DynamicTopicConfig(const KafkaApisContext& context, const std::string& topic,
                                              const std::string& key) {
  return context.store.WithImage([&](const controller::MetadataImage& image) {
    return image.DynamicTopicConfig(topic, key, context.broker_id);
  });
}

}  // namespace strata::broker
