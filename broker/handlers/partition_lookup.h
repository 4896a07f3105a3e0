#pragma once
// The partition a data request names, or the error its client should see: a topic or
// partition the image does not know is UNKNOWN_TOPIC_OR_PARTITION (a client refreshes
// its metadata and may wait for the topic); one that exists but that this broker does
// not host or lead is NOT_LEADER_OR_FOLLOWER (the client goes to the leader). Topic
// ids (Fetch v13) resolve through the image. A partition the ReplicaManager hosts is
// answered from there alone (the image named it here when it was applied): the image is
// read only for the others.
// Thread-safe.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "broker/handlers/request_context.h"
#include "broker/replication/partition.h"

namespace strata::broker {

absl::StatusOr<std::shared_ptr<Partition>> LookupPartition(const KafkaApisContext& context, const std::string& topic,
                                                           int32_t partition);
std::optional<std::string> TopicNameForId(const KafkaApisContext& context, const std::string& topic_id);
// A topic config from the image, else this broker's dynamic config of that name, else
// the cluster-wide default (MetadataImage::DynamicTopicConfig; nullopt: none set, the
// static setting applies).
std::optional<std::string> DynamicTopicConfig(const KafkaApisContext& context, const std::string& topic,
                                              const std::string& key);

}  // namespace strata::broker
