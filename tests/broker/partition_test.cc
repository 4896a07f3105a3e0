// Partition's replication rules on a real log: the high watermark over the ISR (and an
// ISR change in flight), Kafka's caught-up rule driving ISR shrink and expansion, the
// diverging-epoch answer, and a follower's truncation to where it agrees with the
// leader.

#include "broker/replication/partition.h"

#include <gtest/gtest.h>

#include "broker/common/kafka_error.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

class PartitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::LogOptions o;
    o.dir = tmp_.Sub("orders-0");
    auto log = storage::Log::Open(o);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = std::move(*log);
  }
  PartitionState Led(std::vector<int32_t> isr, int32_t epoch = 0, int32_t leader = 1) {
    PartitionState s;
    s.topic_id = std::string(16, 't');
    s.leader = leader;
    s.leader_epoch = epoch;
    s.partition_epoch = epoch;
    s.replicas = {1, 2, 3};
    s.isr = std::move(isr);
    return s;
  }
  void Append(Partition& p, int records) {
    std::string batch = testing::MakeBatch(records, "v");
    ASSERT_TRUE(p.AppendRecordsToLeader(batch).ok());
  }
  testing::TempDir tmp_;
  std::unique_ptr<storage::Log> log_;
};

TEST_F(PartitionTest, TheHighWatermarkIsTheSmallestLogEndOfTheIsr) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2, 3}), 0).ok());
  Append(p, 10);
  EXPECT_EQ(p.high_watermark(), 0) << "followers have not fetched";
  p.UpdateFollowerFetchState(2, 10, 10, 1);
  EXPECT_EQ(p.high_watermark(), 0) << "broker 3 holds it";
  auto r = p.UpdateFollowerFetchState(3, 6, 10, 1);
  EXPECT_TRUE(r.high_watermark_moved);
  EXPECT_EQ(p.high_watermark(), 6);
  p.UpdateFollowerFetchState(3, 10, 10, 2);
  EXPECT_EQ(p.high_watermark(), 10);
}

TEST_F(PartitionTest, ALeaderWhoseHighWatermarkIsBelowItsEpochStartAnswersNoLatestOffsetYet) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2, 3}), 0).ok());
  Append(p, 10);
  p.UpdateFollowerFetchState(2, 10, 10, 1);
  p.UpdateFollowerFetchState(3, 4, 10, 1);
  ASSERT_EQ(p.high_watermark(), 4);
  // A new epoch (as a reassignment's, or a leader elected anew) starts at offset 10.
  // (-1: the latest offset.)
  ASSERT_TRUE(p.Update(Led({1, 2}, 1), 0).ok());
  ASSERT_EQ(p.high_watermark(), 4);
  auto latest = p.FetchOffsetForTimestamp(-1, FetchIsolation::kHighWatermark, std::nullopt);
  ASSERT_FALSE(latest.ok());
  EXPECT_EQ(KafkaErrorCodeOf(latest.status()), proto::kafka::ErrorCode::kOffsetNotAvailable);
  // A replica's own lookup (the log end) is answered.
  EXPECT_TRUE(p.FetchOffsetForTimestamp(-1, FetchIsolation::kLogEnd, std::nullopt).ok());
  // Once the follower fetched in the epoch, the high watermark is past its start.
  p.UpdateFollowerFetchState(2, 10, 10, 1);
  latest = p.FetchOffsetForTimestamp(-1, FetchIsolation::kHighWatermark, std::nullopt);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->offset, 10);
}

