// The admin API handlers (CreateTopics, DeleteTopics, CreatePartitions, DescribeConfigs,
// DescribeCluster, ElectLeaders) without a cluster: what each answers on its own (duplicates, null
// config values, name-and-id, other brokers' resources, endpoint types), without a way
// to the controller (every item REQUEST_TIMED_OUT, no crash), and against a fake
// AdminService on a loopback gRPC port: what is forwarded (names then ids, assignment
// partition ids, validate_only, the resources a broker resource needs, each elected
// partition once) and how the controller's answer maps back (v5+ topic descriptions,
// config sources and synonyms by precedence, a whole-request refusal, a short answer,
// election results per partition).

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <memory>

#include "broker/lifecycle/admin_forwarding.h"
#include "broker/handlers/api_registry.h"
#include "broker/handlers/create_partitions_handler.h"
#include "broker/handlers/create_topics_handler.h"
#include "broker/handlers/delete_topics_handler.h"
#include "broker/handlers/describe_cluster_handler.h"
#include "broker/handlers/describe_configs_handler.h"
#include "broker/handlers/elect_leaders_handler.h"
#include "broker/handlers/kafka_apis.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "tests/support/broker_services.h"
#include "tests/support/forwarding_fixture.h"
#include "tests/support/loopback_grpc.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

int16_t Code(ErrorCode c) { return static_cast<int16_t>(c); }

const std::string kZeroId(16, '\0');

// An AdminService that records each request and answers what the test set.
class FakeAdmin final : public admin::v1::AdminService::Service {
 public:
  grpc::Status CreateTopics(grpc::ServerContext*, const admin::v1::CreateTopicsRequest* request,
                            admin::v1::CreateTopicsResponse* response) override {
    create_topics = *request;
    *response = create_topics_answer;
    return grpc::Status::OK;
  }
  grpc::Status DeleteTopics(grpc::ServerContext*, const admin::v1::DeleteTopicsRequest* request,
                            admin::v1::DeleteTopicsResponse* response) override {
    delete_topics = *request;
    *response = delete_topics_answer;
    return grpc::Status::OK;
  }
  grpc::Status CreatePartitions(grpc::ServerContext*, const admin::v1::CreatePartitionsRequest* request,
                                admin::v1::CreatePartitionsResponse* response) override {
    create_partitions = *request;
    *response = create_partitions_answer;
    return grpc::Status::OK;
  }
  grpc::Status DescribeConfigs(grpc::ServerContext*, const admin::v1::DescribeConfigsRequest* request,
                               admin::v1::DescribeConfigsResponse* response) override {
    describe_configs = *request;
    *response = describe_configs_answer;
    return grpc::Status::OK;
  }
  grpc::Status ElectLeaders(grpc::ServerContext*, const admin::v1::ElectLeadersRequest* request,
                            admin::v1::ElectLeadersResponse* response) override {
    elect_leaders = *request;
    ++elect_leaders_calls;
    *response = elect_leaders_answer;
    return grpc::Status::OK;
  }

  admin::v1::CreateTopicsRequest create_topics;
  admin::v1::CreateTopicsResponse create_topics_answer;
  admin::v1::DeleteTopicsRequest delete_topics;
  admin::v1::DeleteTopicsResponse delete_topics_answer;
  admin::v1::CreatePartitionsRequest create_partitions;
  admin::v1::CreatePartitionsResponse create_partitions_answer;
  admin::v1::DescribeConfigsRequest describe_configs;
  admin::v1::DescribeConfigsResponse describe_configs_answer;
  admin::v1::ElectLeadersRequest elect_leaders;
  admin::v1::ElectLeadersResponse elect_leaders_answer;
  int elect_leaders_calls = 0;
};

class AdminHandlers : public testing::ForwardingFixture<FakeAdmin> {
 protected:
  void Customize(testing::BrokerServicesOptions& options) override {
    options.broker_id = 7;
    options.cluster_id = "cluster-x";
  }
  void SetUp() override {
    ForwardingFixture::SetUp();
    context_->static_configs = {{"node.id", "7"}, {"num.io.threads", "8"}, {"log.dirs", "/data"}};
  }
};

admin::v1::TopicResult Result(const std::string& name, ErrorCode code, const std::string& message = "") {
  admin::v1::TopicResult r;
  r.set_name(name);
  r.set_error_code(static_cast<int32_t>(code));
  r.set_error_message(message);
  return r;
}

// ---- without a controller ----

