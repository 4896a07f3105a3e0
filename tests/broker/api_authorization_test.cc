// Every Kafka API that authorizes, as a table run through the broker's dispatch
// (KafkaApis with a StandardAuthorizer, real broker services): for each API the operation
// and resource it needs, and the error a refusal answers; each against no ACL, the ALLOW
// it needs, a DENY over that ALLOW, a PREFIXED allow, a wildcard allow, an ALLOW for
// another host, an ALLOW of another operation, a super user, and
// allow.everyone.if.no.acl.found. "Allowed" means the answer is not the refusal (the
// services have no topic, group coordinator or controller, so an allowed request meets
// those errors instead).

#include <gtest/gtest.h>

#include <functional>

#include "broker/handlers/kafka_apis.h"
#include "proto/kafka/acls.h"
#include "proto/kafka/alter_replica_log_dirs.h"
#include "proto/kafka/client_quotas.h"
#include "proto/kafka/api.h"
#include "proto/kafka/create_partitions.h"
#include "proto/kafka/create_topics.h"
#include "proto/kafka/delete_groups.h"
#include "proto/kafka/delete_records.h"
#include "proto/kafka/delete_topics.h"
#include "proto/kafka/describe_cluster.h"
#include "proto/kafka/describe_configs.h"
#include "proto/kafka/describe_log_dirs.h"
#include "proto/kafka/describe_groups.h"
#include "proto/kafka/describe_quorum.h"
#include "proto/kafka/elect_leaders.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/heartbeat.h"
#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/join_group.h"
#include "proto/kafka/leave_group.h"
#include "proto/kafka/list_offsets.h"
#include "proto/kafka/metadata.h"
#include "proto/kafka/offset_commit.h"
#include "proto/kafka/offset_delete.h"
#include "proto/kafka/offset_fetch.h"
#include "proto/kafka/offset_for_leader_epoch.h"
#include "proto/kafka/partition_reassignments.h"
#include "proto/kafka/produce.h"
#include "proto/kafka/scram_credentials.h"
#include "proto/kafka/sync_group.h"
#include "proto/kafka/unregister_broker.h"
#include "proto/kafka/update_features.h"
#include "security/standard_authorizer.h"
#include "tests/support/broker_services.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using kafka::ApiKey;
using kafka::ErrorCode;
using security::AclOperation;
using security::ResourceType;

struct ApiCase {
  std::string name;
  ApiKey key;
  int16_t version;
  std::string body;
  // The error code the authorization decides, from the response body.
  std::function<int16_t(kafka::Reader&)> error;
  AclOperation operation;
  ResourceType type;
  std::string resource;
  ErrorCode refusal;
};

template <typename Request, typename Response>
ApiCase Case(std::string name, ApiKey key, int16_t version, const Request& request,
             void (*write)(const Request&, int16_t, kafka::Writer&),
             absl::StatusOr<Response> (*read)(kafka::Reader&, int16_t), std::function<int16_t(const Response&)> error,
             AclOperation operation, ResourceType type, std::string resource, ErrorCode refusal) {
  std::string body;
  kafka::Writer w(&body);
  write(request, version, w);
  return ApiCase{std::move(name),
                 key,
                 version,
                 std::move(body),
                 [read, version, error](kafka::Reader& r) -> int16_t {
                   auto response = read(r, version);
                   EXPECT_TRUE(response.ok()) << response.status();
                   return response.ok() ? error(*response) : int16_t{-100};
                 },
                 operation,
                 type,
                 std::move(resource),
                 refusal};
}

