// The leader lease (ReplicaManager::Stranded): a leader that has reached neither the
// controller nor any other ISR member for leader_lease_ms refuses produce and is listed
// as stranded (Metadata then names no leader for it); one that still hears from the
// controller, or from a follower, or that is the only ISR member, keeps leading.
// A manual clock for the follower fetches and a settable "since the controller last
// accepted a heartbeat": no waiting.

#include <gtest/gtest.h>

#include "broker/kafka_error.h"
#include "broker/replica_manager.h"
#include "controller/metadata_store.h"
#include "storage/clock.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace pb = metadata::v1;
using namespace std::chrono_literals;

constexpr int64_t kLeaseMs = 2500;

class LeaderLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
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
    rmo.fetch_from_leaders = false;
    rmo.clock = &clock_;
    rmo.since_controller_contact = [this] { return std::chrono::milliseconds(since_contact_ms_.load()); };
    rmo.leader_lease_ms = kLeaseMs;
    replicas_ = std::make_unique<ReplicaManager>(rmo);

    // Broker 1 leads events-0 (ISR {1, 2}) and events-1 (ISR {1}).
    pb::MetadataBatch batch;
    for (int32_t id : {1, 2}) {
      auto* r = batch.add_records()->mutable_register_broker();
      r->set_broker_id(id);
      r->set_broker_epoch(1);
      r->set_incarnation_id(std::string(16, static_cast<char>('a' + id)));
    }
    auto* topic = batch.add_records()->mutable_topic();
    topic->set_name("events");
    topic->set_topic_id(std::string(16, 'i'));
    for (int32_t index : {0, 1}) {
      auto* p = batch.add_records()->mutable_partition();
      p->set_topic_id(std::string(16, 'i'));
      p->set_partition_id(index);
      p->add_replicas(1);
      p->add_isr(1);
      if (index == 0) {
        p->add_replicas(2);
        p->add_isr(2);
      }
      p->set_leader(1);
    }
    ASSERT_TRUE(store_->Apply(raft::Entry{1, 1, batch.SerializeAsString()}).ok());
    store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
    ASSERT_NE(partition(0), nullptr);
    ASSERT_NE(partition(1), nullptr);
  }
  void TearDown() override {
    replicas_->Shutdown();
    replicas_.reset();
    scheduler_.Shutdown();
  }
  std::shared_ptr<Partition> partition(int32_t index) { return replicas_->GetPartition({"events", index}); }
  absl::Status Produce(int32_t index) {
    std::string batch = testing::MakeBatch(1, "v");
    return replicas_->AppendRecords({"events", index}, batch).status();
  }
  void FollowerFetches() {
    auto p = partition(0);
    replicas_->UpdateFollowerFetchState(*p, 2, p->log()->log_end_offset(), p->log()->log_end_offset());
  }

  testing::TempDir tmp_;
  storage::ManualClock clock_;
  std::atomic<int64_t> since_contact_ms_{0};
  storage::Scheduler scheduler_{1};
  std::unique_ptr<controller::MetadataStore> store_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<ReplicaManager> replicas_;
};

TEST_F(LeaderLeaseTest, ALeaderCutOffFromTheControllerAndItsFollowersStopsLeading) {
  ASSERT_TRUE(Produce(0).ok());
  // The follower never fetches, but the controller accepts heartbeats: still leading.
  clock_.Advance(kLeaseMs + 1);
  EXPECT_FALSE(replicas_->Stranded(*partition(0)));
  ASSERT_TRUE(Produce(0).ok());

  // The controller is out of reach too, for longer than the lease: stranded.
  since_contact_ms_ = kLeaseMs + 1;
  EXPECT_TRUE(replicas_->Stranded(*partition(0)));
  absl::Status refused = Produce(0);
  EXPECT_EQ(KafkaErrorCodeOf(refused), proto::kafka::ErrorCode::kNotLeaderOrFollower) << refused;
  EXPECT_EQ(replicas_->StrandedPartitions(), (std::set<storage::TopicPartition>{{"events", 0}}));

  // The only member of its ISR has nobody to be cut off from: it keeps leading.
  EXPECT_FALSE(replicas_->Stranded(*partition(1)));
  EXPECT_TRUE(Produce(1).ok());

  // A fetch from the follower: the broker is not cut off, whatever the controller does.
  FollowerFetches();
  EXPECT_FALSE(replicas_->Stranded(*partition(0)));
  EXPECT_TRUE(Produce(0).ok());
  clock_.Advance(kLeaseMs);
  EXPECT_FALSE(replicas_->Stranded(*partition(0))) << "the follower fetched exactly a lease ago";
  clock_.Advance(1);
  EXPECT_TRUE(replicas_->Stranded(*partition(0)));

  // The controller again: leading again.
  since_contact_ms_ = 0;
  EXPECT_FALSE(replicas_->Stranded(*partition(0)));
  EXPECT_TRUE(replicas_->StrandedPartitions().empty());
  EXPECT_TRUE(Produce(0).ok());
}

}  // namespace
}  // namespace strata::broker