TEST(AdminHandlersWithoutController, EveryForwardedItemAnswersRequestTimedOutWhenNoControllerAnswers) {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  kafka::CreateTopicsRequest create;
  create.topics.push_back({"a", 1, 1, {}, {}});
  create.topics.push_back({"b", 1, 1, {}, {}});
  auto created = AnswerCreateTopics(context, create);
  ASSERT_EQ(created.topics.size(), 2u);
  for (const auto& t : created.topics) EXPECT_EQ(t.error_code, Code(ErrorCode::kRequestTimedOut)) << t.name;

  kafka::DeleteTopicsRequest del;
  del.topics.push_back({std::string("a"), kZeroId});
  del.topics.push_back({std::nullopt, std::string(16, '\x01')});
  auto deleted = AnswerDeleteTopics(context, del);
  ASSERT_EQ(deleted.topics.size(), 2u);
  for (const auto& t : deleted.topics) EXPECT_EQ(t.error_code, Code(ErrorCode::kRequestTimedOut));

  kafka::CreatePartitionsRequest grow;
  grow.topics.push_back({"a", 3, std::nullopt});
  auto grown = AnswerCreatePartitions(context, grow);
  ASSERT_EQ(grown.results.size(), 1u);
  EXPECT_EQ(grown.results[0].error_code, Code(ErrorCode::kRequestTimedOut));

  kafka::DescribeConfigsRequest describe;
  describe.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kTopic), "a", std::nullopt});
  describe.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kBroker), std::to_string(context.broker_id), std::nullopt});
  auto described = AnswerDescribeConfigs(context, describe);
  ASSERT_EQ(described.results.size(), 2u);
  for (const auto& r : described.results) EXPECT_EQ(r.error_code, Code(ErrorCode::kRequestTimedOut));
  EXPECT_EQ(services.unreachable_controller().calls(), 4);  // one forward per request
}

