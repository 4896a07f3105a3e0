// The leader's ISR expansions (ReplicaManager's ISR thread) against a fake
// ControllerService on a loopback gRPC port: a follower that caught up is proposed
// only while the image shows its broker neither fenced nor shutting down — the
// controller would refuse it (INELIGIBLE_REPLICA), and each of its fetches would send
// another refused AlterPartition — and is proposed as soon as it is unfenced.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <vector>

#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/replication/replica_manager.h"
#include "controller/metadata_store.h"
#include "proto/kafka/error_code.h"
#include "tests/support/broker_services.h"
#include "tests/support/loopback_grpc.h"
#include "tests/support/metadata_records.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace pb = metadata::v1;
using namespace std::chrono_literals;

const std::string kTopicId(16, 'i');

// Records every AlterPartition and refuses what the real controller would: a new ISR
// member whose broker is fenced (the test says which).
class FakeController final : public controller::v1::ControllerService::Service {
 public:
  grpc::Status AlterPartition(grpc::ServerContext*, const controller::v1::AlterPartitionRequest* request,
                              controller::v1::AlterPartitionResponse* response) override {
    absl::MutexLock lock(&mu);
    if (unreachable) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "cut off (the test)");
    requests.push_back(*request);
    for (const auto& p : request->partitions()) {
      auto* answer = response->add_partitions();
      answer->set_topic_id(p.topic_id());
      answer->set_partition_id(p.partition_id());
      for (int32_t b : p.new_isr()) {
        if (fenced.count(b)) answer->set_error_code(static_cast<int32_t>(proto::kafka::ErrorCode::kIneligibleReplica));
      }
    }
    return grpc::Status::OK;
  }
  // The partitions proposed so far, each with the ISR it was proposed with.
  std::vector<std::pair<int32_t, std::vector<int32_t>>> Proposed() {
    absl::MutexLock lock(&mu);
    std::vector<std::pair<int32_t, std::vector<int32_t>>> out;
    for (const auto& r : requests) {
      for (const auto& p : r.partitions()) out.emplace_back(p.partition_id(), std::vector<int32_t>(p.new_isr().begin(), p.new_isr().end()));
    }
    return out;
  }
  absl::Mutex mu;
  std::set<int32_t> fenced ABSL_GUARDED_BY(mu);
  bool unreachable ABSL_GUARDED_BY(mu) = false;  // every call fails, none applied
  std::vector<controller::v1::AlterPartitionRequest> requests ABSL_GUARDED_BY(mu);
};

class IsrChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    controller_ = testing::StartLoopbackController(&fake_);
    ASSERT_NE(controller_.server, nullptr);
    testing::BrokerServicesOptions o;
    o.replicas.controller = controller_.client.get();
    o.replicas.broker_epoch = [] { return int64_t{1}; };
    services_ = std::make_unique<testing::BrokerServices>(tmp_.Sub("broker"), o);
  }
  void TearDown() override {
    services_.reset();
    controller_.server->Shutdown();
  }
  void Apply(const pb::MetadataBatch& batch) { services_->Apply(batch); }
  // Brokers 1, 2, 3 (dir i x 16 each) and topic events: partition 0 on brokers 1 and 3,
  // partition 1 on brokers 1 and 2, each led by broker 1 with the ISR {1}.
  static pb::MetadataBatch TwoPartitionsLedByBroker1() {
    pb::MetadataBatch batch;
    for (int32_t id : {1, 2, 3}) {
      auto* r = batch.add_records();
      *r = testing::RegisterBrokerRecord(id);
      r->mutable_register_broker()->add_log_dirs(std::string(16, static_cast<char>('0' + id)));
    }
    *batch.add_records() = testing::TopicRecord("events", kTopicId);
    for (int32_t index : {0, 1}) {
      int32_t follower = index == 0 ? 3 : 2;
      auto* p = batch.add_records();
      *p = testing::PartitionRecord(kTopicId, index, {1, follower}, {1}, 1);
      p->mutable_partition()->add_directories(std::string(16, '1'));
      p->mutable_partition()->add_directories(std::string(16, static_cast<char>('0' + follower)));
    }
    return batch;
  }
  // Whether an expansion of partition `index` reached the controller within 10 s. The ISR
  // thread sends whatever is queued at once, in the order queued.
  bool WaitForProposalOf(int32_t index) {
    return testing::WaitUntil(
        [&] {
          for (const auto& [proposed, isr] : fake_.Proposed()) {
            if (proposed == index) return true;
          }
          return false;
        },
        10s);
  }
  // Follower `replica` of partition `index` fetched at the leader's (empty) log end.
  void CaughtUp(int32_t index, int32_t replica) {
    std::shared_ptr<Partition> p = services_->replicas().GetPartition({"events", index});
    ASSERT_NE(p, nullptr);
    services_->replicas().UpdateFollowerFetchState(*p, replica, 0, 0);
  }

  testing::TempDir tmp_;
  FakeController fake_;
  testing::LoopbackController controller_;
  std::unique_ptr<testing::BrokerServices> services_;
};

