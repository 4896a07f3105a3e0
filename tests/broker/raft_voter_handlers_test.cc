// The AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter handlers (KIP-853) against a fake
// AdminService on a loopback gRPC port: what is forwarded (the voter's key, listeners,
// cluster id, AckWhenCommitted, a timeout that leaves the broker time to answer) and how
// the controller's outcome maps back (its code and message as they are); a principal not
// allowed is refused with nothing forwarded; no controller answers REQUEST_TIMED_OUT; all
// three are in the registry at Kafka 4.4's versions.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "broker/handlers/api_registry.h"
#include "broker/handlers/raft_voter_handlers.h"
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

// An AdminService that records each voter change and answers what the test set.
class FakeAdmin final : public admin::v1::AdminService::Service {
 public:
  grpc::Status AddRaftVoter(grpc::ServerContext*, const admin::v1::AddRaftVoterRequest* request,
                            admin::v1::RaftVoterChangeResponse* response) override {
    add = *request;
    ++calls;
    *response = answer;
    return grpc::Status::OK;
  }
  grpc::Status RemoveRaftVoter(grpc::ServerContext*, const admin::v1::RemoveRaftVoterRequest* request,
                               admin::v1::RaftVoterChangeResponse* response) override {
    remove = *request;
    ++calls;
    *response = answer;
    return grpc::Status::OK;
  }
  grpc::Status UpdateRaftVoter(grpc::ServerContext*, const admin::v1::UpdateRaftVoterRequest* request,
                               admin::v1::RaftVoterChangeResponse* response) override {
    update = *request;
    ++calls;
    *response = answer;
    return grpc::Status::OK;
  }

  admin::v1::AddRaftVoterRequest add;
  admin::v1::RemoveRaftVoterRequest remove;
  admin::v1::UpdateRaftVoterRequest update;
  admin::v1::RaftVoterChangeResponse answer;
  int calls = 0;
};

class RaftVoterHandlers : public testing::ForwardingFixture<FakeAdmin> {};

const std::string kDirectory(16, '\x07');

kafka::AddRaftVoterRequest AddFour() {
  kafka::AddRaftVoterRequest request;
  request.cluster_id = "cluster-a";
  request.timeout_ms = 10000;
  request.voter_id = 4;
  request.voter_directory_id = kDirectory;
  request.listeners = {{"CONTROLLER", "10.0.0.4", 9093}};
  request.ack_when_committed = false;
  return request;
}

TEST_F(RaftVoterHandlers, AddForwardsTheVoterAndATimeoutWithinTheBrokersDeadline) {
  kafka::RaftVoterResponse done = AnswerAddRaftVoter(*context_, AddFour());
  EXPECT_EQ(done.error_code, 0);
  EXPECT_EQ(done.error_message, std::nullopt);
  EXPECT_EQ(fake_.add.cluster_id(), "cluster-a");
  EXPECT_EQ(fake_.add.voter_id(), 4);
  EXPECT_EQ(fake_.add.voter_directory_id(), kDirectory);
  ASSERT_EQ(fake_.add.listeners_size(), 1);
  EXPECT_EQ(fake_.add.listeners(0).name(), "CONTROLLER");
  EXPECT_EQ(fake_.add.listeners(0).host(), "10.0.0.4");
  EXPECT_EQ(fake_.add.listeners(0).port(), 9093);
  EXPECT_TRUE(fake_.add.ack_when_appended());
  EXPECT_EQ(fake_.add.timeout_ms(), 9500) << "the controller answers before the broker's 10 s pass";

  fake_.answer.set_error_code(Code(ErrorCode::kDuplicateVoter));
  fake_.answer.set_error_message("voter 4 is already a voter");
  kafka::RaftVoterResponse refused = AnswerAddRaftVoter(*context_, AddFour());
  EXPECT_EQ(refused.error_code, Code(ErrorCode::kDuplicateVoter));
  EXPECT_EQ(refused.error_message, std::optional<std::string>("voter 4 is already a voter"));
}

TEST_F(RaftVoterHandlers, RemoveAndUpdateForwardTheKeyAndPassTheOutcome) {
  kafka::RemoveRaftVoterRequest remove;
  remove.voter_id = 2;
  remove.voter_directory_id = kDirectory;
  fake_.answer.set_error_code(Code(ErrorCode::kVoterNotFound));
  fake_.answer.set_error_message("no voter 2 with that directory id");
  kafka::RaftVoterResponse removed = AnswerRemoveRaftVoter(*context_, remove);
  EXPECT_EQ(fake_.remove.voter_id(), 2);
  EXPECT_EQ(fake_.remove.voter_directory_id(), kDirectory);
  EXPECT_EQ(fake_.remove.cluster_id(), "") << "a null cluster id is none";
  EXPECT_EQ(removed.error_code, Code(ErrorCode::kVoterNotFound));
  EXPECT_EQ(removed.error_message, std::optional<std::string>("no voter 2 with that directory id"));

  kafka::UpdateRaftVoterRequest update;
  update.voter_id = 3;
  update.voter_directory_id = kDirectory;
  update.listeners = {{"CONTROLLER", "h3", 9095}};
  update.min_supported_version = 0;
  update.max_supported_version = 1;
  fake_.answer.set_error_code(0);
  fake_.answer.set_error_message("");
  kafka::UpdateRaftVoterResponse updated = AnswerUpdateRaftVoter(*context_, update);
  EXPECT_EQ(updated.error_code, 0);
  EXPECT_EQ(fake_.update.voter_id(), 3);
  EXPECT_EQ(fake_.update.listeners(0).host(), "h3");
  EXPECT_EQ(fake_.update.max_kraft_version(), 1);
}

TEST_F(RaftVoterHandlers, APrincipalNotAllowedIsRefusedAndNothingForwarded) {
  EXPECT_EQ(AnswerAddRaftVoter(*context_, AddFour(), /*authorized=*/false).error_code,
            Code(ErrorCode::kClusterAuthorizationFailed));
  EXPECT_EQ(AnswerRemoveRaftVoter(*context_, kafka::RemoveRaftVoterRequest{}, /*authorized=*/false).error_code,
            Code(ErrorCode::kClusterAuthorizationFailed));
  EXPECT_EQ(AnswerUpdateRaftVoter(*context_, kafka::UpdateRaftVoterRequest{}, /*authorized=*/false).error_code,
            Code(ErrorCode::kClusterAuthorizationFailed));
  EXPECT_EQ(fake_.calls, 0);
}

TEST(RaftVoterHandlersWithoutController, NoControllerIsRequestTimedOutAndTheRegistryHasKafkasVersions) {
  testing::TempDir tmp;
  testing::BrokerServices services(tmp.path());
  KafkaApisContext context = services.Context();
  kafka::AddRaftVoterRequest add = AddFour();
  add.timeout_ms = 1;  // the shortest wait: 1 s
  EXPECT_EQ(AnswerAddRaftVoter(context, add).error_code, Code(ErrorCode::kRequestTimedOut));
  for (auto [key, max] : {std::pair{kafka::ApiKey::kAddRaftVoter, 1}, {kafka::ApiKey::kRemoveRaftVoter, 0},
                          {kafka::ApiKey::kUpdateRaftVoter, 0}}) {
    const ApiEntry* range = FindApi(static_cast<int16_t>(key));
    ASSERT_NE(range, nullptr) << kafka::ApiName(static_cast<int16_t>(key));
    EXPECT_EQ(range->min_version, 0);
    EXPECT_EQ(range->max_version, max);
  }
}

}  // namespace
}  // namespace strata::broker