TEST(AdminHandlersWithoutController, RefusalsOfTheBrokerItselfNeedNoController) {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  kafka::CreateTopicsRequest create;
  create.topics.push_back({"twice", 1, 1, {}, {}});
  create.topics.push_back({"twice", 2, 1, {}, {}});
  create.topics.push_back({"null-config", 1, 1, {}, {{"retention.ms", std::nullopt}}});
  create.topics.push_back({"same-key", 1, 1, {}, {{"retention.ms", "1"}, {"retention.ms", "2"}}});
  auto created = AnswerCreateTopics(context, create);
  ASSERT_EQ(created.topics.size(), 3u);  // one answer per name
  EXPECT_EQ(created.topics[0].error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(created.topics[1].error_code, Code(ErrorCode::kInvalidConfig));
  EXPECT_EQ(created.topics[2].error_code, Code(ErrorCode::kInvalidConfig));

  kafka::DeleteTopicsRequest del;
  del.topics.push_back({std::string("both"), std::string(16, '\x01')});
  del.topics.push_back({std::nullopt, kZeroId});
  del.topics.push_back({std::nullopt, std::string(16, '\x02')});
  del.topics.push_back({std::nullopt, std::string(16, '\x02')});
  auto deleted = AnswerDeleteTopics(context, del);
  ASSERT_EQ(deleted.topics.size(), 3u);
  for (const auto& t : deleted.topics) EXPECT_EQ(t.error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(deleted.topics[2].topic_id, std::string(16, '\x02'));

  kafka::CreatePartitionsRequest grow;
  grow.topics.push_back({"twice", 3, std::nullopt});
  grow.topics.push_back({"twice", 4, std::nullopt});
  grow.topics.push_back({"empty", 4, std::vector<std::vector<int32_t>>{}});
  auto grown = AnswerCreatePartitions(context, grow);
  ASSERT_EQ(grown.results.size(), 2u);
  EXPECT_EQ(grown.results[0].error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(grown.results[1].error_code, Code(ErrorCode::kInvalidReplicaAssignment));

  context.broker_id = 3;
  kafka::DescribeConfigsRequest describe;
  describe.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kBroker), "4", std::nullopt});
  describe.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kBroker), "x", std::nullopt});
  describe.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kBrokerLogger), "3", std::nullopt});
  describe.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kTopic), "bad/name", std::nullopt});
  auto described = AnswerDescribeConfigs(context, describe);
  ASSERT_EQ(described.results.size(), 4u);
  EXPECT_EQ(described.results[0].error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(described.results[1].error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(described.results[2].error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(described.results[3].error_code, Code(ErrorCode::kInvalidTopicException));
  EXPECT_EQ(described.results[3].resource_name, "bad/name");
  EXPECT_EQ(services.unreachable_controller().calls(), 0);  // nothing was forwarded
}

TEST(AdminHandlersWithoutController, DescribeClusterAnswersBrokersOnlyAndAsMetadataDoes) {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  context.broker_id = 5;
  context.cluster_id = "cid";
  kafka::DescribeClusterRequest brokers;
  auto answer = AnswerDescribeCluster(context, brokers);
  EXPECT_EQ(answer.error_code, 0);
  EXPECT_EQ(answer.cluster_id, "cid");
  EXPECT_EQ(answer.controller_id, 5);  // as Metadata: the broker itself
  EXPECT_TRUE(answer.brokers.empty());  // no image
  EXPECT_EQ(answer.cluster_authorized_operations, INT32_MIN);
  kafka::DescribeClusterRequest controllers;
  controllers.endpoint_type = static_cast<int8_t>(kafka::EndpointType::kController);
  EXPECT_EQ(AnswerDescribeCluster(context, controllers).error_code, Code(ErrorCode::kMismatchedEndpointType));
  kafka::DescribeClusterRequest unknown;
  unknown.endpoint_type = 3;
  EXPECT_EQ(AnswerDescribeCluster(context, unknown).error_code, Code(ErrorCode::kUnsupportedEndpointType));
}

TEST(AdminHandlersWithoutController, ElectLeadersAnswersRequestTimedOutForEveryPartitionAndTopLevel) {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  kafka::ElectLeadersRequest request;
  request.topic_partitions = std::vector<kafka::ElectLeadersRequest::TopicPartitions>{{"a", {0, 1}}, {"b", {2}}};
  auto response = AnswerElectLeaders(context, request);
  EXPECT_EQ(response.error_code, Code(ErrorCode::kRequestTimedOut));
  ASSERT_EQ(response.replica_election_results.size(), 2u);
  ASSERT_EQ(response.replica_election_results[0].partition_result.size(), 2u);
  for (const auto& t : response.replica_election_results) {
    for (const auto& p : t.partition_result) {
      EXPECT_EQ(p.error_code, Code(ErrorCode::kRequestTimedOut)) << t.topic << "-" << p.partition_id;
      EXPECT_TRUE(p.error_message.has_value());
    }
  }
  EXPECT_EQ(services.unreachable_controller().calls(), 1);
}

TEST(AdminForwarding, TimeoutsAreBoundedToOneToThirtySeconds) {
  EXPECT_EQ(ForwardDeadline(0), std::chrono::milliseconds(1000));
  EXPECT_EQ(ForwardDeadline(-5), std::chrono::milliseconds(1000));
  EXPECT_EQ(ForwardDeadline(5000), std::chrono::milliseconds(5000));
  EXPECT_EQ(ForwardDeadline(600000), std::chrono::milliseconds(30000));
}

TEST(AdminHandlersWithoutController, TheListenerServesTheAdminApisInTheirRanges) {
  for (auto [key, min, max] : {std::tuple{kafka::ApiKey::kCreateTopics, 2, 7}, {kafka::ApiKey::kDeleteTopics, 1, 6},
                               {kafka::ApiKey::kCreatePartitions, 0, 3}, {kafka::ApiKey::kDescribeConfigs, 1, 4},
                               {kafka::ApiKey::kDescribeCluster, 0, 1}, {kafka::ApiKey::kElectLeaders, 0, 2}}) {
    const ApiEntry* range = FindApi(static_cast<int16_t>(key));
    ASSERT_NE(range, nullptr) << kafka::ApiName(static_cast<int16_t>(key));
    EXPECT_EQ(range->min_version, min);
    EXPECT_EQ(range->max_version, max);
  }
  // A DescribeCluster v1 request through the dispatch, answered and decodable.
  testing::TempDir tmp;
  testing::BrokerServicesOptions options;
  options.broker_id = 9;
  testing::BrokerServices services(tmp.path(), options);
  KafkaApis apis(services.Context());
  kafka::RequestHeader header;
  header.api_key = static_cast<int16_t>(kafka::ApiKey::kDescribeCluster);
  header.api_version = 1;
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteDescribeClusterRequest(kafka::DescribeClusterRequest(), 1, w);
  auto answer = apis.HandleAndWait(header, body);
  ASSERT_TRUE(answer.ok()) << answer.status();
  ASSERT_TRUE(answer->has_value());
  kafka::Reader r((*answer)->body);
  auto response = kafka::ReadDescribeClusterResponse(r, 1);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->controller_id, 9);
}

// ---- against a fake controller ----

TEST_F(AdminHandlers, CreateTopicsForwardsAndDescribesWhatWasCreated) {
  admin::v1::TopicResult created = Result("orders", ErrorCode::kNone);
  created.set_topic_id(std::string(16, '\x05'));
  created.set_num_partitions(6);
  created.set_replication_factor(3);
  auto* set = created.add_configs();
  set->set_name("retention.ms");
  set->set_value("1000");
  auto* dflt = created.add_configs();
  dflt->set_name("segment.bytes");
  dflt->set_value("1073741824");
  dflt->set_is_default(true);
  *fake_.create_topics_answer.add_topics() = created;
  *fake_.create_topics_answer.add_topics() = Result("taken", ErrorCode::kTopicAlreadyExists, "exists");

  kafka::CreateTopicsRequest request;
  request.topics.push_back({"orders", -1, -1, {}, {{"retention.ms", "1000"}}});
  request.topics.push_back({"dup", 1, 1, {}, {}});
  request.topics.push_back({"taken", 1, 1, {{0, {1, 2}}}, {}});
  request.topics.push_back({"dup", 1, 1, {}, {}});
  auto response = AnswerCreateTopics(*context_, request);

  // Forwarded: orders and taken, not the duplicate.
  ASSERT_EQ(fake_.create_topics.topics_size(), 2);
  EXPECT_EQ(fake_.create_topics.topics(0).num_partitions(), -1);
  EXPECT_EQ(fake_.create_topics.topics(0).replication_factor(), -1);
  EXPECT_EQ(fake_.create_topics.topics(0).configs().at("retention.ms"), "1000");
  EXPECT_EQ(fake_.create_topics.topics(1).assignments(0).broker_ids_size(), 2);
  EXPECT_FALSE(fake_.create_topics.validate_only());

  ASSERT_EQ(response.topics.size(), 3u);  // orders, dup, taken: request order, one per name
  const auto& orders = response.topics[0];
  EXPECT_EQ(orders.name, "orders");
  EXPECT_EQ(orders.error_code, 0);
  EXPECT_EQ(orders.error_message, std::nullopt);
  EXPECT_EQ(orders.topic_id, std::string(16, '\x05'));
  EXPECT_EQ(orders.num_partitions, 6);
  EXPECT_EQ(orders.replication_factor, 3);
  ASSERT_TRUE(orders.configs.has_value());
  ASSERT_EQ(orders.configs->size(), 2u);
  EXPECT_EQ((*orders.configs)[0].config_source, static_cast<int8_t>(kafka::ConfigSource::kTopicConfig));
  EXPECT_EQ((*orders.configs)[1].config_source, static_cast<int8_t>(kafka::ConfigSource::kDefaultConfig));
  EXPECT_EQ(response.topics[1].name, "dup");
  EXPECT_EQ(response.topics[1].error_code, Code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(response.topics[2].error_code, Code(ErrorCode::kTopicAlreadyExists));
  EXPECT_EQ(response.topics[2].error_message, std::optional<std::string>("exists"));
  EXPECT_EQ(response.topics[2].num_partitions, -1);
}

TEST_F(AdminHandlers, ValidateOnlyCreatesReportNoTopicId) {
  admin::v1::TopicResult would = Result("t", ErrorCode::kNone);
  would.set_topic_id(std::string(16, '\x05'));
  would.set_num_partitions(1);
  would.set_replication_factor(1);
  *fake_.create_topics_answer.add_topics() = would;
  kafka::CreateTopicsRequest request;
  request.topics.push_back({"t", 1, 1, {}, {}});
  request.validate_only = true;
  auto response = AnswerCreateTopics(*context_, request);
  EXPECT_TRUE(fake_.create_topics.validate_only());
  ASSERT_EQ(response.topics.size(), 1u);
  EXPECT_EQ(response.topics[0].error_code, 0);
  EXPECT_EQ(response.topics[0].topic_id, kZeroId);
  EXPECT_EQ(response.topics[0].num_partitions, 1);
}

TEST_F(AdminHandlers, AControllerRefusalOrAShortAnswerFailsEveryForwardedItem) {
  fake_.create_topics_answer.set_error_code(static_cast<int32_t>(ErrorCode::kRequestTimedOut));
  fake_.create_topics_answer.set_error_message("metadata write failed");
  kafka::CreateTopicsRequest request;
  request.topics.push_back({"a", 1, 1, {}, {}});
  auto refused = AnswerCreateTopics(*context_, request);
  ASSERT_EQ(refused.topics.size(), 1u);
  EXPECT_EQ(refused.topics[0].error_code, Code(ErrorCode::kRequestTimedOut));

  // The controller answers one result for two topics: neither is trusted.
  *fake_.create_partitions_answer.add_topics() = Result("a", ErrorCode::kNone);
  kafka::CreatePartitionsRequest grow;
  grow.topics.push_back({"a", 3, std::nullopt});
  grow.topics.push_back({"b", 3, std::nullopt});
  auto grown = AnswerCreatePartitions(*context_, grow);
  ASSERT_EQ(grown.results.size(), 2u);
  for (const auto& r : grown.results) EXPECT_EQ(r.error_code, Code(ErrorCode::kUnknownServerError));
}

TEST_F(AdminHandlers, DeleteTopicsSendsNamesThenIdsAndMapsTheAnswersBack) {
  // The request mixes them; the controller answers names first, then ids.
  *fake_.delete_topics_answer.add_topics() = Result("named", ErrorCode::kNone);
  fake_.delete_topics_answer.mutable_topics(0)->set_topic_id(std::string(16, '\x0a'));
  *fake_.delete_topics_answer.add_topics() = Result("by-id", ErrorCode::kNone);
  fake_.delete_topics_answer.mutable_topics(1)->set_topic_id(std::string(16, '\x0b'));
  admin::v1::TopicResult unknown = Result("", ErrorCode::kUnknownTopicId, "no topic has that id");
  unknown.set_topic_id(std::string(16, '\x0c'));
  *fake_.delete_topics_answer.add_topics() = unknown;

  kafka::DeleteTopicsRequest request;
  request.topics.push_back({std::nullopt, std::string(16, '\x0b')});
  request.topics.push_back({std::string("named"), kZeroId});
  request.topics.push_back({std::nullopt, std::string(16, '\x0c')});
  auto response = AnswerDeleteTopics(*context_, request);

  ASSERT_EQ(fake_.delete_topics.names_size(), 1);
  EXPECT_EQ(fake_.delete_topics.names(0), "named");
  ASSERT_EQ(fake_.delete_topics.topic_ids_size(), 2);
  EXPECT_EQ(fake_.delete_topics.topic_ids(0), std::string(16, '\x0b'));
  ASSERT_EQ(response.topics.size(), 3u);
  EXPECT_EQ(response.topics[0].name, std::optional<std::string>("by-id"));  // named by the controller
  EXPECT_EQ(response.topics[0].error_code, 0);
  EXPECT_EQ(response.topics[1].name, std::optional<std::string>("named"));
  EXPECT_EQ(response.topics[1].topic_id, std::string(16, '\x0a'));
  EXPECT_EQ(response.topics[2].name, std::nullopt);  // an unknown id has no name
  EXPECT_EQ(response.topics[2].error_code, Code(ErrorCode::kUnknownTopicId));
}

TEST_F(AdminHandlers, CreatePartitionsNumbersTheAssignedPartitionsFromTheEnd) {
  *fake_.create_partitions_answer.add_topics() = Result("t", ErrorCode::kNone);
  kafka::CreatePartitionsRequest request;
  request.topics.push_back({"t", 5, std::vector<std::vector<int32_t>>{{1, 2}, {2, 3}}});
  request.validate_only = true;
  auto response = AnswerCreatePartitions(*context_, request);
  ASSERT_EQ(fake_.create_partitions.topics_size(), 1);
  const auto& forwarded = fake_.create_partitions.topics(0);
  EXPECT_EQ(forwarded.count(), 5);
  ASSERT_EQ(forwarded.assignments_size(), 2);
  EXPECT_EQ(forwarded.assignments(0).partition_id(), 3);  // 5 partitions, 2 new: 3 and 4
  EXPECT_EQ(forwarded.assignments(1).partition_id(), 4);
  EXPECT_EQ(forwarded.assignments(1).broker_ids(1), 3);
  EXPECT_TRUE(fake_.create_partitions.validate_only());
  ASSERT_EQ(response.results.size(), 1u);
  EXPECT_EQ(response.results[0].error_code, 0);
  EXPECT_EQ(response.results[0].error_message, std::nullopt);
}

TEST_F(AdminHandlers, DescribeConfigsLayersABrokersSettingsByPrecedence) {
  // The handler asks for the cluster default ("") and broker 7's dynamic configs.
  auto* dflt = fake_.describe_configs_answer.add_results();
  auto* e = dflt->add_entries();
  e->set_name("num.io.threads");
  e->set_value("6");
  e = dflt->add_entries();
  e->set_name("log.cleaner.threads");
  e->set_value("2");
  auto* own = fake_.describe_configs_answer.add_results();
  e = own->add_entries();
  e->set_name("num.io.threads");
  e->set_value("4");
  auto* topic = fake_.describe_configs_answer.add_results();
  e = topic->add_entries();
  e->set_name("cleanup.policy");
  e->set_value("delete");
  e->set_is_default(true);
  e = topic->add_entries();
  e->set_name("retention.ms");
  e->set_value("5");

  context_->broker_config_docs["num.io.threads"] = {"int", "threads handling requests"};

  kafka::DescribeConfigsRequest request;
  request.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kBroker), "7", std::nullopt});
  request.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kTopic), "t",
                               std::vector<std::string>{"retention.ms"}});
  request.include_synonyms = true;
  auto response = AnswerDescribeConfigs(*context_, request);

  ASSERT_EQ(fake_.describe_configs.resources_size(), 3);
  EXPECT_EQ(fake_.describe_configs.resources(0).name(), "");
  EXPECT_EQ(fake_.describe_configs.resources(1).name(), "7");
  EXPECT_EQ(fake_.describe_configs.resources(2).type(), admin::v1::ConfigResource::TOPIC);
  ASSERT_EQ(response.results.size(), 2u);
  std::map<std::string, kafka::DescribeConfigsResponse::Config> broker;
  for (const auto& c : response.results[0].configs) broker[c.name] = c;
  ASSERT_EQ(broker.size(), 4u);  // node.id, num.io.threads, log.dirs, log.cleaner.threads
  const auto& io = broker.at("num.io.threads");
  EXPECT_EQ(io.value, std::optional<std::string>("4"));
  EXPECT_EQ(io.config_source, static_cast<int8_t>(kafka::ConfigSource::kDynamicBrokerConfig));
  EXPECT_FALSE(io.read_only);
  ASSERT_EQ(io.synonyms.size(), 3u);  // highest precedence first
  EXPECT_EQ(io.synonyms[1].value, std::optional<std::string>("6"));
  EXPECT_EQ(io.synonyms[1].source, static_cast<int8_t>(kafka::ConfigSource::kDynamicDefaultBrokerConfig));
  EXPECT_EQ(io.synonyms[2].value, std::optional<std::string>("8"));
  EXPECT_EQ(io.synonyms[2].source, static_cast<int8_t>(kafka::ConfigSource::kStaticBrokerConfig));
  EXPECT_EQ(io.config_type, static_cast<int8_t>(kafka::ConfigType::kInt));
  EXPECT_EQ(io.documentation, std::nullopt) << "not asked for";
  EXPECT_EQ(broker.at("log.dirs").config_type, static_cast<int8_t>(kafka::ConfigType::kUnknown));
  EXPECT_EQ(broker.at("log.cleaner.threads").config_source,
            static_cast<int8_t>(kafka::ConfigSource::kDynamicDefaultBrokerConfig));
  EXPECT_TRUE(broker.at("node.id").read_only);
  EXPECT_EQ(broker.at("node.id").config_source, static_cast<int8_t>(kafka::ConfigSource::kStaticBrokerConfig));
  // The topic: only the key asked for.
  ASSERT_EQ(response.results[1].configs.size(), 1u);
  EXPECT_EQ(response.results[1].configs[0].name, "retention.ms");
  EXPECT_EQ(response.results[1].configs[0].config_source, static_cast<int8_t>(kafka::ConfigSource::kTopicConfig));
}

