// The leader's ISR expansions (ReplicaManager's ISR thread) against a fake
// ControllerService on a loopback gRPC port: a follower that caught up is proposed
// only while the image shows its broker neither fenced nor shutting down — the
// controller would refuse it (INELIGIBLE_REPLICA), and each of its fetches would send
// another refused AlterPartition — and is proposed as soon as it is unfenced.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <vector>

#include "absl/synchronization/mutex.h"
#include "broker/controller_client.h"
#include "broker/replica_manager.h"
#include "controller/metadata_store.h"
#include "proto/kafka/error_code.h"
#include "tests/support/loopback_grpc.h"
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
  std::vector<controller::v1::AlterPartitionRequest> requests ABSL_GUARDED_BY(mu);
};

class IsrChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    controller_ = testing::StartLoopbackController(&fake_);
    ASSERT_NE(controller_.server, nullptr);
    auto s = controller::MetadataStore::Open(tmp_.Sub("metadata"));
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
    storage::LogManagerOptions lmo;
    lmo.log_dirs = {tmp_.Sub("logs")};
    lmo.cluster_id = "test-cluster";
    lmo.node_id = 1;
    lmo.scheduler = &scheduler_;
    auto l = storage::LogManager::Open(lmo);
    ASSERT_TRUE(l.ok()) << l.status();
    logs_ = std::move(*l);
    ReplicaManagerOptions rmo;
    rmo.broker_id = 1;
    rmo.logs = logs_.get();
    rmo.controller = controller_.client.get();
    rmo.broker_epoch = [] { return int64_t{1}; };
    rmo.fetch_from_leaders = false;
    replicas_ = std::make_unique<ReplicaManager>(rmo);
  }
  void TearDown() override {
    replicas_->Shutdown();
    replicas_.reset();
    scheduler_.Shutdown();
    controller_.server->Shutdown();
  }
  void Apply(const pb::MetadataBatch& batch) {
    ASSERT_TRUE(store_->Apply(raft::Entry{1, ++index_, batch.SerializeAsString()}).ok());
    store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
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
    std::shared_ptr<Partition> p = replicas_->GetPartition({"events", index});
    ASSERT_NE(p, nullptr);
    replicas_->UpdateFollowerFetchState(*p, replica, 0, 0);
  }

  testing::TempDir tmp_;
  FakeController fake_;
  testing::LoopbackController controller_;
  storage::Scheduler scheduler_{1};
  std::unique_ptr<controller::MetadataStore> store_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<ReplicaManager> replicas_;
  int64_t index_ = 0;
};

TEST_F(IsrChangeTest, AFencedFollowerIsNotProposedUntilItIsUnfenced) {
  // Broker 1 leads events-0 (replicas 1, 3) and events-1 (replicas 1, 2), each with the
  // ISR {1}. Broker 3 is a new incarnation, still fenced.
  pb::MetadataBatch batch;
  for (int32_t id : {1, 2, 3}) {
    auto* r = batch.add_records()->mutable_register_broker();
    r->set_broker_id(id);
    r->set_broker_epoch(1);
    r->set_incarnation_id(std::string(16, static_cast<char>('a' + id)));
    r->set_fenced(id == 3);
  }
  auto* topic = batch.add_records()->mutable_topic();
  topic->set_name("events");
  topic->set_topic_id(kTopicId);
  for (int32_t index : {0, 1}) {
    auto* p = batch.add_records()->mutable_partition();
    p->set_topic_id(kTopicId);
    p->set_partition_id(index);
    p->add_replicas(1);
    p->add_replicas(index == 0 ? 3 : 2);
    p->add_isr(1);
    p->set_leader(1);
  }
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
  pb::MetadataBatch batch;
  for (int32_t id : {1, 2, 3}) {
    auto* r = batch.add_records()->mutable_register_broker();
    r->set_broker_id(id);
    r->set_broker_epoch(1);
    r->set_incarnation_id(std::string(16, static_cast<char>('a' + id)));
    r->add_log_dirs(std::string(16, static_cast<char>('0' + id)));
  }
  auto* offline = batch.add_records()->mutable_broker_registration_change();
  offline->set_broker_id(3);
  offline->set_broker_epoch(1);
  offline->add_offline_log_dirs(d3);
  auto* topic = batch.add_records()->mutable_topic();
  topic->set_name("events");
  topic->set_topic_id(kTopicId);
  for (int32_t index : {0, 1}) {
    auto* p = batch.add_records()->mutable_partition();
    p->set_topic_id(kTopicId);
    p->set_partition_id(index);
    p->add_replicas(1);
    p->add_replicas(index == 0 ? 3 : 2);
    p->add_directories(std::string(16, '1'));
    p->add_directories(index == 0 ? d3 : std::string(16, '2'));
    p->add_isr(1);
    p->set_leader(1);
  }
  Apply(batch);
  for (int i = 0; i < 5; ++i) CaughtUp(0, 3);
  CaughtUp(1, 2);
  ASSERT_TRUE(WaitForProposalOf(1));
  for (const auto& [index, isr] : fake_.Proposed()) {
    EXPECT_EQ(index, 1) << "events-0 was proposed with broker 3, whose replica's log dir is offline";
  }
}

}  // namespace
}  // namespace strata::broker
