#pragma once
// MetadataDelta: what one applied metadata batch changed, as far as the partitions a
// broker hosts are concerned (Kafka's MetadataDelta / TopicsDelta, reduced to what
// ReplicaManager::ApplyImage needs): the topics and partitions its records name, or
// `full` when it may have changed every partition. Derived from the batch alone, after
// the image applied it. A plain value; not synchronised.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "controller/metadata_image.h"
#include "metadata.pb.h"

namespace strata::broker {

struct MetadataDelta {
  // The partitions of one topic a batch named.
  struct TopicDelta {
    bool all_partitions = false;  // the topic itself (created): every partition
    std::set<int32_t> partitions;  // Partition, PartitionChange, RemoteLogSegment
  };

  // Every hosted partition may have changed, so every one is applied: a broker's
  // registration, fencing, unfencing or registration change (which replicas may join an
  // ISR, the endpoint a follower fetches from), a broker-level or cluster-wide config, a
  // restored snapshot, a record this broker does not know, or no applied image to build
  // on (the first apply, the initial catch-up).
  bool full = false;
  // By topic id: topics created (Topic), and partitions created or changed (Partition,
  // PartitionChange) or whose remote tier changed (RemoteLogSegment).
  std::map<controller::TopicId, TopicDelta> changed_topics;
  // RemoveTopic: no longer in the image, so named by id only.
  std::set<controller::TopicId> deleted_topic_ids;
  // Topics whose configs changed (a topic's Config names it by name): every partition.
  std::set<std::string> changed_topic_configs;

  static MetadataDelta Full();
  // The delta of one applied batch. The metadata store hands its listener an empty batch
  // after a restored snapshot replaced the whole image (controller/metadata_store.h):
  // that one is full.
  static MetadataDelta FromBatch(const metadata::v1::MetadataBatch& batch);

  // Nothing a hosted partition depends on changed (e.g. only ProducerIds).
  bool empty() const {
    return !full && changed_topics.empty() && deleted_topic_ids.empty() && changed_topic_configs.empty();
  }
};

}  // namespace strata::broker