TEST_F(AdminHandlers, DescribeConfigsPassesAControllerErrorForOneResource) {
  auto* missing = fake_.describe_configs_answer.add_results();
  missing->set_error_code(static_cast<int32_t>(ErrorCode::kUnknownTopicOrPartition));
  missing->set_error_message("topic 'gone' does not exist");
  fake_.describe_configs_answer.add_results();  // the cluster default ("")
  fake_.describe_configs_answer.add_results();  // broker 7's own
  kafka::DescribeConfigsRequest request;
  request.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kTopic), "gone", std::nullopt});
  auto response = AnswerDescribeConfigs(*context_, request);
  ASSERT_EQ(response.results.size(), 1u);
  EXPECT_EQ(response.results[0].error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(response.results[0].error_message, std::optional<std::string>("topic 'gone' does not exist"));
  EXPECT_TRUE(response.results[0].configs.empty());
}

TEST_F(AdminHandlers, DescribeConfigsGivesATopicsUnsetSettingsFromThisBrokersLayers) {
  context_->static_configs["log.segment.bytes"] = "2000000";
  context_->static_configs["min.insync.replicas"] = "2";
  context_->static_configs["log.cleanup.policy"] = "compact";
  auto* topic = fake_.describe_configs_answer.add_results();
  auto add = [](admin::v1::DescribeConfigsResponse::Result* r, const std::string& name, const std::string& value,
                bool is_default) {
    auto* e = r->add_entries();
    e->set_name(name);
    e->set_value(value);
    e->set_is_default(is_default);
  };
  add(topic, "segment.bytes", "1073741824", true);
  add(topic, "retention.ms", "604800000", true);
  add(topic, "min.insync.replicas", "1", true);
  add(topic, "cleanup.policy", "delete", false);  // set on the topic: outranks every broker layer
  add(topic, "flush.ms", "9223372036854775807", true);
  auto* dflt = fake_.describe_configs_answer.add_results();
  add(dflt, "log.segment.bytes", "3000000", false);
  add(dflt, "log.retention.ms", "not a number", false);  // one an older controller took: skipped
  auto* own = fake_.describe_configs_answer.add_results();
  add(own, "log.segment.bytes", "4000000", false);

  kafka::DescribeConfigsRequest request;
  request.resources.push_back({static_cast<int8_t>(kafka::ConfigResourceType::kTopic), "t", std::nullopt});
  request.include_synonyms = true;
  request.include_documentation = true;
  auto response = AnswerDescribeConfigs(*context_, request);

  ASSERT_EQ(fake_.describe_configs.resources_size(), 3);
  EXPECT_EQ(fake_.describe_configs.resources(0).type(), admin::v1::ConfigResource::TOPIC);
  EXPECT_EQ(fake_.describe_configs.resources(1).name(), "");
  EXPECT_EQ(fake_.describe_configs.resources(2).name(), "7");
  ASSERT_EQ(response.results.size(), 1u);
  ASSERT_EQ(response.results[0].error_code, 0);
  std::map<std::string, kafka::DescribeConfigsResponse::Config> c;
  for (const auto& config : response.results[0].configs) c[config.name] = config;
  auto source = [](kafka::ConfigSource s) { return static_cast<int8_t>(s); };

  const auto& segment = c.at("segment.bytes");
  EXPECT_EQ(segment.value, std::optional<std::string>("4000000"));
  EXPECT_EQ(segment.config_source, source(kafka::ConfigSource::kDynamicBrokerConfig));
  EXPECT_FALSE(segment.is_default);
  ASSERT_EQ(segment.synonyms.size(), 4u);  // broker 7, cluster default, static, Kafka's default
  EXPECT_EQ(segment.synonyms[0].name, "log.segment.bytes");
  EXPECT_EQ(segment.synonyms[1].value, std::optional<std::string>("3000000"));
  EXPECT_EQ(segment.synonyms[1].source, source(kafka::ConfigSource::kDynamicDefaultBrokerConfig));
  EXPECT_EQ(segment.synonyms[2].value, std::optional<std::string>("2000000"));
  EXPECT_EQ(segment.synonyms[2].source, source(kafka::ConfigSource::kStaticBrokerConfig));
  EXPECT_EQ(segment.synonyms[3].name, "segment.bytes");
  EXPECT_EQ(segment.synonyms[3].source, source(kafka::ConfigSource::kDefaultConfig));
  // v3+: the topic settings' table gives the type and the doc.
  EXPECT_EQ(segment.config_type, static_cast<int8_t>(kafka::ConfigType::kInt));
  ASSERT_TRUE(segment.documentation.has_value());
  EXPECT_FALSE(segment.documentation->empty());
  EXPECT_EQ(c.at("cleanup.policy").config_type, static_cast<int8_t>(kafka::ConfigType::kList));

  const auto& retention = c.at("retention.ms");  // the cluster default's value is refused
  EXPECT_EQ(retention.value, std::optional<std::string>("604800000"));
  EXPECT_EQ(retention.config_source, source(kafka::ConfigSource::kDefaultConfig));
  EXPECT_TRUE(retention.is_default);
  EXPECT_EQ(retention.synonyms.size(), 1u);

  EXPECT_EQ(c.at("min.insync.replicas").value, std::optional<std::string>("2"));
  EXPECT_EQ(c.at("min.insync.replicas").config_source, source(kafka::ConfigSource::kStaticBrokerConfig));

  const auto& policy = c.at("cleanup.policy");
  EXPECT_EQ(policy.value, std::optional<std::string>("delete"));
  EXPECT_EQ(policy.config_source, source(kafka::ConfigSource::kTopicConfig));
  ASSERT_EQ(policy.synonyms.size(), 3u);  // the topic's, the static log.cleanup.policy, the default
  EXPECT_EQ(policy.synonyms[1].name, "log.cleanup.policy");
  EXPECT_EQ(policy.synonyms[1].value, std::optional<std::string>("compact"));

  EXPECT_EQ(c.at("flush.ms").config_source, source(kafka::ConfigSource::kDefaultConfig));
}

