#pragma once
// ClusterControl: what the active controller decides, as pure functions from the current
// metadata image and a request to the records that carry it out (or a Kafka error and no
// records). The QuorumController (quorum_controller.h) writes the records through Raft;
// keeping the decisions here lets every rule be tested without a quorum.
// Rules where Kafka's behaviour is the model:
//  * CreateTopics: name rules (topic_name.h), known config keys and values
//    (topic_config.h), partitions and replication factor (or an explicit assignment)
//    placed over unfenced brokers (placement.h); each replica is given one of its
//    broker's online log dirs (round robin by partition).
//  * Fencing, controlled shutdown and offline log dirs take replicas out of ISRs and move
//    leadership (partition_election.h); unclean election only where the topic (or the
//    cluster default) allows it.
//  * AlterPartition from a partition's leader is checked against the leader and
//    partition epochs; a new ISR must hold the leader and only live replicas.
//  * AllocateProducerIds hands out blocks of producer ids in increasing order, never
//    the same id twice (the next id only grows in the image).
//  * AssignReplicasToDirs (KIP-858) records the log dir a broker moved its replica to,
//    one of its registered online dirs; the leader epoch stays.
//  * UnregisterBroker removes any registered broker, fenced or not, as Kafka 4's does.
// Thread-safe (stateless).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "admin.pb.h"
#include "controller.pb.h"
#include "controller/metadata_image.h"
#include "controller/plan.h"

