// broker/share/share_coordinator.h: the share coordinator over an in-memory
// __share_group_state (MemoryGroupLog): partitions served only once loaded, answers only
// once their writes are committed, the requests of one key decided in order, a reload
// giving back what was committed, a leadership lost with a write in flight, placement by
// Kafka's hash of the coordinator key.

#include "broker/share/share_coordinator.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "tests/support/memory_group_log.h"

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;
using S = ShareRecordState;

// Topic id bytes 00..0f: Kafka's text for it is AAECAwQFBgcICQoLDA0ODw.
std::string TopicId() {
  std::string id;
  for (char c = 0; c < 16; ++c) id.push_back(c);
  return id;
}

const ShareStateKey kKey{"queue-app", TopicId(), 0};

class ShareCoordinatorTest : public ::testing::Test {
 protected:
  ShareCoordinatorTest() { coordinator_ = Make(); }

  std::unique_ptr<ShareCoordinator> Make() {
    ShareCoordinatorOptions o;
    o.state_topic_partitions = 3;
    o.clock = &clock_;
    o.start_thread = false;
    return std::make_unique<ShareCoordinator>(o, &log_);
  }
  // Leads kKey's state partition in leader_epoch and loads it.
  void Lead(ShareCoordinator& c, int32_t leader_epoch) {
    c.OnLeadership({{c.PartitionFor(kKey), leader_epoch}}, 3);
    c.RunDueTimers();
    ASSERT_TRUE(c.IsLoaded(c.PartitionFor(kKey)));
  }

  // Calls one of the coordinator's requests; the answer, if it came.
  template <typename Call>
  std::optional<ShareStateOutcome> Ask(Call call) {
    std::optional<ShareStateOutcome> answer;
    call([&answer](ShareStateOutcome out) { answer = std::move(out); });
    return answer;
  }

  storage::ManualClock clock_{1000};
  testing::MemoryGroupLog log_;
  std::unique_ptr<ShareCoordinator> coordinator_;
};

TEST_F(ShareCoordinatorTest, ServesOnlyTheStatePartitionsItLeadsOnceLoaded) {
  ShareCoordinator& c = *coordinator_;
  auto read = [&] { return Ask([&](auto r) { c.Read(kKey, 0, r); }); };
  EXPECT_EQ(read()->error, ErrorCode::kNotCoordinator);
  c.OnLeadership({{c.PartitionFor(kKey), 1}}, 3);
  EXPECT_EQ(read()->error, ErrorCode::kCoordinatorLoadInProgress);
  c.RunDueTimers();
  EXPECT_EQ(read()->error, ErrorCode::kInvalidRequest) << "loaded; the key was never initialized";
  c.OnLeadership({}, 3);
  EXPECT_EQ(read()->error, ErrorCode::kNotCoordinator);
}

TEST_F(ShareCoordinatorTest, AnswersOnceCommittedAndAReloadGivesBackTheState) {
  Lead(*coordinator_, 1);
  log_.hold = true;
  std::optional<ShareStateOutcome> init;
  coordinator_->Initialize(kKey, 1, 100, [&init](ShareStateOutcome out) { init = std::move(out); });
  EXPECT_FALSE(init.has_value()) << "answered before its record was committed";
  log_.hold = false;
  log_.ReleaseHeld();
  ASSERT_TRUE(init.has_value());
  EXPECT_EQ(init->error, ErrorCode::kNone);
  const SharePartitionState state{100, {{100, 104, S::kAcknowledged, 1}, {105, 109, S::kAvailable, 2}}};
  auto write = Ask([&](auto r) { coordinator_->Write(kKey, 1, 7, state, r); });
  ASSERT_TRUE(write.has_value());
  EXPECT_EQ(write->error, ErrorCode::kNone);
  auto read = Ask([&](auto r) { coordinator_->Read(kKey, 7, r); });
  ASSERT_TRUE(read && read->state);
  EXPECT_EQ(read->state->state, state);
  EXPECT_EQ(read->state->state_epoch, 1);

  // Another broker leads the partition next: it loads what was committed.
  coordinator_->OnLeadership({}, 3);
  auto successor = Make();
  Lead(*successor, 2);
  auto again = Ask([&](auto r) { successor->Read(kKey, 8, r); });
  ASSERT_TRUE(again && again->state);
  EXPECT_EQ(again->state->state, state);
  EXPECT_EQ(again->state->leader_epoch, 8) << "the new share-partition leader's epoch is recorded";
  auto late = Ask([&](auto r) { successor->Write(kKey, 1, 7, SharePartitionState{110, {}}, r); });
  EXPECT_EQ(late->error, ErrorCode::kFencedLeaderEpoch) << "the old share-partition leader is fenced";

  auto summary = Ask([&](auto r) { successor->ReadSummary(kKey, -1, r); });
  ASSERT_TRUE(summary && summary->state);
  EXPECT_EQ(summary->state->state.start_offset, 100);
  EXPECT_EQ(successor->stats().share_partitions, 1);

  auto deleted = Ask([&](auto r) { successor->Delete(kKey, r); });
  EXPECT_EQ(deleted->error, ErrorCode::kNone);
  successor->OnLeadership({}, 3);
  auto third = Make();
  Lead(*third, 3);
  EXPECT_EQ(Ask([&](auto r) { third->Read(kKey, 9, r); })->error, ErrorCode::kInvalidRequest)
      << "the tombstone removed the state";
}

