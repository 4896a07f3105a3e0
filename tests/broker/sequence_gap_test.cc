// ReplicaManager::AppendRecords on a gap in an idempotent producer's first batch of a
// leader epoch (docs/idempotence.md): retriable while the epoch is new here, as Kafka
// answers it (OUT_OF_ORDER_SEQUENCE_NUMBER) once new_leader_gap_retriable_ms passed.
// A manual clock: no waiting.

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

namespace kafka = proto::kafka;

constexpr int64_t kRetriableMs = 30000;

class SequenceGapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::BrokerServicesOptions o;
    o.replicas.clock = &clock_;
    o.replicas.new_leader_gap_retriable_ms = kRetriableMs;
    services_ = std::make_unique<testing::BrokerServices>(tmp_.Sub("broker"), o);
    services_->Apply({testing::RegisterBrokerRecord(1), testing::RegisterBrokerRecord(2),
                      testing::TopicRecord("events", kTopicId), testing::PartitionRecord(kTopicId, 0, {1, 2}, {1, 2}, 1)});
  }
  kafka::ErrorCode Produce(int32_t base_sequence) {
    std::string batch = testing::MakeProducerBatch(2, 7, 0, base_sequence);
    return KafkaErrorCodeOf(services_->replicas().AppendRecords({"events", 0}, batch).status());
  }
  // Leadership goes to broker 2 and comes back: a new leader epoch begins here now.
  void LeadershipComesBack() {
    services_->Apply({testing::LeaderChangeRecord(kTopicId, 0, 2)});
    services_->Apply({testing::LeaderChangeRecord(kTopicId, 0, 1)});
  }

  const std::string kTopicId = std::string(16, 'g');
  testing::TempDir tmp_;
  storage::ManualClock clock_;
  std::unique_ptr<testing::BrokerServices> services_;
};

TEST_F(SequenceGapTest, AGapInAFirstBatchOfAnEpochIsRetriableWhileTheEpochIsNew) {
  ASSERT_EQ(Produce(0), kafka::ErrorCode::kNone);
  LeadershipComesBack();
  EXPECT_EQ(Produce(4), kafka::ErrorCode::kNotLeaderOrFollower);
  clock_.Advance(kRetriableMs);
  EXPECT_EQ(Produce(4), kafka::ErrorCode::kNotLeaderOrFollower);
  clock_.Advance(1);
  EXPECT_EQ(Produce(4), kafka::ErrorCode::kOutOfOrderSequenceNumber) << "the missing batch is not coming";

  // A later epoch is new again.
  LeadershipComesBack();
  EXPECT_EQ(Produce(4), kafka::ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(Produce(2), kafka::ErrorCode::kNone);
  EXPECT_EQ(Produce(6), kafka::ErrorCode::kOutOfOrderSequenceNumber) << "the producer has a batch in this epoch";
}

}  // namespace
}  // namespace strata::broker