namespace strata::controller {

struct ControllerConfig {
  int32_t default_partitions = 1;           // num.partitions
  int32_t default_replication_factor = 1;   // default.replication.factor
  bool unclean_leader_election = false;     // unclean.leader.election.enable (cluster default)
  bool delete_topic_enable = true;          // delete.topic.enable
  bool remote_storage_system_enable = false;  // remote.log.storage.system.enable
  bool auto_leader_rebalance = true;        // auto.leader.rebalance.enable
  int32_t leader_imbalance_percentage = 10; // leader.imbalance.per.broker.percentage
};

// One topic of a CreateTopics request. taken: names created earlier in the same request.
Plan PlanCreateTopic(const MetadataImage& image, const admin::v1::CreateTopicsRequest::Topic& topic,
                     const ControllerConfig& config, const TopicId& new_id, const std::set<std::string>& taken);
Plan PlanDeleteTopic(const MetadataImage& image, const std::string& name, const ControllerConfig& config);
Plan PlanCreatePartitions(const MetadataImage& image, const admin::v1::CreatePartitionsRequest::Topic& topic);
// A topic's settings are checked one by one and then together, as they will stand
// (remote.storage.enable needs remote.log.storage.system.enable, is refused with
// cleanup.policy=compact, and cannot be turned off once on).
Plan PlanAlterConfigs(const MetadataImage& image, const admin::v1::AlterConfigsRequest::Resource& resource,
                      const ControllerConfig& config = ControllerConfig{});

// ElectLeaders for one partition: ELECTION_NOT_NEEDED when it already has the leader the
// election would give; PREFERRED_LEADER_NOT_AVAILABLE / ELIGIBLE_LEADERS_NOT_AVAILABLE
// when none can be elected; INVALID_REQUEST for a type other than PREFERRED and UNCLEAN.
Plan PlanElectLeader(const MetadataImage& image, const TopicState& topic, const pb::Partition& p,
                     admin::v1::ElectLeadersRequest::ElectionType type);

// auto.leader.rebalance.enable (Kafka's leader imbalance check): a broker's imbalance is
// the share of the partitions it is the preferred leader of (their first replica) that
// it does not lead; for each broker above leader.imbalance.per.broker.percentage, the
// preferred elections that can be made (the preferred replica available and in the ISR).
// No records when nothing is to move.
Plan PlanLeaderRebalance(const MetadataImage& image, const ControllerConfig& config);

// Broker lifecycle. A registration is refused (UNSUPPORTED_VERSION) when the broker
// cannot run a finalized feature level (features.h); it may finalize higher levels
// (FinalizeFeatures, feature_control.h).
Plan PlanRegisterBroker(const MetadataImage& image, const controller::v1::BrokerRegistrationRequest& request,
                        int64_t new_epoch);
// The broker is fenced (missed heartbeats) and its replicas leave ISRs / leaderships.
Plan PlanFenceBroker(const MetadataImage& image, BrokerId broker, const ControllerConfig& config);
// UnregisterBroker (an operator's, kafka-cluster unregister): as Kafka's controller, any
// registered broker, fenced or not: its replicas leave ISRs and leaderships (as when
// fenced), then the UnregisterBroker record removes its registration, so nothing places
// replicas on it or counts it for features. BROKER_ID_NOT_REGISTERED for an unknown id.
// A broker process still running hears BROKER_ID_NOT_REGISTERED at its next heartbeat
// and registers again.
Plan PlanUnregisterBroker(const MetadataImage& image, BrokerId broker, const ControllerConfig& config);
// The broker caught up: unfenced; leaderless partitions it can lead get it back.
Plan PlanUnfenceBroker(const MetadataImage& image, BrokerId broker, const ControllerConfig& config);
// Controlled shutdown: leadership and ISR membership move off the broker.
Plan PlanControlledShutdown(const MetadataImage& image, BrokerId broker, const ControllerConfig& config);
// Log dirs of the broker went offline: replicas there leave ISRs and leaderships.
Plan PlanOfflineLogDirs(const MetadataImage& image, BrokerId broker, const std::vector<std::string>& dirs,
                        const ControllerConfig& config);
// One partition of an AlterPartition request (the leader's new ISR).
Plan PlanAlterPartition(const MetadataImage& image, BrokerId leader,
                        const controller::v1::AlterPartitionRequest::Partition& request);
// One assignment of an AssignReplicasToDirs request (KIP-858): broker `broker` moved its
// replica of the partition to another of its log dirs (AlterReplicaLogDirs) and names
// that dir, so that the dir going offline later takes exactly the replicas it holds. A
// PartitionChange of the partition's directories alone (the partition epoch grows, the
// leader epoch does not: no replica changes, nor the leader); none when the replica is
// recorded there already. A partition without directories gets one per replica, the
// others unknown (empty, as a broker reads a partition without them).
// BROKER_ID_NOT_REGISTERED, UNKNOWN_TOPIC_ID / UNKNOWN_TOPIC_OR_PARTITION,
// NOT_LEADER_OR_FOLLOWER (the broker is not a replica), INVALID_REQUEST (not a 16-byte
// directory id the broker registered), KAFKA_STORAGE_ERROR (a dir it reported offline).
Plan PlanAssignReplicaToDir(const MetadataImage& image, BrokerId broker,
                            const controller::v1::AssignReplicasToDirsRequest::Assignment& a);

// One transition of a remote copy of a segment, from broker `leader`: the record itself
// when the partition's leader and epoch are the request's and the transition follows the
// copy's state (RemoteLogSegments). UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER,
// FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH, or INVALID_REQUEST naming what is wrong.
Plan PlanRemoteLogSegment(const MetadataImage& image, BrokerId leader, const pb::RemoteLogSegment& segment);
// DeleteRecords on a partition with remote storage, from broker `leader`: the record
// when the partition's leader and epoch are the request's and the topic has
// remote.storage.enable; none when the partition's log start is there already.
// UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH /
// UNKNOWN_LEADER_EPOCH, INVALID_REQUEST (a negative offset, no remote storage).
Plan PlanRemoteLogStartOffset(const MetadataImage& image, BrokerId leader, const pb::RemoteLogStartOffset& start);

// Producer ids go to brokers in blocks of this many (Kafka's block size).
inline constexpr int32_t kProducerIdBlockSize = 1000;

// AllocateProducerIds: the next block of producer ids for a registered broker of the
// given epoch (fenced or not: a broker catching up may already serve producers). The
// block starts at the image's next producer id; the one ProducerIds record moves that
// past the block. BROKER_ID_NOT_REGISTERED / STALE_BROKER_EPOCH for an unknown broker or
// another epoch; UNKNOWN_SERVER_ERROR once the ids would pass INT64_MAX.
Plan PlanAllocateProducerIds(const MetadataImage& image, BrokerId broker, int64_t broker_epoch,
                             int32_t block_size = kProducerIdBlockSize);

// The number of partitions each broker leads (for balance figures and tests).
std::map<BrokerId, int> LeaderCounts(const MetadataImage& image);

}  // namespace strata::controller
