// The leader lease (ReplicaManager::Stranded): a leader that has reached neither the
// controller nor any other ISR member for leader_lease_ms refuses produce and is listed
// as stranded (Metadata then names no leader for it); one that still hears from the
// controller, or from a follower, or that is the only ISR member, keeps leading.
// A manual clock for the follower fetches and a settable "since the controller last
// accepted a heartbeat": no waiting.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "broker/common/kafka_error.h"
#include "broker/replication/replica_manager.h"
#include "storage/clock.h"
#include "tests/support/batches.h"
#include "tests/support/broker_services.h"
#include "tests/support/metadata_records.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kLeaseMs = 2500;

class LeaderLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::BrokerServicesOptions o;
    o.replicas.clock = &clock_;
    o.replicas.since_controller_contact = [this] { return std::chrono::milliseconds(since_contact_ms_.load()); };
    o.replicas.leader_lease_ms = kLeaseMs;
    services_ = std::make_unique<testing::BrokerServices>(tmp_.Sub("broker"), o);
    // Broker 1 leads events-0 (ISR {1, 2}) and events-1 (ISR {1}).
    const std::string topic_id(16, 'i');
    services_->Apply({testing::RegisterBrokerRecord(1), testing::RegisterBrokerRecord(2),
                      testing::TopicRecord("events", topic_id), testing::PartitionRecord(topic_id, 0, {1, 2}, {1, 2}, 1),
                      testing::PartitionRecord(topic_id, 1, {1}, {1}, 1)});
    ASSERT_NE(partition(0), nullptr);
    ASSERT_NE(partition(1), nullptr);
  }
  ReplicaManager& replicas() { return services_->replicas(); }
  std::shared_ptr<Partition> partition(int32_t index) { return replicas().GetPartition({"events", index}); }
  absl::Status Produce(int32_t index) {
    std::string batch = testing::MakeBatch(1, "v");
    return replicas().AppendRecords({"events", index}, batch).status();
  }
  void FollowerFetches() {
    auto p = partition(0);
    replicas().UpdateFollowerFetchState(*p, 2, p->log()->log_end_offset(), p->log()->log_end_offset());
  }

  testing::TempDir tmp_;
  storage::ManualClock clock_;
  std::atomic<int64_t> since_contact_ms_{0};
  std::unique_ptr<testing::BrokerServices> services_;
};

TEST_F(LeaderLeaseTest, ALeaderCutOffFromTheControllerAndItsFollowersStopsLeading) {
  ASSERT_TRUE(Produce(0).ok());
  // The follower never fetches, but the controller accepts heartbeats: still leading.
  clock_.Advance(kLeaseMs + 1);
  EXPECT_FALSE(replicas().Stranded(*partition(0)));
  ASSERT_TRUE(Produce(0).ok());

  // The controller is out of reach too, for longer than the lease: stranded.
  since_contact_ms_ = kLeaseMs + 1;
  EXPECT_TRUE(replicas().Stranded(*partition(0)));
  absl::Status refused = Produce(0);
  EXPECT_EQ(KafkaErrorCodeOf(refused), proto::kafka::ErrorCode::kNotLeaderOrFollower) << refused;
  EXPECT_EQ(replicas().StrandedPartitions(), (std::set<storage::TopicPartition>{{"events", 0}}));

  // The only member of its ISR has nobody to be cut off from: it keeps leading.
  EXPECT_FALSE(replicas().Stranded(*partition(1)));
  EXPECT_TRUE(Produce(1).ok());

  // A fetch from the follower: the broker is not cut off, whatever the controller does.
  FollowerFetches();
  EXPECT_FALSE(replicas().Stranded(*partition(0)));
  EXPECT_TRUE(Produce(0).ok());
  clock_.Advance(kLeaseMs);
  EXPECT_FALSE(replicas().Stranded(*partition(0))) << "the follower fetched exactly a lease ago";
  clock_.Advance(1);
  EXPECT_TRUE(replicas().Stranded(*partition(0)));

  // The controller again: leading again.
  since_contact_ms_ = 0;
  EXPECT_FALSE(replicas().Stranded(*partition(0)));
  EXPECT_TRUE(replicas().StrandedPartitions().empty());
  EXPECT_TRUE(Produce(0).ok());
}

// The state behind librdkafka's duplicates (docs/idempotence.md): an idempotent producer
// pipelines two batches; the first reaches the leader while it is stranded and is refused
// without being stored, the second just after the lease came back. Answered
// OUT_OF_ORDER_SEQUENCE_NUMBER, the second makes librdkafka bump its epoch and send every
// unacknowledged batch again; answered as the first was, it is retried behind it.
TEST_F(LeaderLeaseTest, ABatchPipelinedBehindOneRefusedWhileStrandedIsRefusedAlike) {
  auto produce = [&](int32_t base_sequence) {
    std::string batch = testing::MakeProducerBatch(2, 7, 0, base_sequence);
    return replicas().AppendRecords({"events", 0}, batch);
  };
  ASSERT_TRUE(produce(0).ok());
  FollowerFetches();

  since_contact_ms_ = kLeaseMs + 1;
  clock_.Advance(kLeaseMs + 1);
  ASSERT_TRUE(replicas().Stranded(*partition(0)));
  auto first = produce(2);
  EXPECT_EQ(KafkaErrorCodeOf(first.status()), proto::kafka::ErrorCode::kNotLeaderOrFollower) << first.status();

  FollowerFetches();  // the lease is back before the second batch is read
  ASSERT_FALSE(replicas().Stranded(*partition(0)));
  auto second = produce(4);
  EXPECT_EQ(KafkaErrorCodeOf(second.status()), proto::kafka::ErrorCode::kNotLeaderOrFollower) << second.status();
  EXPECT_THAT(std::string(second.status().message()), ::testing::HasSubstr("behind sequence 2, which was refused"));

  // The producer sends both again, in order: each is stored once.
  auto retried_first = produce(2);
  ASSERT_TRUE(retried_first.ok()) << retried_first.status();
  auto retried_second = produce(4);
  ASSERT_TRUE(retried_second.ok()) << retried_second.status();
  EXPECT_EQ(retried_first->first_offset, 2);
  EXPECT_EQ(retried_second->first_offset, 4);
  EXPECT_EQ(partition(0)->log()->log_end_offset(), 6);

  // A gap behind nothing refused here is still one.
  auto gap = produce(10);
  EXPECT_EQ(KafkaErrorCodeOf(gap.status()), proto::kafka::ErrorCode::kOutOfOrderSequenceNumber) << gap.status();
}

}  // namespace
}  // namespace strata::broker
