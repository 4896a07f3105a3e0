// The UpdateFeatures and UnregisterBroker handlers against a fake AdminService on a
// loopback gRPC port: what is forwarded (v0's allow_downgrade as a safe downgrade, v1+
// upgrade types as sent, an unknown one as UNKNOWN, validate_only, the broker id) and
// how the controller's one outcome maps back (v0-v1 per-feature NONE only when the
// request passed, the refusal top-level with the controller's message as it is); a
// principal not allowed is refused with nothing forwarded; no controller answers
// REQUEST_TIMED_OUT; both are in the registry at Kafka 4's versions.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "broker/handlers/api_registry.h"
#include "broker/handlers/unregister_broker_handler.h"
#include "broker/handlers/update_features_handler.h"
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

// An AdminService that records each request and answers what the test set.
class FakeAdmin final : public admin::v1::AdminService::Service {
 public:
  grpc::Status UpdateFeatures(grpc::ServerContext*, const admin::v1::UpdateFeaturesRequest* request,
                              admin::v1::UpdateFeaturesResponse* response) override {
    update_features = *request;
    ++calls;
    *response = update_features_answer;
    return grpc::Status::OK;
  }
  grpc::Status UnregisterBroker(grpc::ServerContext*, const admin::v1::UnregisterBrokerRequest* request,
                                admin::v1::UnregisterBrokerResponse* response) override {
    unregister_broker = *request;
    ++calls;
    *response = unregister_broker_answer;
    return grpc::Status::OK;
  }

  admin::v1::UpdateFeaturesRequest update_features;
  admin::v1::UpdateFeaturesResponse update_features_answer;
  admin::v1::UnregisterBrokerRequest unregister_broker;
  admin::v1::UnregisterBrokerResponse unregister_broker_answer;
  int calls = 0;
};

class ClusterFeaturesHandlers : public testing::ForwardingFixture<FakeAdmin> {};

kafka::UpdateFeaturesRequest TwoUpdates() {
  kafka::UpdateFeaturesRequest r;
  r.feature_updates.push_back({"transaction.version", 1, /*allow_downgrade=*/true, /*upgrade_type=*/3});
  r.feature_updates.push_back({"other.version", 2, false, 1});
  r.timeout_ms = 5000;
  return r;
}

TEST_F(ClusterFeaturesHandlers, V0AllowDowngradeIsForwardedAsASafeDowngrade) {
  kafka::UpdateFeaturesResponse response = AnswerUpdateFeatures(*context_, TwoUpdates(), 0);
  EXPECT_EQ(response.error_code, 0);
  ASSERT_EQ(fake_.update_features.updates_size(), 2);
  EXPECT_EQ(fake_.update_features.updates(0).feature(), "transaction.version");
  EXPECT_EQ(fake_.update_features.updates(0).max_version_level(), 1);
  EXPECT_EQ(fake_.update_features.updates(0).upgrade_type(), admin::v1::FeatureUpdate::SAFE_DOWNGRADE);
  EXPECT_EQ(fake_.update_features.updates(1).upgrade_type(), admin::v1::FeatureUpdate::UPGRADE);
  EXPECT_FALSE(fake_.update_features.validate_only());
  // A passed request lists each feature with NONE (written for v0-v1 only).
  ASSERT_EQ(response.results.size(), 2u);
  EXPECT_EQ(response.results[1].feature, "other.version");
  EXPECT_EQ(response.results[1].error_code, 0);
}

TEST_F(ClusterFeaturesHandlers, V1UpgradeTypesAreForwardedAsSentAndAnUnknownOneAsUnknown) {
  kafka::UpdateFeaturesRequest request = TwoUpdates();
  request.feature_updates[1].upgrade_type = 9;  // a newer client's
  request.validate_only = true;
  AnswerUpdateFeatures(*context_, request, 1);
  EXPECT_TRUE(fake_.update_features.validate_only());
  ASSERT_EQ(fake_.update_features.updates_size(), 2);
  EXPECT_EQ(fake_.update_features.updates(0).upgrade_type(), admin::v1::FeatureUpdate::UNSAFE_DOWNGRADE);
  EXPECT_EQ(fake_.update_features.updates(1).upgrade_type(), admin::v1::FeatureUpdate::UNKNOWN);
}

