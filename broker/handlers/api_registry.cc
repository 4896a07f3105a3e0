#include "broker/handlers/api_registry.h"

#include <algorithm>

#include "broker/handlers/api_versions_handler.h"
#include "broker/handlers/create_partitions_handler.h"
#include "broker/handlers/create_topics_handler.h"
#include "broker/handlers/delete_records_handler.h"
#include "broker/handlers/delete_topics_handler.h"
#include "broker/handlers/describe_cluster_handler.h"
#include "broker/handlers/describe_quorum_handler.h"
#include "broker/handlers/delete_groups_handler.h"
#include "broker/handlers/alter_configs_handler.h"
#include "broker/handlers/alter_replica_log_dirs_handler.h"
#include "broker/handlers/describe_configs_handler.h"
#include "broker/handlers/describe_log_dirs_handler.h"
#include "broker/handlers/describe_groups_handler.h"
#include "broker/handlers/elect_leaders_handler.h"
#include "broker/handlers/fetch_handler.h"
#include "broker/handlers/find_coordinator_handler.h"
#include "broker/handlers/heartbeat_handler.h"
#include "broker/handlers/init_producer_id_handler.h"
#include "broker/handlers/join_group_handler.h"
#include "broker/handlers/leave_group_handler.h"
#include "broker/handlers/list_groups_handler.h"
#include "broker/handlers/list_offsets_handler.h"
#include "broker/handlers/metadata_handler.h"
#include "broker/handlers/offset_commit_handler.h"
#include "broker/handlers/offset_delete_handler.h"
#include "broker/handlers/offset_fetch_handler.h"
#include "broker/handlers/offset_for_leader_epoch_handler.h"
#include "broker/handlers/client_quotas_handler.h"
#include "broker/handlers/partition_reassignments_handler.h"
#include "broker/handlers/produce_handler.h"
#include "broker/handlers/acls_handler.h"
#include "broker/handlers/sasl_handlers.h"
#include "broker/handlers/share_group_handlers.h"
#include "broker/handlers/share_group_state_handlers.h"
#include "broker/handlers/scram_credentials_handler.h"
#include "broker/handlers/sync_group_handler.h"
#include "broker/handlers/consumer_group_describe_handler.h"
#include "broker/handlers/consumer_group_heartbeat_handler.h"
#include "broker/handlers/add_offsets_to_txn_handler.h"
#include "broker/handlers/add_partitions_to_txn_handler.h"
#include "broker/handlers/end_txn_handler.h"
#include "broker/handlers/transaction_admin_handlers.h"
#include "broker/handlers/txn_offset_commit_handler.h"
#include "broker/handlers/unregister_broker_handler.h"
#include "broker/handlers/raft_voter_handlers.h"
#include "broker/handlers/update_features_handler.h"
#include "broker/handlers/write_txn_markers_handler.h"
#include "proto/kafka/produce.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/list_offsets.h"

