#include "broker/handlers/response_errors.h"

#include <vector>

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

// The error_code of every item.
template <typename Item>
void CountEach(const std::vector<Item>& items, ErrorCounts& counts) {
  for (const Item& item : items) CountError(counts, item.error_code);
}

// The error_code of every item nested one level down (a topic's partitions).
template <typename Outer, typename Inner>
void CountNested(const std::vector<Outer>& outers, std::vector<Inner> Outer::*inner, ErrorCounts& counts) {
  for (const Outer& outer : outers) CountEach(outer.*inner, counts);
}

}  // namespace

void CountErrors(const kafka::ProduceResponse& r, ErrorCounts& counts) {
  CountNested(r.responses, &kafka::ProduceResponse::Topic::partition_responses, counts);
}

void CountErrors(const kafka::FetchResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.responses, &kafka::FetchResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::ListOffsetsResponse& r, ErrorCounts& counts) {
  CountNested(r.topics, &kafka::ListOffsetsResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::OffsetForLeaderEpochResponse& r, ErrorCounts& counts) {
  CountNested(r.topics, &kafka::OffsetForLeaderEpochResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::MetadataResponse& r, ErrorCounts& counts) {
  CountEach(r.topics, counts);
  CountNested(r.topics, &kafka::MetadataResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::ApiVersionsResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::InitProducerIdResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::CreateTopicsResponse& r, ErrorCounts& counts) {
  CountEach(r.topics, counts);
  for (const auto& t : r.topics) CountError(counts, t.topic_config_error_code.value_or(0));
}

void CountErrors(const kafka::DeleteTopicsResponse& r, ErrorCounts& counts) { CountEach(r.topics, counts); }

void CountErrors(const kafka::CreatePartitionsResponse& r, ErrorCounts& counts) { CountEach(r.results, counts); }

void CountErrors(const kafka::DescribeConfigsResponse& r, ErrorCounts& counts) { CountEach(r.results, counts); }

void CountErrors(const kafka::AlterConfigsResponse& r, ErrorCounts& counts) { CountEach(r.responses, counts); }
void CountErrors(const kafka::DescribeLogDirsResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountEach(r.results, counts);
}
void CountErrors(const kafka::AlterReplicaLogDirsResponse& r, ErrorCounts& counts) {
  CountNested(r.results, &kafka::AlterReplicaLogDirsResponse::Result::partitions, counts);
}
void CountErrors(const kafka::DeleteRecordsResponse& r, ErrorCounts& counts) {
  CountNested(r.topics, &kafka::DeleteRecordsResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::DescribeClusterResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::ElectLeadersResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.replica_election_results, &kafka::ElectLeadersResponse::ReplicaElectionResult::partition_result,
              counts);
}

void CountErrors(const kafka::DescribeQuorumResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.topics, &kafka::DescribeQuorumResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::AlterPartitionReassignmentsResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.responses, &kafka::AlterPartitionReassignmentsResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::ListPartitionReassignmentsResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
}

void CountErrors(const kafka::UpdateFeaturesResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountEach(r.results, counts);
}

void CountErrors(const kafka::UnregisterBrokerResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }
void CountErrors(const kafka::RaftVoterResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }
void CountErrors(const kafka::UpdateRaftVoterResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::FindCoordinatorResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountEach(r.coordinators, counts);
}

void CountErrors(const kafka::JoinGroupResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::SyncGroupResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::HeartbeatResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::LeaveGroupResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountEach(r.members, counts);
}

void CountErrors(const kafka::OffsetCommitResponse& r, ErrorCounts& counts) {
  CountNested(r.topics, &kafka::OffsetCommitResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::OffsetFetchResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.topics, &kafka::OffsetFetchResponse::Topic::partitions, counts);
  CountEach(r.groups, counts);
  for (const auto& g : r.groups) CountNested(g.topics, &kafka::OffsetFetchResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::OffsetDeleteResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.topics, &kafka::OffsetDeleteResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::ListGroupsResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::DescribeGroupsResponse& r, ErrorCounts& counts) { CountEach(r.groups, counts); }

void CountErrors(const kafka::DeleteGroupsResponse& r, ErrorCounts& counts) { CountEach(r.results, counts); }

void CountErrors(const kafka::ConsumerGroupHeartbeatResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
}

void CountErrors(const kafka::ConsumerGroupDescribeResponse& r, ErrorCounts& counts) { CountEach(r.groups, counts); }

void CountErrors(const kafka::ShareGroupDescribeResponse& r, ErrorCounts& counts) { CountEach(r.groups, counts); }

void CountErrors(const kafka::ShareFetchResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.responses, &kafka::ShareFetchResponse::Topic::partitions, counts);
  for (const auto& t : r.responses) {
    for (const auto& p : t.partitions) CountError(counts, p.acknowledge_error_code);
  }
}

void CountErrors(const kafka::ShareAcknowledgeResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountNested(r.responses, &kafka::ShareAcknowledgeResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::ShareGroupStateResponse& r, ErrorCounts& counts) {
  CountNested(r.results, &kafka::ShareStateTopic::partitions, counts);
}

void CountErrors(const kafka::DescribeShareGroupOffsetsResponse& r, ErrorCounts& counts) {
  CountEach(r.groups, counts);
  for (const auto& g : r.groups) CountNested(g.topics, &kafka::DescribeShareGroupOffsetsResponse::Topic::partitions, counts);
}

void CountErrors(const kafka::ShareGroupOffsetsResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountEach(r.responses, counts);
  CountNested(r.responses, &kafka::ShareGroupOffsetsTopicResult::partitions, counts);
}

void CountErrors(const kafka::SaslHandshakeResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::SaslAuthenticateResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::DescribeUserScramCredentialsResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  CountEach(r.results, counts);
}

void CountErrors(const kafka::AlterUserScramCredentialsResponse& r, ErrorCounts& counts) { CountEach(r.results, counts); }

void CountErrors(const kafka::DescribeAclsResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::DescribeClientQuotasResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::AlterClientQuotasResponse& r, ErrorCounts& counts) { CountEach(r.entries, counts); }

void CountErrors(const kafka::CreateAclsResponse& r, ErrorCounts& counts) { CountEach(r.results, counts); }

void CountErrors(const kafka::DeleteAclsResponse& r, ErrorCounts& counts) {
  CountEach(r.filter_results, counts);
  for (const auto& f : r.filter_results) CountEach(f.matching_acls, counts);
}

void CountErrors(const kafka::AddPartitionsToTxnResponse& r, ErrorCounts& counts) {
  CountError(counts, r.error_code);
  auto topics = [&](const std::vector<kafka::AddPartitionsToTxnResponse::TopicResult>& results) {
    for (const auto& t : results) {
      for (const auto& p : t.results_by_partition) CountError(counts, p.partition_error_code);
    }
  };
  topics(r.results_by_topic_v3_and_below);
  for (const auto& t : r.results_by_transaction) topics(t.topic_results);
}

void CountErrors(const kafka::AddOffsetsToTxnResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::EndTxnResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

void CountErrors(const kafka::WriteTxnMarkersResponse& r, ErrorCounts& counts) {
  for (const auto& m : r.markers) {
    for (const auto& t : m.topics) {
      for (const auto& p : t.partitions) CountError(counts, p.error_code);
    }
  }
}

void CountErrors(const kafka::TxnOffsetCommitResponse& r, ErrorCounts& counts) {
  for (const auto& t : r.topics) {
    for (const auto& p : t.partitions) CountError(counts, p.error_code);
  }
}

void CountErrors(const kafka::DescribeProducersResponse& r, ErrorCounts& counts) {
  for (const auto& t : r.topics) {
    for (const auto& p : t.partitions) CountError(counts, p.error_code);
  }
}

void CountErrors(const kafka::DescribeTransactionsResponse& r, ErrorCounts& counts) {
  for (const auto& s : r.transaction_states) CountError(counts, s.error_code);
}

void CountErrors(const kafka::ListTransactionsResponse& r, ErrorCounts& counts) { CountError(counts, r.error_code); }

}  // namespace strata::broker
