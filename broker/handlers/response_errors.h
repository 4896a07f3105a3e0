#pragma once
// The error codes a Kafka response carries, for the request metrics (Kafka's
// ErrorsPerSec counts each one): one CountErrors per response type, adding every
// non-zero error code of the response — top-level, per topic, per partition, per group,
// per member — to `counts` (api_response.h). It reads the response struct, whose
// version-specific fields the handlers fill only for the version they answer.
// AnswerAtOnce / AnswerLater (request_context.h) call it; so do the handlers that build
// their ApiResponse themselves.
// Thread-safe (functions of their arguments).

#include "broker/network/api_response.h"
#include "proto/kafka/alter_configs.h"
#include "proto/kafka/alter_replica_log_dirs.h"
#include "proto/kafka/client_quotas.h"
#include "proto/kafka/consumer_group_describe.h"
#include "proto/kafka/consumer_group_heartbeat.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/create_partitions.h"
#include "proto/kafka/create_topics.h"
#include "proto/kafka/delete_groups.h"
#include "proto/kafka/delete_records.h"
#include "proto/kafka/delete_topics.h"
#include "proto/kafka/describe_cluster.h"
#include "proto/kafka/describe_configs.h"
#include "proto/kafka/describe_log_dirs.h"
#include "proto/kafka/describe_quorum.h"
#include "proto/kafka/describe_groups.h"
#include "proto/kafka/elect_leaders.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/heartbeat.h"
#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/join_group.h"
#include "proto/kafka/leave_group.h"
#include "proto/kafka/list_groups.h"
#include "proto/kafka/list_offsets.h"
#include "proto/kafka/metadata.h"
#include "proto/kafka/offset_commit.h"
#include "proto/kafka/offset_delete.h"
#include "proto/kafka/offset_fetch.h"
#include "proto/kafka/offset_for_leader_epoch.h"
#include "proto/kafka/partition_reassignments.h"
#include "proto/kafka/acls.h"
#include "proto/kafka/add_offsets_to_txn.h"
#include "proto/kafka/add_partitions_to_txn.h"
#include "proto/kafka/describe_producers.h"
#include "proto/kafka/describe_transactions.h"
#include "proto/kafka/end_txn.h"
#include "proto/kafka/list_transactions.h"
#include "proto/kafka/txn_offset_commit.h"
#include "proto/kafka/write_txn_markers.h"
#include "proto/kafka/produce.h"
#include "proto/kafka/sasl.h"
#include "proto/kafka/share_fetch.h"
#include "proto/kafka/share_group_describe.h"
#include "proto/kafka/share_group_offsets.h"
#include "proto/kafka/share_group_state.h"
#include "proto/kafka/scram_credentials.h"
#include "proto/kafka/sync_group.h"
#include "proto/kafka/unregister_broker.h"
#include "proto/kafka/raft_voters.h"
#include "proto/kafka/update_features.h"

namespace strata::broker {

// The data path.
void CountErrors(const proto::kafka::ProduceResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::FetchResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ListOffsetsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::OffsetForLeaderEpochResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::MetadataResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ApiVersionsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::InitProducerIdResponse& response, ErrorCounts& counts);
// The admin APIs.
void CountErrors(const proto::kafka::CreateTopicsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DeleteTopicsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::CreatePartitionsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::AlterConfigsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DeleteRecordsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeLogDirsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::AlterReplicaLogDirsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeConfigsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeClusterResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ElectLeadersResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeQuorumResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::AlterPartitionReassignmentsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ListPartitionReassignmentsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::UpdateFeaturesResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::UnregisterBrokerResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::RaftVoterResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::UpdateRaftVoterResponse& response, ErrorCounts& counts);
// The transaction APIs.
void CountErrors(const proto::kafka::AddPartitionsToTxnResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::AddOffsetsToTxnResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::EndTxnResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::WriteTxnMarkersResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::TxnOffsetCommitResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeProducersResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeTransactionsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ListTransactionsResponse& response, ErrorCounts& counts);
// The group APIs.
void CountErrors(const proto::kafka::FindCoordinatorResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::JoinGroupResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::SyncGroupResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::HeartbeatResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::LeaveGroupResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::OffsetCommitResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::OffsetFetchResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::OffsetDeleteResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ListGroupsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeGroupsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DeleteGroupsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ConsumerGroupHeartbeatResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ConsumerGroupDescribeResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ShareGroupDescribeResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ShareFetchResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ShareAcknowledgeResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ShareGroupStateResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeShareGroupOffsetsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::ShareGroupOffsetsResponse& response, ErrorCounts& counts);
// Security.
void CountErrors(const proto::kafka::SaslHandshakeResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::SaslAuthenticateResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeUserScramCredentialsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::AlterUserScramCredentialsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DescribeAclsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::CreateAclsResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::DeleteAclsResponse& response, ErrorCounts& counts);
// Client quotas.
void CountErrors(const proto::kafka::DescribeClientQuotasResponse& response, ErrorCounts& counts);
void CountErrors(const proto::kafka::AlterClientQuotasResponse& response, ErrorCounts& counts);

}  // namespace strata::broker
