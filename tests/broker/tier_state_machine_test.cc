// The follower tier state machine on real logs and a real directory remote store: the
// empty remote range needs no remote lookup (seed KAFKA-21190), a non-empty range whose
// copy is missing fails (counted, and reported once while it keeps failing), and the
// state below the fetch start — leader epochs and producers — comes from the copy that
// ends just before it and is restored into a fresh follower log whole.

#include "broker/replication/tier_state_machine.h"

#include <gtest/gtest.h>

#include <atomic>

#include "broker/common/remote_segment_id.h"
#include "storage/directory_remote_storage.h"
#include "storage/errc.h"
#include "storage/log.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

using Segment = controller::RemoteLogSegments::Segment;
const std::string kTopicId(16, 't');

class TierStateMachineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = std::make_unique<storage::DirectoryRemoteStorage>(*storage::FileOps::Default(), tmp_.Sub("remote"));
    TierStateMachineOptions o;
    o.remote_storage = remote_.get();
    o.remote_segment_for = [this](const std::string&, int32_t, int64_t offset) -> std::optional<Segment> {
      ++lookups_;
      for (const Segment& s : copies_) {
        if (s.start_offset() <= offset && offset <= s.end_offset()) return s;
      }
      return std::nullopt;
    };
    machine_ = std::make_unique<TierStateMachine>(std::move(o));
  }
  std::unique_ptr<storage::Log> OpenLog(const std::string& name) {
    storage::LogOptions o;
    o.dir = tmp_.Sub(name);
    o.config.segment_bytes = 2048;
    auto log = storage::Log::Open(o);
    EXPECT_TRUE(log.ok()) << log.status();
    return std::move(*log);
  }
  // Copies the leader's first rolled segment as the remote log manager does.
  Segment CopyFirstSegment(storage::Log& leader) {
    auto rolled = leader.RolledSegmentsAfter(-1, leader.log_end_offset());
    EXPECT_FALSE(rolled.empty());
    const storage::RolledSegment& r = rolled.front();
    Segment s;
    s.set_topic_id(kTopicId);
    s.set_partition_id(0);
    s.set_segment_id(std::string(16, 's'));
    s.set_state(Segment::COPY_SEGMENT_FINISHED);
    s.set_start_offset(r.base_offset);
    s.set_end_offset(r.end_offset);
    storage::LogSegmentData data = r.ToSegmentData();
    EXPECT_TRUE(remote_->CopyLogSegmentData(RemoteIdOf(s), data).ok());
    copies_.push_back(s);
    return s;
  }

  testing::TempDir tmp_;
  std::unique_ptr<storage::DirectoryRemoteStorage> remote_;
  std::vector<Segment> copies_;
  std::atomic<int> lookups_{0};
  std::unique_ptr<TierStateMachine> machine_;
};

TEST_F(TierStateMachineTest, TheEmptyRemoteRangeMakesNoRemoteLookup) {
  // Seed KAFKA-21190: the fetch start is the leader's log start; the copy that held the
  // offset before it is long deleted (there is none here at all).
  auto aux = machine_->Build("orders-0", kTopicId, 0, /*fetch_start=*/18203, /*leader_log_start=*/18203);
  ASSERT_TRUE(aux.ok()) << aux.status();
  EXPECT_FALSE(aux->from_remote);
  EXPECT_TRUE(aux->epochs.empty());
  EXPECT_TRUE(aux->producer_snapshot.empty());
  EXPECT_EQ(lookups_.load(), 0) << "no remote metadata lookup for an empty range";
  EXPECT_EQ(machine_->stats().empty_ranges, 1);
  EXPECT_EQ(machine_->stats().errors, 0);
}