TEST_F(ShareCoordinatorTest, RequestsOfOneKeyAreDecidedInOrderOnWhatTheOnesBeforeThemWrote) {
  Lead(*coordinator_, 1);
  ASSERT_EQ(Ask([&](auto r) { coordinator_->Initialize(kKey, 1, 0, r); })->error, ErrorCode::kNone);
  log_.hold = true;
  std::vector<ErrorCode> answers;
  auto note = [&answers](ShareStateOutcome out) { answers.push_back(out.error); };
  // An alter of the start offset (a new state epoch) in flight; the share-partition leader's
  // write in the old state epoch comes after it and must be fenced by it.
  coordinator_->Initialize(kKey, 2, 50, note);
  coordinator_->Write(kKey, 1, 0, SharePartitionState{5, {}}, note);
  EXPECT_TRUE(answers.empty());
  EXPECT_EQ(log_.held.size(), 1u) << "the write waits for the initialization; it appends nothing yet";
  log_.hold = false;
  log_.ReleaseHeld();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0], ErrorCode::kNone);
  EXPECT_EQ(answers[1], ErrorCode::kFencedStateEpoch);
  auto read = Ask([&](auto r) { coordinator_->Read(kKey, 1, r); });
  EXPECT_EQ(read->state->state.start_offset, 50);
}

TEST_F(ShareCoordinatorTest, AWriteCompletingAfterTheLeadershipMovedIsNotApplied) {
  Lead(*coordinator_, 1);
  ASSERT_EQ(Ask([&](auto r) { coordinator_->Initialize(kKey, 1, 0, r); })->error, ErrorCode::kNone);
  log_.hold = true;
  std::optional<ShareStateOutcome> answer;
  coordinator_->Write(kKey, 1, 0, SharePartitionState{9, {}}, [&answer](ShareStateOutcome out) { answer = out; });
  coordinator_->OnLeadership({{coordinator_->PartitionFor(kKey), 2}}, 3);  // a new epoch: reloaded
  log_.hold = false;
  log_.ReleaseHeld();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->error, ErrorCode::kNotCoordinator);
}

TEST_F(ShareCoordinatorTest, AStatePartitionThatDoesNotDecodeIsNeverServed) {
  log_.partitions[coordinator_->PartitionFor(kKey)].push_back({EncodeShareStateKey(kKey), std::string("junk")});
  coordinator_->OnLeadership({{coordinator_->PartitionFor(kKey), 1}}, 3);
  coordinator_->RunDueTimers();
  coordinator_->RunDueTimers();
  EXPECT_FALSE(coordinator_->IsLoaded(coordinator_->PartitionFor(kKey))) << "retried, never half loaded";
  EXPECT_EQ(Ask([&](auto r) { coordinator_->Read(kKey, 0, r); })->error, ErrorCode::kCoordinatorLoadInProgress);
}

TEST(ShareCoordinatorKey, IsKafkasTextAndHash) {
  // Values from Kafka 4.4's SharePartitionKey.asCoordinatorKey and Utils.abs(hashCode) % n.
  const ShareStateKey key{"g1", TopicId(), 3};
  EXPECT_EQ(ShareCoordinatorKey(key), "g1:AAECAwQFBgcICQoLDA0ODw:3");
  EXPECT_EQ(ShareStatePartitionFor(key, 50), 1);
  EXPECT_EQ(ShareStatePartitionFor({"grüppe", TopicId(), 0}, 50), 14);
  auto parsed = ParseShareCoordinatorKey("a:b:AAECAwQFBgcICQoLDA0ODw:7");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, (ShareStateKey{"a:b", TopicId(), 7}));
  EXPECT_FALSE(ParseShareCoordinatorKey("g1:notatopicid:3").ok());
  EXPECT_FALSE(ParseShareCoordinatorKey("g1:AAECAwQFBgcICQoLDA0ODw:-1").ok());
  EXPECT_FALSE(ParseShareCoordinatorKey("AAECAwQFBgcICQoLDA0ODw:3").ok());
}

}  // namespace
}  // namespace strata::broker
