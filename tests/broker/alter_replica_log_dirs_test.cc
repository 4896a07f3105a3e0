// AlterReplicaLogDirs through the broker's dispatch over real services (one log dir, no
// replica hosted), in every version: each partition of the request answered once,
// grouped by topic; a path not in log.dirs LOG_DIR_NOT_FOUND, a dir of log.dirs for a
// replica not hosted REPLICA_NOT_AVAILABLE (ReplicaManager::AlterReplicaLogDirs); a
// partition named under two dirs goes to the last, as in Kafka; without Alter on the
// cluster every partition CLUSTER_AUTHORIZATION_FAILED. The moves themselves are the
// ReplicaManager's and the log dir mover's (their own tests).

#include <gtest/gtest.h>

#include <filesystem>

#include "broker/handlers/alter_replica_log_dirs_handler.h"
#include "broker/handlers/kafka_apis.h"
#include "proto/kafka/alter_replica_log_dirs.h"
#include "proto/kafka/error_code.h"
#include "security/standard_authorizer.h"
#include "tests/support/broker_services.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using kafka::ErrorCode;
using Response = kafka::AlterReplicaLogDirsResponse;

constexpr int16_t kReplicaNotAvailable = static_cast<int16_t>(ErrorCode::kReplicaNotAvailable);
constexpr int16_t kLogDirNotFound = static_cast<int16_t>(ErrorCode::kLogDirNotFound);
constexpr char kNoSuchDir[] = "/nonexistent/strata-no-such-log-dir";

class AlterReplicaLogDirsTest : public ::testing::Test {
 protected:
  // The broker's one log dir as DescribeLogDirs names it (absolute), as a client sends it.
  std::string LogDir() {
    return std::filesystem::absolute(services_.logs().log_dirs().at(0)).lexically_normal().string();
  }

  // The request sent at version through the dispatch, with authorizer (null: none) for
  // User:alice; the decoded answer.
  Response Send(const kafka::AlterReplicaLogDirsRequest& request, int16_t version,
                const security::StandardAuthorizer* authorizer = nullptr) {
    KafkaApisContext context = services_.Context();
    context.authorizer = authorizer;
    KafkaApis apis(context);
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(kafka::ApiKey::kAlterReplicaLogDirs);
    header.api_version = version;
    header.principal = "User:alice";
    header.client_host = "/10.0.0.1";
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteAlterReplicaLogDirsRequest(request, version, w);
    auto answer = apis.HandleAndWait(header, body);
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    if (!answer.ok() || !answer->has_value()) return {};
    kafka::Reader r((*answer)->body);
    auto response = kafka::ReadAlterReplicaLogDirsResponse(r, version);
    EXPECT_TRUE(response.ok()) << response.status();
    EXPECT_EQ(r.remaining(), 0u);
    return response.ok() ? *response : Response{};
  }

  testing::TempDir tmp_;
  testing::BrokerServices services_{tmp_.path()};
};

TEST_F(AlterReplicaLogDirsTest, EveryPartitionAnsweredOnceByTopicInEveryVersion) {
  kafka::AlterReplicaLogDirsRequest request;
  request.dirs.push_back({LogDir(), {{"orders", {0, 1}}, {"audit", {0}}}});
  request.dirs.push_back({kNoSuchDir, {{"orders", {2}}}});
  for (int16_t v = 0; v <= 2; ++v) {
    SCOPED_TRACE(v);
    Response response = Send(request, v);
    EXPECT_EQ(response.throttle_time_ms, 0);
    ASSERT_EQ(response.results.size(), 2u);
    EXPECT_EQ(response.results[0].topic_name, "audit");
    EXPECT_EQ(response.results[0].partitions, (std::vector<Response::Partition>{{0, kReplicaNotAvailable}}));
    EXPECT_EQ(response.results[1].topic_name, "orders");
    EXPECT_EQ(response.results[1].partitions,
              (std::vector<Response::Partition>{{0, kReplicaNotAvailable}, {1, kReplicaNotAvailable},
                                                {2, kLogDirNotFound}}));
  }
}