std::vector<ApiCase> Cases() {
  using Op = AclOperation;
  using RT = ResourceType;
  const std::string cluster = security::kClusterResourceName;
  std::vector<ApiCase> cases;
  {
    kafka::ProduceRequest r;
    r.topic_data.push_back({"orders", {{0, std::nullopt}}});
    cases.push_back(Case<kafka::ProduceRequest, kafka::ProduceResponse>(
        "Produce", ApiKey::kProduce, 9, r, kafka::WriteProduceRequest, kafka::ReadProduceResponse,
        [](const auto& x) { return x.responses.at(0).partition_responses.at(0).error_code; }, Op::kWrite, RT::kTopic,
        "orders", ErrorCode::kTopicAuthorizationFailed));
  }
  for (int32_t replica : {-1, 2}) {
    kafka::FetchRequest r;
    r.replica_id = replica;
    r.topics.push_back({"orders", std::string(16, '\0'), {{0, -1, 0, -1, -1, 1 << 20}}});
    cases.push_back(Case<kafka::FetchRequest, kafka::FetchResponse>(
        replica < 0 ? "Fetch (consumer)" : "Fetch (follower)", ApiKey::kFetch, 12, r, kafka::WriteFetchRequest,
        kafka::ReadFetchResponse, [](const auto& x) { return x.responses.at(0).partitions.at(0).error_code; },
        replica < 0 ? Op::kRead : Op::kClusterAction, replica < 0 ? RT::kTopic : RT::kCluster,
        replica < 0 ? "orders" : cluster, ErrorCode::kTopicAuthorizationFailed));
  }
  {
    kafka::ListOffsetsRequest r;
    r.topics.push_back({"orders", {{0, -1, -1}}});
    cases.push_back(Case<kafka::ListOffsetsRequest, kafka::ListOffsetsResponse>(
        "ListOffsets", ApiKey::kListOffsets, 7, r, kafka::WriteListOffsetsRequest, kafka::ReadListOffsetsResponse,
        [](const auto& x) { return x.topics.at(0).partitions.at(0).error_code; }, Op::kDescribe, RT::kTopic, "orders",
        ErrorCode::kTopicAuthorizationFailed));
  }
  {
    kafka::MetadataRequest r;
    r.topics.emplace();
    r.topics->push_back({std::string(16, '\0'), "orders"});
    r.allow_auto_topic_creation = false;
    cases.push_back(Case<kafka::MetadataRequest, kafka::MetadataResponse>(
        "Metadata", ApiKey::kMetadata, 12, r, kafka::WriteMetadataRequest, kafka::ReadMetadataResponse,
        [](const auto& x) { return x.topics.at(0).error_code; }, Op::kDescribe, RT::kTopic, "orders",
        ErrorCode::kTopicAuthorizationFailed));
  }
  for (int32_t replica : {-1, 2}) {
    kafka::OffsetForLeaderEpochRequest r;
    r.replica_id = replica;
    r.topics.push_back({"orders", {{0, -1, 0}}});
    cases.push_back(Case<kafka::OffsetForLeaderEpochRequest, kafka::OffsetForLeaderEpochResponse>(
        replica < 0 ? "OffsetForLeaderEpoch (consumer)" : "OffsetForLeaderEpoch (follower)",
        ApiKey::kOffsetForLeaderEpoch, 4, r, kafka::WriteOffsetForLeaderEpochRequest,
        kafka::ReadOffsetForLeaderEpochResponse, [](const auto& x) { return x.topics.at(0).partitions.at(0).error_code; },
        replica < 0 ? Op::kDescribe : Op::kClusterAction, replica < 0 ? RT::kTopic : RT::kCluster,
        replica < 0 ? "orders" : cluster, ErrorCode::kTopicAuthorizationFailed));
  }
  {
    kafka::CreateTopicsRequest r;
    r.topics.push_back({"orders", 1, 1, {}, {}});
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(
        "CreateTopics", ApiKey::kCreateTopics, 7, r, kafka::WriteCreateTopicsRequest, kafka::ReadCreateTopicsResponse,
        [](const auto& x) { return x.topics.at(0).error_code; }, Op::kCreate, RT::kTopic, "orders",
        ErrorCode::kTopicAuthorizationFailed));
  }
  {
    kafka::DeleteTopicsRequest r;
    r.topics.push_back({"orders", std::string(16, '\0')});
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::DeleteTopicsRequest, kafka::DeleteTopicsResponse>(
        "DeleteTopics", ApiKey::kDeleteTopics, 6, r, kafka::WriteDeleteTopicsRequest, kafka::ReadDeleteTopicsResponse,
        [](const auto& x) { return x.topics.at(0).error_code; }, Op::kDelete, RT::kTopic, "orders",
        ErrorCode::kTopicAuthorizationFailed));
  }
  {
    kafka::DeleteRecordsRequest r;
    r.topics.push_back({"orders", {{0, 1}}});
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::DeleteRecordsRequest, kafka::DeleteRecordsResponse>(
        "DeleteRecords", ApiKey::kDeleteRecords, 2, r, kafka::WriteDeleteRecordsRequest,
        kafka::ReadDeleteRecordsResponse, [](const auto& x) { return x.topics.at(0).partitions.at(0).error_code; },
        Op::kDelete, RT::kTopic, "orders", ErrorCode::kTopicAuthorizationFailed));
  }
  {
    kafka::CreatePartitionsRequest r;
    r.topics.push_back({"orders", 4, std::nullopt});
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::CreatePartitionsRequest, kafka::CreatePartitionsResponse>(
        "CreatePartitions", ApiKey::kCreatePartitions, 3, r, kafka::WriteCreatePartitionsRequest,
        kafka::ReadCreatePartitionsResponse, [](const auto& x) { return x.results.at(0).error_code; }, Op::kAlter,
        RT::kTopic, "orders", ErrorCode::kTopicAuthorizationFailed));
  }
  for (bool topic : {true, false}) {
    kafka::DescribeConfigsRequest r;
    r.resources.push_back({static_cast<int8_t>(topic ? 2 : 4), topic ? "orders" : "", std::nullopt});
    cases.push_back(Case<kafka::DescribeConfigsRequest, kafka::DescribeConfigsResponse>(
        topic ? "DescribeConfigs (topic)" : "DescribeConfigs (broker)", ApiKey::kDescribeConfigs, 4, r,
        kafka::WriteDescribeConfigsRequest, kafka::ReadDescribeConfigsResponse,
        [](const auto& x) { return x.results.at(0).error_code; }, Op::kDescribeConfigs, topic ? RT::kTopic : RT::kCluster,
        topic ? "orders" : cluster,
        topic ? ErrorCode::kTopicAuthorizationFailed : ErrorCode::kClusterAuthorizationFailed));
  }
  for (bool topic : {true, false}) {
    constexpr int16_t kIncremental = static_cast<int16_t>(ApiKey::kIncrementalAlterConfigs);
    kafka::AlterConfigsRequest r;
    r.resources.push_back(
        {static_cast<int8_t>(topic ? 2 : 4), topic ? "orders" : "", {{"retention.ms", 0, std::string("1000")}}});
    r.validate_only = true;
    cases.push_back(Case<kafka::AlterConfigsRequest, kafka::AlterConfigsResponse>(
        topic ? "IncrementalAlterConfigs (topic)" : "IncrementalAlterConfigs (broker)",
        ApiKey::kIncrementalAlterConfigs, 1, r,
        +[](const kafka::AlterConfigsRequest& q, int16_t v, kafka::Writer& w) {
          kafka::WriteAlterConfigsRequest(q, kIncremental, v, w);
        },
        +[](kafka::Reader& rd, int16_t v) { return kafka::ReadAlterConfigsResponse(rd, kIncremental, v); },
        [](const auto& x) { return x.responses.at(0).error_code; }, Op::kAlterConfigs,
        topic ? RT::kTopic : RT::kCluster, topic ? "orders" : cluster,
        topic ? ErrorCode::kTopicAuthorizationFailed : ErrorCode::kClusterAuthorizationFailed));
  }
  cases.push_back(Case<kafka::DescribeLogDirsRequest, kafka::DescribeLogDirsResponse>(
      "DescribeLogDirs", ApiKey::kDescribeLogDirs, 4, kafka::DescribeLogDirsRequest{},
      kafka::WriteDescribeLogDirsRequest, kafka::ReadDescribeLogDirsResponse, [](const auto& x) { return x.error_code; },
      Op::kDescribe, RT::kCluster, cluster, ErrorCode::kClusterAuthorizationFailed));
  {
    // Allowed: the ReplicaManager answers LOG_DIR_NOT_FOUND (no such log dir here).
    kafka::AlterReplicaLogDirsRequest r;
    r.dirs.push_back({"/nonexistent/log-dir", {{"orders", {0}}}});
    cases.push_back(Case<kafka::AlterReplicaLogDirsRequest, kafka::AlterReplicaLogDirsResponse>(
        "AlterReplicaLogDirs", ApiKey::kAlterReplicaLogDirs, 2, r, kafka::WriteAlterReplicaLogDirsRequest,
        kafka::ReadAlterReplicaLogDirsResponse,
        [](const auto& x) { return x.results.at(0).partitions.at(0).error_code; }, Op::kAlter, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  {
    kafka::AlterPartitionReassignmentsRequest r;
    r.topics.push_back({"orders", {{0, std::nullopt}}});
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::AlterPartitionReassignmentsRequest, kafka::AlterPartitionReassignmentsResponse>(
        "AlterPartitionReassignments", ApiKey::kAlterPartitionReassignments, 1, r,
        kafka::WriteAlterPartitionReassignmentsRequest, kafka::ReadAlterPartitionReassignmentsResponse,
        [](const auto& x) { return x.responses.at(0).partitions.at(0).error_code; }, Op::kAlter, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  {
    kafka::ListPartitionReassignmentsRequest r;
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::ListPartitionReassignmentsRequest, kafka::ListPartitionReassignmentsResponse>(
        "ListPartitionReassignments", ApiKey::kListPartitionReassignments, 0, r,
        kafka::WriteListPartitionReassignmentsRequest, kafka::ReadListPartitionReassignmentsResponse,
        [](const auto& x) { return x.error_code; }, Op::kDescribe, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  cases.push_back(Case<kafka::DescribeClusterRequest, kafka::DescribeClusterResponse>(
      "DescribeCluster", ApiKey::kDescribeCluster, 1, kafka::DescribeClusterRequest{}, kafka::WriteDescribeClusterRequest,
      kafka::ReadDescribeClusterResponse, [](const auto& x) { return x.error_code; }, Op::kDescribe, RT::kCluster,
      cluster, ErrorCode::kClusterAuthorizationFailed));
  {
    kafka::ElectLeadersRequest r;
    r.topic_partitions.emplace();
    r.topic_partitions->push_back({"orders", {0}});
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::ElectLeadersRequest, kafka::ElectLeadersResponse>(
        "ElectLeaders", ApiKey::kElectLeaders, 2, r, kafka::WriteElectLeadersRequest, kafka::ReadElectLeadersResponse,
        [](const auto& x) { return x.error_code; }, Op::kAlter, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  {
    kafka::DescribeQuorumRequest r;
    r.topics.push_back({kafka::kClusterMetadataTopic, {0}});
    cases.push_back(Case<kafka::DescribeQuorumRequest, kafka::DescribeQuorumResponse>(
        "DescribeQuorum", ApiKey::kDescribeQuorum, 2, r, kafka::WriteDescribeQuorumRequest,
        kafka::ReadDescribeQuorumResponse, [](const auto& x) { return x.error_code; }, Op::kDescribe, RT::kCluster,
        cluster, ErrorCode::kClusterAuthorizationFailed));
  }
  {
    // Allowed: no controller answers (REQUEST_TIMED_OUT).
    kafka::UpdateFeaturesRequest r;
    r.feature_updates.push_back({"transaction.version", 2, false, 1});
    r.validate_only = true;
    r.timeout_ms = 1;
    cases.push_back(Case<kafka::UpdateFeaturesRequest, kafka::UpdateFeaturesResponse>(
        "UpdateFeatures", ApiKey::kUpdateFeatures, 2, r, kafka::WriteUpdateFeaturesRequest,
        kafka::ReadUpdateFeaturesResponse, [](const auto& x) { return x.error_code; }, Op::kAlter, RT::kCluster,
        cluster, ErrorCode::kClusterAuthorizationFailed));
  }
  cases.push_back(Case<kafka::UnregisterBrokerRequest, kafka::UnregisterBrokerResponse>(
      "UnregisterBroker", ApiKey::kUnregisterBroker, 0, kafka::UnregisterBrokerRequest{9},
      kafka::WriteUnregisterBrokerRequest, kafka::ReadUnregisterBrokerResponse, [](const auto& x) { return x.error_code; },
      Op::kAlter, RT::kCluster, cluster, ErrorCode::kClusterAuthorizationFailed));
  cases.push_back(Case<kafka::InitProducerIdRequest, kafka::InitProducerIdResponse>(
      "InitProducerId", ApiKey::kInitProducerId, 4, kafka::InitProducerIdRequest{}, kafka::WriteInitProducerIdRequest,
      kafka::ReadInitProducerIdResponse, [](const auto& x) { return x.error_code; }, Op::kIdempotentWrite,
      RT::kCluster, cluster, ErrorCode::kClusterAuthorizationFailed));
  {
    kafka::FindCoordinatorRequest r;
    r.coordinator_keys = {"g1"};
    cases.push_back(Case<kafka::FindCoordinatorRequest, kafka::FindCoordinatorResponse>(
        "FindCoordinator", ApiKey::kFindCoordinator, 4, r, kafka::WriteFindCoordinatorRequest,
        kafka::ReadFindCoordinatorResponse, [](const auto& x) { return x.coordinators.at(0).error_code; },
        Op::kDescribe, RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  }
  {
    kafka::JoinGroupRequest r;
    r.group_id = "g1";
    r.session_timeout_ms = 10000;
    r.protocol_type = "consumer";
    r.protocols.push_back({"range", ""});
    cases.push_back(Case<kafka::JoinGroupRequest, kafka::JoinGroupResponse>(
        "JoinGroup", ApiKey::kJoinGroup, 9, r, kafka::WriteJoinGroupRequest, kafka::ReadJoinGroupResponse,
        [](const auto& x) { return x.error_code; }, Op::kRead, RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  }
  {
    kafka::SyncGroupRequest r;
    r.group_id = "g1";
    r.member_id = "m";
    cases.push_back(Case<kafka::SyncGroupRequest, kafka::SyncGroupResponse>(
        "SyncGroup", ApiKey::kSyncGroup, 5, r, kafka::WriteSyncGroupRequest, kafka::ReadSyncGroupResponse,
        [](const auto& x) { return x.error_code; }, Op::kRead, RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  }
  cases.push_back(Case<kafka::HeartbeatRequest, kafka::HeartbeatResponse>(
      "Heartbeat", ApiKey::kHeartbeat, 4, kafka::HeartbeatRequest{"g1", 1, "m", std::nullopt},
      kafka::WriteHeartbeatRequest, kafka::ReadHeartbeatResponse, [](const auto& x) { return x.error_code; },
      Op::kRead, RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  {
    kafka::LeaveGroupRequest r;
    r.group_id = "g1";
    r.members.push_back({"m", std::nullopt, std::nullopt});
    cases.push_back(Case<kafka::LeaveGroupRequest, kafka::LeaveGroupResponse>(
        "LeaveGroup", ApiKey::kLeaveGroup, 5, r, kafka::WriteLeaveGroupRequest, kafka::ReadLeaveGroupResponse,
        [](const auto& x) { return x.error_code; }, Op::kRead, RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  }
  {
    kafka::OffsetCommitRequest r;
    r.group_id = "g1";
    r.topics.push_back({"orders", {{0, 5, -1, -1, std::nullopt}}});
    cases.push_back(Case<kafka::OffsetCommitRequest, kafka::OffsetCommitResponse>(
        "OffsetCommit", ApiKey::kOffsetCommit, 8, r, kafka::WriteOffsetCommitRequest, kafka::ReadOffsetCommitResponse,
        [](const auto& x) { return x.topics.at(0).partitions.at(0).error_code; }, Op::kRead, RT::kGroup, "g1",
        ErrorCode::kGroupAuthorizationFailed));
  }
  {
    kafka::OffsetFetchRequest r;
    kafka::OffsetFetchRequest::Group g;
    g.group_id = "g1";
    g.topics = std::vector<kafka::OffsetFetchRequest::Topic>{{"orders", {0}}};
    r.groups.push_back(g);
    cases.push_back(Case<kafka::OffsetFetchRequest, kafka::OffsetFetchResponse>(
        "OffsetFetch", ApiKey::kOffsetFetch, 8, r, kafka::WriteOffsetFetchRequest, kafka::ReadOffsetFetchResponse,
        [](const auto& x) { return x.groups.at(0).error_code; }, Op::kDescribe, RT::kGroup, "g1",
        ErrorCode::kGroupAuthorizationFailed));
  }
  cases.push_back(Case<kafka::DescribeGroupsRequest, kafka::DescribeGroupsResponse>(
      "DescribeGroups", ApiKey::kDescribeGroups, 5, kafka::DescribeGroupsRequest{{"g1"}, false},
      kafka::WriteDescribeGroupsRequest, kafka::ReadDescribeGroupsResponse,
      [](const auto& x) { return x.groups.at(0).error_code; }, Op::kDescribe, RT::kGroup, "g1",
      ErrorCode::kGroupAuthorizationFailed));
  cases.push_back(Case<kafka::DeleteGroupsRequest, kafka::DeleteGroupsResponse>(
      "DeleteGroups", ApiKey::kDeleteGroups, 2, kafka::DeleteGroupsRequest{{"g1"}}, kafka::WriteDeleteGroupsRequest,
      kafka::ReadDeleteGroupsResponse, [](const auto& x) { return x.results.at(0).error_code; }, Op::kDelete,
      RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  {
    kafka::OffsetDeleteRequest r;
    r.group_id = "g1";
    r.topics.push_back({"orders", {{0}}});
    cases.push_back(Case<kafka::OffsetDeleteRequest, kafka::OffsetDeleteResponse>(
        "OffsetDelete", ApiKey::kOffsetDelete, 0, r, kafka::WriteOffsetDeleteRequest, kafka::ReadOffsetDeleteResponse,
        [](const auto& x) { return x.error_code; }, Op::kDelete, RT::kGroup, "g1", ErrorCode::kGroupAuthorizationFailed));
  }
  cases.push_back(Case<kafka::DescribeUserScramCredentialsRequest, kafka::DescribeUserScramCredentialsResponse>(
      "DescribeUserScramCredentials", ApiKey::kDescribeUserScramCredentials, 0,
      kafka::DescribeUserScramCredentialsRequest{}, kafka::WriteDescribeUserScramCredentialsRequest,
      kafka::ReadDescribeUserScramCredentialsResponse, [](const auto& x) { return x.error_code; }, Op::kDescribe,
      RT::kCluster, cluster, ErrorCode::kClusterAuthorizationFailed));
  {
    kafka::AlterUserScramCredentialsRequest r;
    r.deletions.push_back({"bob", 1});
    cases.push_back(Case<kafka::AlterUserScramCredentialsRequest, kafka::AlterUserScramCredentialsResponse>(
        "AlterUserScramCredentials", ApiKey::kAlterUserScramCredentials, 0, r,
        kafka::WriteAlterUserScramCredentialsRequest, kafka::ReadAlterUserScramCredentialsResponse,
        [](const auto& x) { return x.results.at(0).error_code; }, Op::kAlter, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  cases.push_back(Case<kafka::DescribeClientQuotasRequest, kafka::DescribeClientQuotasResponse>(
      "DescribeClientQuotas", ApiKey::kDescribeClientQuotas, 1, kafka::DescribeClientQuotasRequest{},
      kafka::WriteDescribeClientQuotasRequest, kafka::ReadDescribeClientQuotasResponse,
      [](const auto& x) { return x.error_code; }, Op::kDescribeConfigs, RT::kCluster, cluster,
      ErrorCode::kClusterAuthorizationFailed));
  {
    kafka::AlterClientQuotasRequest r;
    r.entries.push_back({{{"user", std::string("bob")}}, {{"producer_byte_rate", 1024, false}}});
    cases.push_back(Case<kafka::AlterClientQuotasRequest, kafka::AlterClientQuotasResponse>(
        "AlterClientQuotas", ApiKey::kAlterClientQuotas, 1, r, kafka::WriteAlterClientQuotasRequest,
        kafka::ReadAlterClientQuotasResponse, [](const auto& x) { return x.entries.at(0).error_code; },
        Op::kAlterConfigs, RT::kCluster, cluster, ErrorCode::kClusterAuthorizationFailed));
  }
  cases.push_back(Case<kafka::DescribeAclsRequest, kafka::DescribeAclsResponse>(
      "DescribeAcls", ApiKey::kDescribeAcls, 3, kafka::DescribeAclsRequest{}, kafka::WriteDescribeAclsRequest,
      kafka::ReadDescribeAclsResponse, [](const auto& x) { return x.error_code; }, Op::kDescribe, RT::kCluster, cluster,
      ErrorCode::kClusterAuthorizationFailed));
  {
    kafka::CreateAclsRequest r;
    r.creations.push_back({2, "orders", 3, "User:bob", "*", 3, 3});
    cases.push_back(Case<kafka::CreateAclsRequest, kafka::CreateAclsResponse>(
        "CreateAcls", ApiKey::kCreateAcls, 3, r, kafka::WriteCreateAclsRequest, kafka::ReadCreateAclsResponse,
        [](const auto& x) { return x.results.at(0).error_code; }, Op::kAlter, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  {
    kafka::DeleteAclsRequest r;
    r.filters.push_back({});
    cases.push_back(Case<kafka::DeleteAclsRequest, kafka::DeleteAclsResponse>(
        "DeleteAcls", ApiKey::kDeleteAcls, 3, r, kafka::WriteDeleteAclsRequest, kafka::ReadDeleteAclsResponse,
        [](const auto& x) { return x.filter_results.at(0).error_code; }, Op::kAlter, RT::kCluster, cluster,
        ErrorCode::kClusterAuthorizationFailed));
  }
  return cases;
}

security::AclBinding Binding(const ApiCase& c, security::PatternType pattern, std::string name, AclOperation op,
                             security::AclPermission permission, std::string host = "*",
                             std::string principal = "User:alice") {
  return {c.type, std::move(name), pattern, std::move(principal), std::move(host), op, permission};
}

// The answer's decisive error code for principal at host under the authorizer.
int16_t Ask(const ApiCase& c, const security::StandardAuthorizer& authorizer, const std::string& principal,
            const std::string& host = "/10.0.0.1") {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  context.authorizer = &authorizer;
  KafkaApis apis(context);
  kafka::RequestHeader header;
  header.api_key = static_cast<int16_t>(c.key);
  header.api_version = c.version;
  header.principal = principal;
  header.client_host = host;
  auto answer = apis.HandleAndWait(header, c.body);
  EXPECT_TRUE(answer.ok() && answer->has_value()) << c.name << ": " << answer.status();
  if (!answer.ok() || !answer->has_value()) return -100;
  kafka::Reader r((*answer)->body);
  return c.error(r);
}

TEST(ApiAuthorization, EveryApiAgainstEveryRule) {
  using security::AclPermission;
  using security::PatternType;
  for (const ApiCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const int16_t refused = static_cast<int16_t>(c.refusal);
    // An operation that neither is nor implies the one the API needs (Read, Write, Delete
    // and Alter imply Describe; Create implies nothing).
    AclOperation other = c.operation == AclOperation::kCreate ? AclOperation::kDelete : AclOperation::kCreate;
    struct Rule {
      const char* what;
      std::vector<security::AclBinding> acls;
      bool allowed;
      bool allow_everyone = false;
      std::string principal = "User:alice";
      std::string host = "/10.0.0.1";
    };
    std::string prefix = c.resource.substr(0, 2);
    std::vector<Rule> rules = {
        {"no ACL", {}, false},
        {"no ACL, allow.everyone.if.no.acl.found", {}, true, true},
        {"the ALLOW it needs", {Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kAllow)}, true},
        {"ALLOW All", {Binding(c, PatternType::kLiteral, c.resource, AclOperation::kAll, AclPermission::kAllow)}, true},
        {"a DENY over the ALLOW",
         {Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kAllow),
          Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kDeny)},
         false},
        {"another operation's ALLOW", {Binding(c, PatternType::kLiteral, c.resource, other, AclPermission::kAllow)},
         false},
        {"an ALLOW for another host",
         {Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kAllow, "10.0.0.2")}, false},
        {"an ALLOW for this host",
         {Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kAllow, "10.0.0.1")}, true},
        {"a wildcard resource and principal",
         {Binding(c, PatternType::kLiteral, "*", c.operation, AclPermission::kAllow, "*", "User:*")}, true},
        // (CreateTopics is also allowed by Create on the cluster, which has no ACL here.)
        {"another user's ALLOW, even with allow.everyone",
         {Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kAllow, "*", "User:bob")},
         c.key == ApiKey::kCreateTopics, true},
        {"a super user", {}, true, false, "User:admin"},
    };
    if (c.type != ResourceType::kCluster) {
      rules.push_back(
          {"a PREFIXED ALLOW", {Binding(c, PatternType::kPrefixed, prefix, c.operation, AclPermission::kAllow)}, true});
      rules.push_back({"a PREFIXED DENY over a LITERAL ALLOW",
                       {Binding(c, PatternType::kLiteral, c.resource, c.operation, AclPermission::kAllow),
                        Binding(c, PatternType::kPrefixed, prefix, c.operation, AclPermission::kDeny)},
                       false});
    }
    for (const Rule& rule : rules) {
      security::StandardAuthorizer authorizer(
          {.super_users = {"User:admin"}, .allow_everyone_if_no_acl_found = rule.allow_everyone});
      authorizer.SetAcls(rule.acls);
      int16_t error = Ask(c, authorizer, rule.principal, rule.host);
      if (rule.allowed) {
        EXPECT_NE(error, refused) << rule.what << ": refused";
      } else {
        EXPECT_EQ(error, refused) << rule.what << ": not refused";
      }
    }
  }
}

// Without an authorizer nothing is refused, and the ACL APIs answer SECURITY_DISABLED.
TEST(ApiAuthorization, WithoutAnAuthorizerNothingIsRefused) {
  for (const ApiCase& c : Cases()) {
    testing::TempDir tmp;
    testing::BrokerServices services(tmp.path());
    KafkaApis apis(services.Context());
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(c.key);
    header.api_version = c.version;
    header.principal = "User:nobody";
    auto answer = apis.HandleAndWait(header, c.body);
    ASSERT_TRUE(answer.ok() && answer->has_value()) << c.name;
    kafka::Reader r((*answer)->body);
    int16_t error = c.error(r);
    EXPECT_NE(error, static_cast<int16_t>(c.refusal)) << c.name;
    bool acl_api = c.key == ApiKey::kDescribeAcls || c.key == ApiKey::kCreateAcls || c.key == ApiKey::kDeleteAcls;
    if (acl_api) EXPECT_EQ(error, static_cast<int16_t>(ErrorCode::kSecurityDisabled)) << c.name;
  }
}

}  // namespace
}  // namespace strata::broker