namespace strata::broker {

using proto::kafka::ApiKey;

const std::vector<ApiEntry>& ApiRegistry() {
  static const auto* registry = [] {
    auto* r = new std::vector<ApiEntry>{
        // Produce v0-v2 are advertised and answered UNSUPPORTED_VERSION per partition, as
        // Kafka 4.0 does: newer librdkafka turns compression off when v0 is not advertised.
        {ApiKey::kProduce, proto::kafka::kProduceMinVersion, proto::kafka::kProduceMaxVersion, &HandleProduce},
        {ApiKey::kFetch, proto::kafka::kFetchMinVersion, proto::kafka::kFetchMaxVersion, &HandleFetch},
        {ApiKey::kListOffsets, 1, proto::kafka::kListOffsetsMaxVersion, &HandleListOffsets},
        {ApiKey::kMetadata, 0, 12, &HandleMetadata},
        {ApiKey::kApiVersions, 0, 4, &HandleApiVersions, /*answers_every_version=*/true},
        {ApiKey::kCreateTopics, 2, 7, &HandleCreateTopics},
        {ApiKey::kDeleteTopics, 1, 6, &HandleDeleteTopics},
        {ApiKey::kDeleteRecords, 0, 2, &HandleDeleteRecords},
        {ApiKey::kInitProducerId, 0, 4, &HandleInitProducerId},
        {ApiKey::kOffsetForLeaderEpoch, 2, 4, &HandleOffsetForLeaderEpoch},
        {ApiKey::kDescribeConfigs, 1, 4, &HandleDescribeConfigs},
        {ApiKey::kAlterConfigs, 0, 2, &HandleAlterConfigs},
        {ApiKey::kIncrementalAlterConfigs, 0, 1, &HandleIncrementalAlterConfigs},
        {ApiKey::kDescribeLogDirs, 0, 5, &HandleDescribeLogDirs},
        {ApiKey::kAlterReplicaLogDirs, 0, 2, &HandleAlterReplicaLogDirs},
        {ApiKey::kCreatePartitions, 0, 3, &HandleCreatePartitions},
        {ApiKey::kDescribeCluster, 0, 1, &HandleDescribeCluster},
        {ApiKey::kElectLeaders, 0, 2, &HandleElectLeaders},
        {ApiKey::kAlterPartitionReassignments, 0, 1, &HandleAlterPartitionReassignments},
        {ApiKey::kListPartitionReassignments, 0, 0, &HandleListPartitionReassignments},
        {ApiKey::kDescribeQuorum, 0, 2, &HandleDescribeQuorum},
        {ApiKey::kDescribeClientQuotas, 0, 1, &HandleDescribeClientQuotas},
        {ApiKey::kAlterClientQuotas, 0, 1, &HandleAlterClientQuotas},
        {ApiKey::kUpdateFeatures, 0, 2, &HandleUpdateFeatures},
        {ApiKey::kUnregisterBroker, 0, 0, &HandleUnregisterBroker},
        // A dynamic quorum's voters (KIP-853), forwarded to the active controller.
        {ApiKey::kAddRaftVoter, 0, 1, &HandleAddRaftVoter},
        {ApiKey::kRemoveRaftVoter, 0, 0, &HandleRemoveRaftVoter},
        {ApiKey::kUpdateRaftVoter, 0, 0, &HandleUpdateRaftVoter},
        // The classic consumer-group protocol (group_coordinator.h).
        {ApiKey::kOffsetCommit, 0, 9, &HandleOffsetCommit},
        {ApiKey::kOffsetFetch, 0, 9, &HandleOffsetFetch},
        {ApiKey::kFindCoordinator, 0, 6, &HandleFindCoordinator},
        {ApiKey::kJoinGroup, 0, 9, &HandleJoinGroup},
        {ApiKey::kHeartbeat, 0, 4, &HandleHeartbeat},
        {ApiKey::kLeaveGroup, 0, 5, &HandleLeaveGroup},
        {ApiKey::kSyncGroup, 0, 5, &HandleSyncGroup},
        {ApiKey::kDescribeGroups, 0, 5, &HandleDescribeGroups},
        {ApiKey::kListGroups, 0, 5, &HandleListGroups},
        {ApiKey::kDeleteGroups, 0, 2, &HandleDeleteGroups},
        {ApiKey::kOffsetDelete, 0, 0, &HandleOffsetDelete},
        // KIP-848 consumer groups (docs/consumer-groups.md).
        {ApiKey::kConsumerGroupHeartbeat, 0, 1, &HandleConsumerGroupHeartbeat},
        {ApiKey::kConsumerGroupDescribe, 0, 1, &HandleConsumerGroupDescribe},
        // KIP-932 share groups: membership (docs/groups-plan.md step 5; ShareFetch and
        // ShareAcknowledge are not served yet).
        {ApiKey::kShareGroupHeartbeat, 1, 1, &HandleShareGroupHeartbeat},
        {ApiKey::kShareGroupDescribe, 1, 1, &HandleShareGroupDescribe},
        // KIP-932's share coordinator, between brokers (broker/share/share_coordinator.h).
        {ApiKey::kInitializeShareGroupState, 0, 0, &HandleInitializeShareGroupState},
        {ApiKey::kReadShareGroupState, 0, 0, &HandleReadShareGroupState},
        {ApiKey::kWriteShareGroupState, 0, 1, &HandleWriteShareGroupState},
        {ApiKey::kDeleteShareGroupState, 0, 0, &HandleDeleteShareGroupState},
        {ApiKey::kReadShareGroupStateSummary, 0, 1, &HandleReadShareGroupStateSummary},
        // Transactions (docs/transactions.md).
        {ApiKey::kAddPartitionsToTxn, 0, 5, &HandleAddPartitionsToTxn},
        {ApiKey::kAddOffsetsToTxn, 0, 4, &HandleAddOffsetsToTxn},
        {ApiKey::kEndTxn, 0, 5, &HandleEndTxn},
        {ApiKey::kWriteTxnMarkers, 0, 1, &HandleWriteTxnMarkers},
        {ApiKey::kTxnOffsetCommit, 0, 5, &HandleTxnOffsetCommit},
        {ApiKey::kDescribeProducers, 0, 0, &HandleDescribeProducers},
        {ApiKey::kDescribeTransactions, 0, 0, &HandleDescribeTransactions},
        {ApiKey::kListTransactions, 0, 1, &HandleListTransactions},
        // Security (docs/security.md).
        {ApiKey::kSaslHandshake, 0, 1, &HandleSaslHandshake},
        {ApiKey::kSaslAuthenticate, 0, 2, &HandleSaslAuthenticate},
        {ApiKey::kDescribeUserScramCredentials, 0, 0, &HandleDescribeUserScramCredentials},
        {ApiKey::kAlterUserScramCredentials, 0, 0, &HandleAlterUserScramCredentials},
        {ApiKey::kDescribeAcls, 0, 3, &HandleDescribeAcls},
        {ApiKey::kCreateAcls, 0, 3, &HandleCreateAcls},
        {ApiKey::kDeleteAcls, 0, 3, &HandleDeleteAcls},
    };
    std::sort(r->begin(), r->end(), [](const ApiEntry& a, const ApiEntry& b) { return a.key < b.key; });
    return r;
  }();
  return *registry;
}

const ApiEntry* FindApi(int16_t api_key) {
  for (const ApiEntry& entry : ApiRegistry()) {
    if (static_cast<int16_t>(entry.key) == api_key) return &entry;
  }
  return nullptr;
}

const std::vector<proto::kafka::ApiVersionRange>& AdvertisedApis() {
  static const auto* advertised = [] {
    auto* ranges = new std::vector<proto::kafka::ApiVersionRange>;
    for (const ApiEntry& entry : ApiRegistry()) {
      ranges->push_back({static_cast<int16_t>(entry.key), entry.min_version, entry.max_version});
    }
    return ranges;
  }();
  return *advertised;
}

}  // namespace strata::broker