TEST_F(PartitionTest, AFollowerThatStopsCatchingUpLeavesAndOneThatCatchesUpReturns) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2, 3}), /*now_ms=*/1000).ok());
  Append(p, 5);
  p.UpdateFollowerFetchState(2, 5, 5, 1100);   // caught up at 1100
  p.UpdateFollowerFetchState(3, 0, 5, 1100);   // behind
  EXPECT_EQ(p.IsrToShrinkTo(1500, 1000), std::nullopt) << "within the lag";
  // Broker 3 last caught up when this broker became leader (1000); at 2001 that is
  // more than 1000 ms ago, while broker 2 keeps catching up.
  EXPECT_EQ(p.IsrToShrinkTo(1999, 1000), std::nullopt);
  p.UpdateFollowerFetchState(2, 5, 5, 2000);
  auto shrunk = p.IsrToShrinkTo(2001, 1000);
  ASSERT_TRUE(shrunk.has_value());
  EXPECT_EQ(*shrunk, (std::vector<int32_t>{1, 2}));
  // While the change is in flight the high watermark still waits for broker 3.
  p.SetPendingIsr(*shrunk);
  EXPECT_EQ(p.IsrToShrinkTo(5000, 1000), std::nullopt) << "one change at a time";
  EXPECT_EQ(p.high_watermark(), 0);
  // The controller accepted: the metadata shows ISR {1, 2} in the partition's next
  // epoch; the watermark follows 2.
  PartitionState accepted = Led({1, 2}, 0);
  accepted.partition_epoch = 1;
  ASSERT_TRUE(p.Update(accepted, 2200).ok());
  EXPECT_FALSE(p.has_pending_isr());
  EXPECT_EQ(p.high_watermark(), 5);
  // Broker 3 fetches up to the high watermark: it is offered back.
  auto behind = p.UpdateFollowerFetchState(3, 2, 5, 2300);
  EXPECT_FALSE(behind.expand_isr.has_value());
  auto back = p.UpdateFollowerFetchState(3, 5, 5, 2400);
  ASSERT_TRUE(back.expand_isr.has_value());
  EXPECT_EQ(*back.expand_isr, (std::vector<int32_t>{1, 2, 3}));
}

TEST_F(PartitionTest, AnExpansionInFlightCountsTheNewMemberForTheHighWatermark) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2}), 0).ok());
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 4, 4, 1);
  EXPECT_EQ(p.high_watermark(), 4);
  p.UpdateFollowerFetchState(3, 4, 4, 1);
  p.SetPendingIsr({1, 2, 3});
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 8, 8, 2);
  EXPECT_EQ(p.high_watermark(), 4) << "broker 3 may be in the ISR any moment: it must have the records too";
  p.UpdateFollowerFetchState(3, 8, 8, 2);
  EXPECT_EQ(p.high_watermark(), 8);
}

// The replication simulation found both (seeds 2 and 124 of replication_sim_test.cc):
// a follower offered back into the ISR was asked for only later, and an unrelated
// metadata entry dropped the change in flight; either way the high watermark moved past
// what the follower held and the controller then added it to the ISR.
TEST_F(PartitionTest, AFollowerOfferedBackHoldsTheHighWatermarkFromTheFetchThatOfferedIt) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2}), 0).ok());
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 4, 4, 1);
  ASSERT_EQ(p.high_watermark(), 4);
  auto offered = p.UpdateFollowerFetchState(3, 4, 4, 1);
  ASSERT_TRUE(offered.expand_isr.has_value());
  EXPECT_EQ(p.pending_isr(), (std::vector<int32_t>{1, 2, 3}));
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 8, 8, 2);  // before anyone asked the controller
  EXPECT_EQ(p.high_watermark(), 4) << "broker 3 holds only 4 records and is about to be in the ISR";
  p.ClearPendingIsr();  // not asked for after all (ReplicaManager: not eligible)
  p.UpdateFollowerFetchState(2, 8, 8, 3);
  EXPECT_EQ(p.high_watermark(), 8);
}

TEST_F(PartitionTest, AnEntryThatLeavesThePartitionAsItWasKeepsTheIsrChangeInFlight) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2}), 0).ok());
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 4, 4, 1);
  p.UpdateFollowerFetchState(3, 4, 4, 1);  // offered back: {1, 2, 3} pending
  ASSERT_TRUE(p.has_pending_isr());
  // Another broker was unfenced: the broker applies the entry to every partition.
  ASSERT_TRUE(p.Update(Led({1, 2}), 2).ok());
  EXPECT_TRUE(p.has_pending_isr());
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 8, 8, 3);
  EXPECT_EQ(p.high_watermark(), 4) << "the controller may add broker 3 any moment";
  // The controller's answer arrives as the partition's next epoch: settled.
  PartitionState expanded = Led({1, 2, 3});
  expanded.partition_epoch = 1;
  ASSERT_TRUE(p.Update(expanded, 4).ok());
  EXPECT_FALSE(p.has_pending_isr());
  EXPECT_EQ(p.high_watermark(), 4) << "broker 3 is in the ISR now";
}