TEST_F(AlterReplicaLogDirsTest, APartitionNamedUnderTwoDirsGoesToTheLast) {
  kafka::AlterReplicaLogDirsRequest to_known;
  to_known.dirs.push_back({kNoSuchDir, {{"orders", {0}}}});
  to_known.dirs.push_back({LogDir(), {{"orders", {0}}}});
  Response response = Send(to_known, 2);
  ASSERT_EQ(response.results.size(), 1u);
  EXPECT_EQ(response.results[0].partitions, (std::vector<Response::Partition>{{0, kReplicaNotAvailable}}));

  kafka::AlterReplicaLogDirsRequest to_unknown;
  to_unknown.dirs.push_back({LogDir(), {{"orders", {0}}}});
  to_unknown.dirs.push_back({kNoSuchDir, {{"orders", {0}}}});
  response = Send(to_unknown, 2);
  ASSERT_EQ(response.results.size(), 1u);
  EXPECT_EQ(response.results[0].partitions, (std::vector<Response::Partition>{{0, kLogDirNotFound}}));
}

TEST_F(AlterReplicaLogDirsTest, AnEmptyRequestHasAnEmptyAnswer) {
  EXPECT_TRUE(Send({}, 2).results.empty());
  kafka::AlterReplicaLogDirsRequest no_partitions;
  no_partitions.dirs.push_back({LogDir(), {{"orders", {}}}});
  EXPECT_TRUE(Send(no_partitions, 1).results.empty());
}

TEST_F(AlterReplicaLogDirsTest, WithoutAlterOnTheClusterEveryPartitionIsRefused) {
  security::StandardAuthorizer authorizer({.super_users = {"User:admin"}});
  // Describe on the cluster (what DescribeLogDirs needs) is not enough.
  authorizer.SetAcls({{security::ResourceType::kCluster, security::kClusterResourceName,
                       security::PatternType::kLiteral, "User:alice", "*", security::AclOperation::kDescribe,
                       security::AclPermission::kAllow}});
  kafka::AlterReplicaLogDirsRequest request;
  request.dirs.push_back({LogDir(), {{"orders", {0, 1}}}});
  request.dirs.push_back({kNoSuchDir, {{"orders", {1}}, {"audit", {3}}}});
  constexpr int16_t kRefused = static_cast<int16_t>(ErrorCode::kClusterAuthorizationFailed);
  for (int16_t v = 0; v <= 2; ++v) {
    SCOPED_TRACE(v);
    Response response = Send(request, v, &authorizer);
    ASSERT_EQ(response.results.size(), 2u);
    EXPECT_EQ(response.results[0].topic_name, "audit");
    EXPECT_EQ(response.results[0].partitions, (std::vector<Response::Partition>{{3, kRefused}}));
    EXPECT_EQ(response.results[1].topic_name, "orders");
    EXPECT_EQ(response.results[1].partitions, (std::vector<Response::Partition>{{0, kRefused}, {1, kRefused}}));
  }
  // Alter on the cluster lets the request through to the ReplicaManager.
  authorizer.SetAcls({{security::ResourceType::kCluster, security::kClusterResourceName,
                       security::PatternType::kLiteral, "User:alice", "*", security::AclOperation::kAlter,
                       security::AclPermission::kAllow}});
  Response allowed = Send(request, 2, &authorizer);
  ASSERT_EQ(allowed.results.size(), 2u);
  EXPECT_EQ(allowed.results[0].partitions, (std::vector<Response::Partition>{{3, kLogDirNotFound}}));
  EXPECT_EQ(allowed.results[1].partitions,
            (std::vector<Response::Partition>{{0, kReplicaNotAvailable}, {1, kLogDirNotFound}}));
}

}  // namespace
}  // namespace strata::broker