// ---- ElectLeaders ----

admin::v1::ElectLeadersResponse::Result Elected(const std::string& topic, int32_t partition, ErrorCode code,
                                                const std::string& message = "") {
  admin::v1::ElectLeadersResponse::Result r;
  r.set_topic(topic);
  r.set_partition_id(partition);
  r.set_error_code(static_cast<int32_t>(code));
  r.set_error_message(message);
  return r;
}

using Named = std::vector<kafka::ElectLeadersRequest::TopicPartitions>;

TEST_F(AdminHandlers, ElectLeadersForwardsEachNamedPartitionOnceAndMapsTheAnswersBack) {
  auto& answer = fake_.elect_leaders_answer;
  *answer.add_results() = Elected("t", 0, ErrorCode::kNone);
  *answer.add_results() = Elected("t", 1, ErrorCode::kElectionNotNeeded, "the preferred replica leads already");
  *answer.add_results() = Elected("gone", -1, ErrorCode::kUnknownTopicOrPartition, "topic 'gone' does not exist");
  *answer.add_results() = Elected("t", 9, ErrorCode::kUnknownTopicOrPartition, "partition 9 does not exist");
  kafka::ElectLeadersRequest request;
  request.election_type = static_cast<int8_t>(kafka::ElectionType::kPreferred);
  // t twice (merged), partition 0 twice (once), gone with two partitions, empty with none.
  request.topic_partitions = Named{{"t", {0, 1}}, {"gone", {0, 1}}, {"t", {0, 9, 4}}, {"empty", {}}};
  auto response = AnswerElectLeaders(*context_, request);

  EXPECT_EQ(fake_.elect_leaders.election_type(), admin::v1::ElectLeadersRequest::PREFERRED);
  ASSERT_EQ(fake_.elect_leaders.topics_size(), 2);
  EXPECT_EQ(fake_.elect_leaders.topics(0).name(), "t");
  EXPECT_EQ(std::vector<int32_t>(fake_.elect_leaders.topics(0).partitions().begin(),
                                 fake_.elect_leaders.topics(0).partitions().end()),
            (std::vector<int32_t>{0, 1, 9, 4}));
  EXPECT_EQ(fake_.elect_leaders.topics(1).name(), "gone");
  EXPECT_EQ(fake_.elect_leaders.topics(1).partitions_size(), 2);

  EXPECT_EQ(response.error_code, 0);
  ASSERT_EQ(response.replica_election_results.size(), 3u);  // t, gone, empty: request order
  const auto& t = response.replica_election_results[0];
  EXPECT_EQ(t.topic, "t");
  ASSERT_EQ(t.partition_result.size(), 4u);
  EXPECT_EQ(t.partition_result[0].partition_id, 0);
  EXPECT_EQ(t.partition_result[0].error_code, 0);
  EXPECT_EQ(t.partition_result[0].error_message, std::nullopt);
  EXPECT_EQ(t.partition_result[1].error_code, Code(ErrorCode::kElectionNotNeeded));
  EXPECT_EQ(t.partition_result[1].error_message, std::optional<std::string>("the preferred replica leads already"));
  EXPECT_EQ(t.partition_result[2].partition_id, 9);
  EXPECT_EQ(t.partition_result[2].error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  // Partition 4 was not answered by the controller: not taken as elected.
  EXPECT_EQ(t.partition_result[3].partition_id, 4);
  EXPECT_EQ(t.partition_result[3].error_code, Code(ErrorCode::kUnknownServerError));
  const auto& gone = response.replica_election_results[1];
  ASSERT_EQ(gone.partition_result.size(), 2u);
  for (const auto& p : gone.partition_result) EXPECT_EQ(p.error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(response.replica_election_results[2].topic, "empty");
  EXPECT_TRUE(response.replica_election_results[2].partition_result.empty());
}

TEST_F(AdminHandlers, ElectLeadersOfEveryPartitionAnswersOnlyThoseAnElectionConcerned) {
  auto& answer = fake_.elect_leaders_answer;
  *answer.add_results() = Elected("a", 0, ErrorCode::kElectionNotNeeded);
  *answer.add_results() = Elected("a", 1, ErrorCode::kNone);
  *answer.add_results() = Elected("b", 0, ErrorCode::kPreferredLeaderNotAvailable, "down");
  *answer.add_results() = Elected("a", 2, ErrorCode::kNone);
  *answer.add_results() = Elected("c", 0, ErrorCode::kElectionNotNeeded);
  kafka::ElectLeadersRequest request;  // topic_partitions null: every partition
  request.election_type = static_cast<int8_t>(kafka::ElectionType::kUnclean);
  auto response = AnswerElectLeaders(*context_, request);
  EXPECT_EQ(fake_.elect_leaders_calls, 1);
  EXPECT_EQ(fake_.elect_leaders.topics_size(), 0);  // every partition
  EXPECT_EQ(fake_.elect_leaders.election_type(), admin::v1::ElectLeadersRequest::UNCLEAN);
  EXPECT_EQ(response.error_code, 0);
  ASSERT_EQ(response.replica_election_results.size(), 2u);  // c had nothing to elect
  const auto& a = response.replica_election_results[0];
  EXPECT_EQ(a.topic, "a");
  ASSERT_EQ(a.partition_result.size(), 2u);
  EXPECT_EQ(a.partition_result[0].partition_id, 1);
  EXPECT_EQ(a.partition_result[1].partition_id, 2);
  const auto& b = response.replica_election_results[1];
  ASSERT_EQ(b.partition_result.size(), 1u);
  EXPECT_EQ(b.partition_result[0].error_code, Code(ErrorCode::kPreferredLeaderNotAvailable));
}

TEST_F(AdminHandlers, ElectLeadersRefusesAnUnknownElectionTypeWithoutForwarding) {
  kafka::ElectLeadersRequest request;
  request.election_type = 2;
  request.topic_partitions = Named{{"t", {0, 1}}};
  auto response = AnswerElectLeaders(*context_, request);
  EXPECT_EQ(fake_.elect_leaders_calls, 0);
  EXPECT_EQ(response.error_code, Code(ErrorCode::kInvalidRequest));
  ASSERT_EQ(response.replica_election_results.size(), 1u);
  ASSERT_EQ(response.replica_election_results[0].partition_result.size(), 2u);
  for (const auto& p : response.replica_election_results[0].partition_result) {
    EXPECT_EQ(p.error_code, Code(ErrorCode::kInvalidRequest));
  }
  // Named topics without partitions elect nothing: not forwarded either (an empty
  // forwarded list would mean every partition).
  request.election_type = 0;
  request.topic_partitions = Named{{"t", {}}};
  response = AnswerElectLeaders(*context_, request);
  EXPECT_EQ(fake_.elect_leaders_calls, 0);
  EXPECT_EQ(response.error_code, 0);
  ASSERT_EQ(response.replica_election_results.size(), 1u);
  EXPECT_TRUE(response.replica_election_results[0].partition_result.empty());
}

TEST_F(AdminHandlers, ElectLeadersPassesAControllerRefusalToEveryPartition) {
  fake_.elect_leaders_answer.set_error_code(static_cast<int32_t>(ErrorCode::kRequestTimedOut));
  fake_.elect_leaders_answer.set_error_message("metadata write failed");
  kafka::ElectLeadersRequest request;
  request.topic_partitions = Named{{"t", {0, 1}}};
  request.timeout_ms = 1000;
  auto response = AnswerElectLeaders(*context_, request);
  EXPECT_EQ(fake_.elect_leaders_calls, 1);
  EXPECT_EQ(response.error_code, Code(ErrorCode::kRequestTimedOut));
  ASSERT_EQ(response.replica_election_results.size(), 1u);
  ASSERT_EQ(response.replica_election_results[0].partition_result.size(), 2u);
  for (const auto& p : response.replica_election_results[0].partition_result) {
    EXPECT_EQ(p.error_code, Code(ErrorCode::kRequestTimedOut));
    EXPECT_NE(p.error_message.value_or("").find("metadata write failed"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata::broker