// Found by the replication simulation (seeds 562, 4332): an expansion left unanswered
// was sent again after the follower's broker restarted with less than it had reported,
// and the controller, which saw the new process unfenced, added it.
TEST_F(PartitionTest, AFollowerWhoseBrokerRegisteredAgainIsForgotten) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2}), 0).ok());
  p.UpdateReplicaBrokerEpochs({{1, 10}, {2, 20}, {3, 30}});
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 4, 4, 1);
  p.UpdateFollowerFetchState(3, 4, 4, 1);  // offered back: {1, 2, 3} pending
  ASSERT_TRUE(p.has_pending_isr());
  p.UpdateReplicaBrokerEpochs({{1, 10}, {2, 20}, {3, 30}});
  EXPECT_TRUE(p.has_pending_isr()) << "the same process";
  p.UpdateReplicaBrokerEpochs({{1, 10}, {2, 20}, {3, 31}});  // broker 3 registered again
  // The change in flight may still be applied: the high watermark keeps waiting for
  // broker 3, whose new process has not fetched yet; the request carries the epoch its
  // fetches were counted in, which the controller refuses now.
  EXPECT_EQ(p.pending_isr(), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(p.pending_isr_broker_epochs(), (std::vector<int64_t>{10, 20, 30}));
  Append(p, 4);
  p.UpdateFollowerFetchState(2, 8, 8, 2);
  EXPECT_EQ(p.high_watermark(), 4);
  p.UpdateFollowerFetchState(3, 2, 8, 2);  // the new process, with less
  EXPECT_EQ(p.high_watermark(), 4);
  p.ClearPendingIsr();  // refused
  p.UpdateFollowerFetchState(2, 8, 8, 3);
  EXPECT_EQ(p.high_watermark(), 8);
}

TEST_F(PartitionTest, DivergingEpochAndTruncation) {
  Partition leader({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(leader.Update(Led({1, 2, 3}, 0), 0).ok());
  Append(leader, 4);
  ASSERT_TRUE(leader.Update(Led({1, 2, 3}, 1), 0).ok());
  Append(leader, 2);  // epoch 1 starts at 4
  EXPECT_EQ(*leader.DivergingEpoch(1, -1, 0), std::nullopt);
  EXPECT_EQ(*leader.DivergingEpoch(1, 0, 4), std::nullopt) << "epoch 0 ends at 4: agrees";
  auto checked = leader.DivergingEpoch(1, 0, 7);
  ASSERT_TRUE(checked.ok()) << checked.status();
  auto diverging = *checked;
  ASSERT_TRUE(diverging.has_value());
  EXPECT_EQ(*diverging, std::make_pair(0, int64_t{4}));
  EXPECT_EQ(*leader.DivergingEpoch(1, 1, 6), std::nullopt);

  // A follower that wrote 7 records in epoch 0 (3 the leader never had).
  storage::LogOptions o;
  o.dir = tmp_.Sub("follower-0");
  auto flog = storage::Log::Open(o);
  ASSERT_TRUE(flog.ok());
  Partition follower({"orders", 0}, 2, flog->get());
  ASSERT_TRUE(follower.Update(Led({1, 2, 3}, 0, /*leader=*/2), 0).ok());
  std::string batch = testing::MakeBatch(7, "f");
  ASSERT_TRUE(follower.AppendRecordsToLeader(batch).ok());
  ASSERT_TRUE(follower.Update(Led({1, 2, 3}, 1, /*leader=*/1), 0).ok());
  ASSERT_TRUE(follower.TruncateToDivergence(1, diverging->first, diverging->second).ok());
  EXPECT_LE((*flog)->log_end_offset(), 4) << "the batch straddling 4 goes whole";
  EXPECT_EQ((*flog)->log_end_offset(), 0) << "its only batch (0-6) straddles the divergence";
}

// A follower fetching in an epoch its leader has not applied yet (the metadata reached the
// follower first) must not be told where to truncate: the broker knows no end offset for
// that epoch and would answer (-1, -1).
TEST_F(PartitionTest, ADivergenceCheckInAnEpochThisBrokerDoesNotLeadYetIsRefused) {
  Partition p({"orders", 0}, 1, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 0), 0).ok());
  Append(p, 4);
  auto newer = p.DivergingEpoch(1, 0, 4);
  EXPECT_EQ(KafkaErrorCodeOf(newer.status()), proto::kafka::ErrorCode::kUnknownLeaderEpoch) << newer.status();
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 2), 0).ok());
  auto older = p.DivergingEpoch(1, 0, 4);
  EXPECT_EQ(KafkaErrorCodeOf(older.status()), proto::kafka::ErrorCode::kFencedLeaderEpoch) << older.status();
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 3, /*leader=*/2), 0).ok());
  EXPECT_EQ(KafkaErrorCodeOf(p.DivergingEpoch(3, 0, 4).status()), proto::kafka::ErrorCode::kNotLeaderOrFollower);
}

