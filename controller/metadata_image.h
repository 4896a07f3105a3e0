#pragma once
// MetadataImage: the cluster metadata as the committed records made it — brokers,
// topics with their partitions and their remote log segments, configs and the
// producer-id block — kept in memory.
// Every controller and broker applies the same records in the same order and so holds
// the same image. Apply() checks that a record fits the image (a partition of a known
// topic, a change to a registered broker of the same epoch, ...); a record that does not
// fit changes nothing and is reported, identically on every node.
// The image also names the storage keys a record touches and encodes each entity, for
// the RocksDB copy (metadata_store.h).
// Not thread-safe: the owner serialises access.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "controller/remote_log_segments.h"
#include "controller/client_quotas_image.h"
#include "controller/security_image.h"
#include "metadata.pb.h"

namespace strata::controller {

namespace pb = strata::metadata::v1;

using TopicId = std::string;  // 16 bytes
using BrokerId = int32_t;

inline constexpr BrokerId kNoLeader = -1;

// Kafka prints topic ids as URL-safe base64 without padding (22 characters).
std::string TopicIdToString(const TopicId& id);

struct TopicState {
  std::string name;
  TopicId id;
  std::map<int32_t, pb::Partition> partitions;
  // The remote tier's copies, by partition (partitions with none are absent).
  std::map<int32_t, RemoteLogSegments> remote_segments;
};

// A config resource: (Config.ResourceType, resource name).
using ConfigResource = std::pair<int, std::string>;

class MetadataImage {
 public:
  // Applies one record at Raft index `index` (RegisterBroker's broker epoch). On an
  // error nothing changed.
  absl::Status Apply(const pb::MetadataRecord& record);

  const std::map<BrokerId, pb::BrokerState>& brokers() const { return brokers_; }
  const std::map<TopicId, TopicState>& topics() const { return topics_; }
  const TopicState* FindTopic(const std::string& name) const;
  const TopicState* FindTopicById(const TopicId& id) const;
  const pb::Partition* FindPartition(const TopicId& id, int32_t partition) const;
  // The partition's copies in the remote tier (null: none).
  const RemoteLogSegments* FindRemoteSegments(const TopicId& id, int32_t partition) const;
  const std::map<ConfigResource, std::map<std::string, std::string>>& configs() const { return configs_; }
  // A setting set on the topic itself (nullopt: not set there; a default applies).
  std::optional<std::string> TopicConfig(const std::string& topic, const std::string& key) const;
  // A setting whose topic and broker names are the same (min.insync.replicas,
  // unclean.leader.election.enable) as the dynamic configs give it on broker broker_id,
  // in Kafka's order: the topic's own, else that broker's dynamic config, else the
  // cluster-wide default (broker ""); broker_id < 0 skips the broker's own. nullopt:
  // none set, the static setting applies.
  std::optional<std::string> DynamicTopicConfig(const std::string& topic, const std::string& key,
                                                int32_t broker_id) const;
  // A broker setting as the dynamic configs give it on broker broker_id: that broker's
  // own, else the cluster-wide default (broker ""); broker_id < 0: the default only.
  // nullopt: neither sets it.
  std::optional<std::string> DynamicBrokerConfig(const std::string& key, int32_t broker_id) const;
  int64_t next_producer_id() const { return producer_ids_.next_producer_id(); }
  // SCRAM credentials (security_image.h).
  const SecurityImage& security() const { return security_; }
  // Client quotas (client_quotas_image.h).
  const ClientQuotasImage& client_quotas() const { return client_quotas_; }
  int64_t partition_count() const { return partition_count_; }
  // The finalized feature levels (FeatureLevel records; a feature absent is at level 0).
  const std::map<std::string, int16_t>& finalized_features() const { return features_; }
  int16_t FeatureLevelOf(const std::string& name) const;
  // Whether an operator set the feature's level (UpdateFeatures; FeatureLevel's
  // set_by_operator), at any level, 0 included: automatic finalization leaves it alone.
  bool FeatureSetByOperator(const std::string& name) const { return operator_features_.count(name) > 0; }

  // Storage: the keys a record touches (before it is applied, so that RemoveTopic can
  // name its partitions), and each key's current value (nullopt: deleted).
  std::vector<std::string> TouchedKeys(const pb::MetadataRecord& record) const;
  std::optional<std::string> Encode(const std::string& key) const;
  // Rebuilds one entity from its stored value (loading from RocksDB).
  absl::Status Load(const std::string& key, const std::string& value);

  // A canonical text of the whole image: equal images give equal strings.
  std::string Dump() const;

 private:
  absl::Status ApplyPartitionChange(const pb::PartitionChange& change);
  absl::Status ApplyRemoteLogStartOffset(const pb::RemoteLogStartOffset& start);

  std::map<BrokerId, pb::BrokerState> brokers_;
  std::map<TopicId, TopicState> topics_;
  std::map<std::string, TopicId> topic_ids_by_name_;
  std::map<ConfigResource, std::map<std::string, std::string>> configs_;
  pb::ProducerIds producer_ids_;
  int64_t partition_count_ = 0;
  std::map<std::string, int16_t> features_;
  std::set<std::string> operator_features_;  // set by UpdateFeatures (a level 0 one too)
  SecurityImage security_;
  ClientQuotasImage client_quotas_;
};

// Whether the replica at replica_index of p (on broker b) can serve: its broker is
// registered, unfenced and not shutting down, and its log dir is online.
bool ReplicaAvailable(const MetadataImage& image, const pb::Partition& p, BrokerId b, int replica_index);
// The log dir a new replica of partition number `partition` on broker b gets: its
// registered dirs that are online, round robin by partition; nullopt when it has none
// (or is not registered).
std::optional<std::string> LogDirFor(const MetadataImage& image, BrokerId b, int32_t partition);
// (The controller elects and admits to an ISR only such replicas; a leader proposes
// only these, so that the controller does not refuse it.)

}  // namespace strata::controller