TEST_F(TierStateMachineTest, ANonEmptyRangeWhoseCopyIsMissingFailsAndIsCounted) {
  for (int i = 0; i < 3; ++i) {
    auto aux = machine_->Build("orders-0", kTopicId, 0, /*fetch_start=*/500, /*leader_log_start=*/100);
    EXPECT_EQ(storage::ErrcOf(aux.status()), storage::Errc::kRemoteStorageError) << aux.status();
  }
  EXPECT_EQ(machine_->stats().errors, 3);
  EXPECT_EQ(machine_->stats().failing, 1) << "one partition failing, however often it is retried";
  ASSERT_TRUE(machine_->Build("orders-0", kTopicId, 0, 500, 500).ok());
  EXPECT_EQ(machine_->stats().failing, 0);
}

TEST_F(TierStateMachineTest, TheStateBelowTheFetchStartComesFromTheCopyThatEndsBeforeItAndIsRestoredWhole) {
  auto leader = OpenLog("leader-0");
  ASSERT_TRUE(leader->StartLeaderEpoch(0).ok());
  int32_t sequence = 0;
  auto produce = [&](int32_t epoch) {
    std::string batch = testing::MakeProducerBatch(5, /*producer_id=*/77, 0, sequence);
    sequence += 5;
    auto appended = leader->AppendAsLeader(batch, epoch);
    ASSERT_TRUE(appended.ok()) << appended.status();
  };
  for (int i = 0; i < 5; ++i) produce(0);
  ASSERT_TRUE(leader->StartLeaderEpoch(3).ok());
  while (leader->segment_count() < 3) produce(3);
  leader->UpdateHighWatermark(leader->log_end_offset());
  Segment copy = CopyFirstSegment(*leader);
  int64_t fetch_start = copy.end_offset() + 1;

  auto aux = machine_->Build("orders-0", kTopicId, 0, fetch_start, /*leader_log_start=*/0);
  ASSERT_TRUE(aux.ok()) << aux.status();
  EXPECT_TRUE(aux->from_remote);
  EXPECT_FALSE(aux->producer_snapshot.empty());
  std::vector<storage::EpochEntry> expected;
  for (const auto& e : leader->leader_epoch_cache().entries()) {
    if (e.start_offset < fetch_start) expected.push_back(e);
  }
  EXPECT_EQ(aux->epochs.size(), expected.size());

  auto follower = OpenLog("follower-0");
  ASSERT_TRUE(follower->TruncateFullyAndRestore(fetch_start, aux->epochs, aux->producer_snapshot).ok());
  EXPECT_EQ(follower->log_start_offset(), fetch_start);
  EXPECT_EQ(follower->log_end_offset(), fetch_start);
  EXPECT_EQ(follower->leader_epoch_cache().entries(), expected);
  auto producer = follower->producer_state().Find(77);
  ASSERT_TRUE(producer.has_value()) << "the producer known at the fetch start";
  ASSERT_FALSE(producer->batches.empty());
  EXPECT_EQ(producer->batches.back().last_offset, fetch_start - 1);
  // The follower goes on from there: the leader's next batches append in order.
  auto rest = leader->Read(fetch_start, 1 << 20, leader->log_end_offset(), true);
  ASSERT_TRUE(rest.ok());
  auto bytes = rest->records.ReadAll();
  ASSERT_TRUE(bytes.ok());
  EXPECT_TRUE(follower->AppendAsFollower(*bytes).ok());
}

TEST_F(TierStateMachineTest, ADamagedProducerSnapshotChangesNothing) {
  auto follower = OpenLog("follower-0");
  std::string batch = testing::MakeBatch(3, "x");
  ASSERT_TRUE(follower->AppendAsLeader(batch, 0).ok());
  absl::Status restored = follower->TruncateFullyAndRestore(100, {{0, 0}}, "not a snapshot");
  EXPECT_FALSE(restored.ok());
  EXPECT_EQ(follower->log_end_offset(), 3) << "the log was not truncated";
  EXPECT_FALSE(follower->offline());
  EXPECT_FALSE(follower->TruncateFullyAndRestore(100, {{2, 10}, {1, 20}}, "").ok()) << "epochs out of order";
  EXPECT_EQ(follower->log_end_offset(), 3);
}

}  // namespace
}  // namespace strata::broker