// A leader that knows no end offset for the follower's epoch answers (-1, -1): the
// follower truncates to its high watermark (as Kafka's), never below it to its log start.
TEST_F(PartitionTest, AnUndefinedDivergenceTruncatesToTheHighWatermarkNotTheLogStart) {
  Partition p({"orders", 0}, 2, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 0, /*leader=*/1), 0).ok());
  std::string first = testing::MakeBatch(4, "f");
  ASSERT_TRUE(p.AppendRecordsToFollower(0, first, 4, 0).ok());  // the leader's high watermark: 4
  std::string second = testing::MakeBatch(2, "f");
  storage::SetBaseOffset(second.data(), 4);
  ASSERT_TRUE(p.AppendRecordsToFollower(0, second, 4, 0).ok());
  ASSERT_EQ(log_->log_end_offset(), 6);
  ASSERT_EQ(log_->high_watermark(), 4);
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 1, /*leader=*/3), 0).ok());
  ASSERT_TRUE(p.TruncateToDivergence(1, -1, -1).ok());
  EXPECT_EQ(log_->log_end_offset(), 4) << "the acknowledged records below the high watermark must stay";
}

// An answer to a fetch sent in an older leader epoch, or one arriving after this broker
// took over, never changes the log: truncation, restart and append are all refused.
TEST_F(PartitionTest, AStaleFetchAnswerNeitherCutsNorExtendsTheLog) {
  Partition p({"orders", 0}, 2, log_.get());
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 0, /*leader=*/1), 0).ok());
  std::string first = testing::MakeBatch(4, "f");
  ASSERT_TRUE(p.AppendRecordsToFollower(0, first, 4, 0).ok());
  std::string second = testing::MakeBatch(2, "f");
  storage::SetBaseOffset(second.data(), 4);
  ASSERT_TRUE(p.AppendRecordsToFollower(0, second, 6, 0).ok());
  ASSERT_EQ(log_->log_end_offset(), 6);
  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 1, /*leader=*/3), 0).ok());  // epoch 1: broker 3 leads

  std::string more = testing::MakeBatch(2, "g");
  storage::SetBaseOffset(more.data(), 6);
  EXPECT_FALSE(p.AppendRecordsToFollower(0, more, 8, 0).ok());
  EXPECT_FALSE(p.TruncateToDivergence(0, 0, 2).ok());
  EXPECT_FALSE(p.TruncateToLeaderLogEnd(0, 3).ok());
  EXPECT_FALSE(p.RestartAtLeaderLogStart(0, 100).ok());
  EXPECT_EQ(log_->log_start_offset(), 0);
  EXPECT_EQ(log_->log_end_offset(), 6) << "answers of epoch 0's leader changed the log";

  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 2, /*leader=*/2), 0).ok());  // epoch 2: this broker leads
  EXPECT_FALSE(p.TruncateToLeaderLogEnd(2, 3).ok());
  EXPECT_FALSE(p.TruncateToDivergence(2, 0, 2).ok());
  EXPECT_EQ(log_->log_end_offset(), 6) << "a leader's log was cut by a follower's path";

  ASSERT_TRUE(p.Update(Led({1, 2, 3}, 3, /*leader=*/1), 0).ok());  // epoch 3: broker 1 leads
  ASSERT_TRUE(p.TruncateToLeaderLogEnd(3, 4).ok());
  EXPECT_EQ(log_->log_end_offset(), 4);
  ASSERT_TRUE(p.RestartAtLeaderLogStart(3, 50).ok());
  EXPECT_EQ(log_->log_start_offset(), 50);
  EXPECT_EQ(log_->log_end_offset(), 50);
}

}  // namespace
}  // namespace strata::broker