TEST_F(IsrChangeTest, AFencedFollowerIsNotProposedUntilItIsUnfenced) {
  // Broker 1 leads events-0 (replicas 1, 3) and events-1 (replicas 1, 2), each with the
  // ISR {1}. Broker 3 is a new incarnation, still fenced.
  pb::MetadataBatch batch = TwoPartitionsLedByBroker1();
  batch.mutable_records(2)->mutable_register_broker()->set_fenced(true);
  {
    absl::MutexLock lock(&fake_.mu);
    fake_.fenced = {3};
  }
  Apply(batch);

  // Broker 3 catches up on events-0 (several fetches), then broker 2 on events-1. The ISR
  // thread sends whatever is queued at once, in the order queued: once events-1's
  // expansion arrived, events-0's would have arrived before or with it.
  for (int i = 0; i < 5; ++i) CaughtUp(0, 3);
  CaughtUp(1, 2);
  ASSERT_TRUE(WaitForProposalOf(1));
  for (const auto& [index, isr] : fake_.Proposed()) {
    EXPECT_EQ(index, 1) << "events-0 was proposed with fenced broker 3 in its ISR";
    EXPECT_EQ(isr, (std::vector<int32_t>{1, 2}));
  }

  // Unfenced: its next fetch proposes it.
  pb::MetadataBatch unfence;
  unfence.add_records()->mutable_unfence_broker()->set_broker_id(3);
  unfence.mutable_records(0)->mutable_unfence_broker()->set_broker_epoch(1);
  {
    absl::MutexLock lock(&fake_.mu);
    fake_.fenced.clear();
  }
  Apply(unfence);
  CaughtUp(0, 3);
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        for (const auto& [index, isr] : fake_.Proposed()) {
          if (index == 0 && isr == std::vector<int32_t>{1, 3}) return true;
        }
        return false;
      },
      10s))
      << "broker 3, unfenced and caught up, was not proposed";
}

TEST_F(IsrChangeTest, AFollowerWhoseLogDirIsOfflineIsNotProposed) {
  // Broker 1 leads events-0 (replicas 1, 3; broker 3's replica in dir D3) and events-1
  // (replicas 1, 2), each with the ISR {1}. Broker 3 reported D3 offline: the controller
  // would refuse it in an ISR (INELIGIBLE_REPLICA), so its fetches must not propose it.
  const std::string d3(16, '3');
  pb::MetadataBatch batch = TwoPartitionsLedByBroker1();
  auto* offline = batch.add_records()->mutable_broker_registration_change();
  offline->set_broker_id(3);
  offline->set_broker_epoch(1);
  offline->add_offline_log_dirs(d3);
  Apply(batch);
  for (int i = 0; i < 5; ++i) CaughtUp(0, 3);
  CaughtUp(1, 2);
  ASSERT_TRUE(WaitForProposalOf(1));
  for (const auto& [index, isr] : fake_.Proposed()) {
    EXPECT_EQ(index, 1) << "events-0 was proposed with broker 3, whose replica's log dir is offline";
  }
}

// Found by the replication simulation (seed 4370): a change the controller did not
// answer was dropped, yet the controller may have applied it; until the metadata said
// so the high watermark could pass a follower that was already in the ISR.
TEST_F(IsrChangeTest, AnUnansweredChangeStaysPendingAndIsAskedAgain) {
  {
    absl::MutexLock lock(&fake_.mu);
    fake_.unreachable = true;
  }
  Apply(TwoPartitionsLedByBroker1());
  CaughtUp(0, 3);
  std::shared_ptr<Partition> p = services_->replicas().GetPartition({"events", 0});
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(testing::WaitUntil([&] { return services_->replicas().isr_changes_failed() >= 1; }, 20s))
      << "the AlterPartition did not fail";
  EXPECT_EQ(p->pending_isr(), (std::vector<int32_t>{1, 3})) << "unanswered: the controller may have applied it";
  {
    absl::MutexLock lock(&fake_.mu);
    fake_.unreachable = false;
  }
  EXPECT_TRUE(WaitForProposalOf(0)) << "the unanswered change was not asked again";
}

}  // namespace
}  // namespace strata::broker
