// KIP-848 reconciliation (broker/group/consumer_reconciliation.h): revoke before assign,
// partitions another member has not released wait, the epochs move as Kafka's do.
#include "broker/group/consumer_reconciliation.h"

#include <gtest/gtest.h>

#include <map>

namespace strata::broker {
namespace {

using State = ConsumerMemberState;

// Who holds what: (topic, partition) -> the holder's epoch.
struct Holders {
  std::map<std::pair<std::string, int32_t>, int32_t> epochs;
  int32_t operator()(const std::string& t, int32_t p) const {
    auto it = epochs.find({t, p});
    return it == epochs.end() ? -1 : it->second;
  }
};

MemberAssignment StableAt(int32_t epoch, TopicPartitionSet assigned) {
  MemberAssignment m;
  m.member_epoch = epoch;
  m.previous_member_epoch = epoch - 1;
  m.assigned = std::move(assigned);
  return m;
}

TEST(Reconcile, AStableMemberAtTheTargetEpochStaysAsItIs) {
  MemberAssignment m = StableAt(3, {{"t", {0, 1}}});
  Holders holders;
  EXPECT_EQ(Reconcile(m, 3, {{"t", {0}}}, std::nullopt, holders), m);
}

TEST(Reconcile, FreePartitionsAreGivenAndTheEpochMovesToTheTarget) {
  MemberAssignment m = StableAt(1, {{"t", {0}}});
  Holders holders;
  MemberAssignment next = Reconcile(m, 2, {{"t", {0, 1}}}, TopicPartitionSet{{"t", {0}}}, holders);
  EXPECT_EQ(next.state, State::kStable);
  EXPECT_EQ(next.member_epoch, 2);
  EXPECT_EQ(next.previous_member_epoch, 1);
  EXPECT_EQ(next.assigned, (TopicPartitionSet{{"t", {0, 1}}}));
}

TEST(Reconcile, RevokesBeforeItAssigns) {
  MemberAssignment m = StableAt(1, {{"t", {0, 1}}});
  Holders holders;  // partition 2 is free, but 1 must go first
  MemberAssignment next = Reconcile(m, 2, {{"t", {0, 2}}}, TopicPartitionSet{{"t", {0, 1}}}, holders);
  EXPECT_EQ(next.state, State::kUnrevokedPartitions);
  EXPECT_EQ(next.member_epoch, 1);  // the epoch stays until the revocation is done
  EXPECT_EQ(next.assigned, (TopicPartitionSet{{"t", {0}}}));
  EXPECT_EQ(next.pending_revocation, (TopicPartitionSet{{"t", {1}}}));

  // A heartbeat that still lists 1: nothing changes.
  EXPECT_EQ(Reconcile(next, 2, {{"t", {0, 2}}}, TopicPartitionSet{{"t", {0, 1}}}, holders), next);
  // Not saying what it owns is not a revocation either.
  EXPECT_EQ(Reconcile(next, 2, {{"t", {0, 2}}}, std::nullopt, holders), next);
  // 1 given up: the epoch moves and 2 is given.
  MemberAssignment done = Reconcile(next, 2, {{"t", {0, 2}}}, TopicPartitionSet{{"t", {0}}}, holders);
  EXPECT_EQ(done.state, State::kStable);
  EXPECT_EQ(done.member_epoch, 2);
  EXPECT_EQ(done.assigned, (TopicPartitionSet{{"t", {0, 2}}}));
  EXPECT_TRUE(done.pending_revocation.empty());
}

TEST(Reconcile, APartitionAnotherMemberStillHoldsWaits) {
  MemberAssignment m = StableAt(1, {});
  Holders holders{{{{"t", 1}, 1}}};  // another member holds t-1 (revoking it)
  MemberAssignment next = Reconcile(m, 2, {{"t", {0, 1}}}, TopicPartitionSet{}, holders);
  EXPECT_EQ(next.state, State::kUnreleasedPartitions);
  EXPECT_EQ(next.member_epoch, 2);
  EXPECT_EQ(next.assigned, (TopicPartitionSet{{"t", {0}}}));
  // Released: the next heartbeat gets it.
  holders.epochs.clear();
  holders.epochs[{"t", 0}] = 2;  // its own
  MemberAssignment later = Reconcile(next, 2, {{"t", {0, 1}}}, TopicPartitionSet{{"t", {0}}}, holders);
  EXPECT_EQ(later.state, State::kStable);
  EXPECT_EQ(later.assigned, (TopicPartitionSet{{"t", {0, 1}}}));
  EXPECT_EQ(later.member_epoch, 2);
  EXPECT_EQ(later.previous_member_epoch, 1);
}

TEST(Reconcile, PartitionsOfATopicLeftOutOfTheTargetAreRevoked) {
  MemberAssignment m = StableAt(4, {{"gone", {0}}, {"t", {0}}});
  Holders holders;
  MemberAssignment next = Reconcile(m, 5, {{"t", {0}}}, TopicPartitionSet{{"gone", {0}}, {"t", {0}}}, holders);
  EXPECT_EQ(next.state, State::kUnrevokedPartitions);
  EXPECT_EQ(next.pending_revocation, (TopicPartitionSet{{"gone", {0}}}));
}

TEST(Reconcile, AMemberThatAlreadyDroppedWhatItLosesMovesOnAtOnce) {
  // Its heartbeat no longer lists partition 1 (it lost it, e.g. the client's own
  // revocation ran first): no revocation round.
  MemberAssignment m = StableAt(1, {{"t", {0, 1}}});
  Holders holders;
  MemberAssignment next = Reconcile(m, 2, {{"t", {0}}}, TopicPartitionSet{{"t", {0}}}, holders);
  EXPECT_EQ(next.state, State::kStable);
  EXPECT_EQ(next.member_epoch, 2);
  EXPECT_EQ(next.assigned, (TopicPartitionSet{{"t", {0}}}));
}

TEST(Reconcile, StateNamesAreKafkas) {
  EXPECT_STREQ(ConsumerMemberStateName(State::kStable), "STABLE");
  EXPECT_STREQ(ConsumerMemberStateName(State::kUnrevokedPartitions), "UNREVOKED_PARTITIONS");
  EXPECT_STREQ(ConsumerMemberStateName(State::kUnreleasedPartitions), "UNRELEASED_PARTITIONS");
}

}  // namespace
}  // namespace strata::broker
