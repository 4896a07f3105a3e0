// ProduceRefusals: which refusals are remembered, which gap they explain, for how long,
// and the bound on how many. A manual clock: no waiting.

#include "broker/replication/produce_refusals.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "broker/common/kafka_error.h"
#include "storage/clock.h"
#include "storage/errc.h"
#include "tests/support/batches.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;

const storage::TopicPartition kTp{"events", 0};

absl::Status NotLeader() { return KafkaError(kafka::ErrorCode::kNotLeaderOrFollower, "not the leader yet"); }
storage::SequenceGap GapExpecting(int32_t sequence) { return {.expected_sequence = sequence, .last_offset = 100}; }

class ProduceRefusalsTest : public ::testing::Test {
 protected:
  ProduceRefusals refusals_{ProduceRefusalsOptions{.max_entries = 3, .remember_ms = 1000, .clock = &clock_}};
  storage::ManualClock clock_;
};

TEST_F(ProduceRefusalsTest, AGapWhereARefusedBatchBelongsIsAnsweredWithItsRefusal) {
  refusals_.Refused(kTp, testing::MakeProducerBatch(3, 7, 1, 10), NotLeader());
  auto answer = refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(2, 7, 1, 13), GapExpecting(10));
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(KafkaErrorCodeOf(*answer), kafka::ErrorCode::kNotLeaderOrFollower);
  EXPECT_THAT(std::string(answer->message()), ::testing::HasSubstr("not the leader yet"));

  // Another expected sequence, producer, epoch or partition: a gap of its own.
  EXPECT_FALSE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(2, 7, 1, 13), GapExpecting(9)));
  EXPECT_FALSE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(2, 8, 1, 13), GapExpecting(10)));
  EXPECT_FALSE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(2, 7, 2, 13), GapExpecting(10)));
  EXPECT_FALSE(refusals_.GapBehindRefusal({"events", 1}, testing::MakeProducerBatch(2, 7, 1, 13), GapExpecting(10)));
}

TEST_F(ProduceRefusalsTest, OnlyRetriableRefusalsOfIdempotentBatchesAreRemembered) {
  refusals_.Refused(kTp, testing::MakeProducerBatch(1, 7, 1, 10),
                    KafkaError(kafka::ErrorCode::kInvalidRecord, "a bad record"));
  refusals_.Refused(kTp, testing::MakeBatch(1, "plain"), NotLeader());
  refusals_.Refused(kTp, "not a batch", NotLeader());
  EXPECT_EQ(refusals_.size(), 0u);
  EXPECT_FALSE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(1, 7, 1, 11), GapExpecting(10)));
}

TEST_F(ProduceRefusalsTest, ARefusalIsForgottenAfterRememberMs) {
  refusals_.Refused(kTp, testing::MakeProducerBatch(1, 7, 1, 10), NotLeader());
  clock_.Advance(1000);
  EXPECT_TRUE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(1, 7, 1, 11), GapExpecting(10)));
  clock_.Advance(1);
  EXPECT_FALSE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(1, 7, 1, 11), GapExpecting(10)));
}

TEST_F(ProduceRefusalsTest, AtMostMaxEntriesTheOldestGoFirst) {
  for (int32_t sequence = 0; sequence < 5; ++sequence) {
    refusals_.Refused(kTp, testing::MakeProducerBatch(1, 7, 1, sequence), NotLeader());
    clock_.Advance(1);
  }
  EXPECT_EQ(refusals_.size(), 3u);
  EXPECT_FALSE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(1, 7, 1, 9), GapExpecting(1)));
  EXPECT_TRUE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(1, 7, 1, 9), GapExpecting(2)));
  EXPECT_TRUE(refusals_.GapBehindRefusal(kTp, testing::MakeProducerBatch(1, 7, 1, 9), GapExpecting(4)));
}

}  // namespace
}  // namespace strata::broker