TEST_F(ClusterFeaturesHandlers, ARefusalIsTopLevelWithTheControllersMessageAndNoResults) {
  fake_.update_features_answer.set_error_code(static_cast<int32_t>(ErrorCode::kInvalidUpdateVersion));
  fake_.update_features_answer.set_error_message("level 3 of feature transaction.version: broker 2 supports levels 0-2");
  kafka::UpdateFeaturesResponse response = AnswerUpdateFeatures(*context_, TwoUpdates(), 1);
  EXPECT_EQ(response.error_code, Code(ErrorCode::kInvalidUpdateVersion));
  EXPECT_EQ(response.error_message, fake_.update_features_answer.error_message());
  EXPECT_TRUE(response.results.empty()) << "as Kafka: no per-feature results once refused";
}

TEST_F(ClusterFeaturesHandlers, UnregisterBrokerForwardsTheIdAndPassesTheOutcome) {
  kafka::UnregisterBrokerResponse done = AnswerUnregisterBroker(*context_, kafka::UnregisterBrokerRequest{4});
  EXPECT_EQ(fake_.unregister_broker.broker_id(), 4);
  EXPECT_EQ(done.error_code, 0);
  EXPECT_EQ(done.error_message, std::nullopt);
  fake_.unregister_broker_answer.set_error_code(static_cast<int32_t>(ErrorCode::kBrokerIdNotRegistered));
  fake_.unregister_broker_answer.set_error_message("broker 99 is not registered");
  kafka::UnregisterBrokerResponse unknown = AnswerUnregisterBroker(*context_, kafka::UnregisterBrokerRequest{99});
  EXPECT_EQ(unknown.error_code, Code(ErrorCode::kBrokerIdNotRegistered));
  EXPECT_EQ(unknown.error_message, std::optional<std::string>("broker 99 is not registered"));
}

TEST_F(ClusterFeaturesHandlers, APrincipalNotAllowedIsRefusedAndNothingForwarded) {
  kafka::UpdateFeaturesResponse features = AnswerUpdateFeatures(*context_, TwoUpdates(), 2, /*authorized=*/false);
  EXPECT_EQ(features.error_code, Code(ErrorCode::kClusterAuthorizationFailed));
  EXPECT_TRUE(features.results.empty());
  kafka::UnregisterBrokerResponse unregister =
      AnswerUnregisterBroker(*context_, kafka::UnregisterBrokerRequest{4}, /*authorized=*/false);
  EXPECT_EQ(unregister.error_code, Code(ErrorCode::kClusterAuthorizationFailed));
  EXPECT_EQ(fake_.calls, 0);
}

TEST(ClusterFeaturesHandlersWithoutController, NoControllerIsRequestTimedOut) {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  EXPECT_EQ(AnswerUpdateFeatures(context, TwoUpdates(), 2).error_code, Code(ErrorCode::kRequestTimedOut));
  EXPECT_EQ(AnswerUnregisterBroker(context, kafka::UnregisterBrokerRequest{4}).error_code,
            Code(ErrorCode::kRequestTimedOut));
  for (auto [key, max] : {std::pair{kafka::ApiKey::kUpdateFeatures, 2}, {kafka::ApiKey::kUnregisterBroker, 0}}) {
    const ApiEntry* range = FindApi(static_cast<int16_t>(key));
    ASSERT_NE(range, nullptr) << kafka::ApiName(static_cast<int16_t>(key));
    EXPECT_EQ(range->min_version, 0);
    EXPECT_EQ(range->max_version, max);
  }
}

}  // namespace
}  // namespace strata::broker
