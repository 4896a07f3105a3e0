// GroupCoordinator: the classic group protocol's state machine, driven with a
// ManualClock (no thread: RunDueTimers runs the timers) over an in-memory GroupLog that
// keeps every record appended, so that a second coordinator can load what the first
// wrote. The edge cases Kafka's clients rely on: KIP-394's member id round trip, the
// initial rebalance delay, a join during a rebalance, a sync or commit from a stale
// generation, heartbeats of unknown members, session expiry, the leader leaving, static
// members (KIP-345) coming back without a rebalance, failed writes, loading, retention,
// and deleting groups and offsets.

#include "broker/group/group_coordinator.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "proto/kafka/consumer_protocol.h"
#include "tests/support/memory_group_log.h"
#include "storage/clock.h"

namespace strata::broker {
namespace {

using testing::MemoryGroupLog;

constexpr int32_t kSession = 10000;
constexpr int32_t kRebalance = 30000;
constexpr int32_t kInitialDelay = 3000;

std::string Subscription(std::vector<std::string> topics) {
  proto::kafka::ConsumerSubscription s;
  s.topics = std::move(topics);
  return proto::kafka::WriteConsumerSubscription(s, 0);
}

class GroupCoordinatorTest : public ::testing::Test {
 protected:
  GroupCoordinatorTest() { coordinator_ = Make(); }

  std::unique_ptr<GroupCoordinator> Make() {
    GroupCoordinatorOptions o;
    o.offsets_topic_partitions = 1;  // every group in partition 0
    o.group_initial_rebalance_delay_ms = kInitialDelay;
    o.offsets_retention_ms = 60'000;
    o.offsets_retention_check_interval_ms = 1000;
    o.clock = &clock_;
    o.start_thread = false;
    auto c = std::make_unique<GroupCoordinator>(o, &log_);
    c->OnLeadership({{0, 1}}, 1);
    c->RunDueTimers();  // loads partition 0
    return c;
  }

  // Another broker's coordinator over the same log, leading nothing yet.
  std::unique_ptr<GroupCoordinator> Other() {
    GroupCoordinatorOptions o;
    o.offsets_topic_partitions = 1;
    o.clock = &clock_;
    o.start_thread = false;
    return std::make_unique<GroupCoordinator>(o, &log_);
  }

  struct PendingJoin {
    std::shared_ptr<std::optional<JoinGroupResult>> result = std::make_shared<std::optional<JoinGroupResult>>();
    bool done() const { return result->has_value(); }
    const JoinGroupResult& get() const { return **result; }
  };

  PendingJoin StartJoin(const std::string& member_id, std::optional<std::string> instance = std::nullopt,
                        std::vector<JoinProtocol> protocols = {{"range", Subscription({"orders"})}},
                        const std::string& group = "g") {
    JoinGroupParams p;
    p.group_id = group;
    p.member_id = member_id;
    p.group_instance_id = std::move(instance);
    p.client_id = "client";
    p.session_timeout_ms = kSession;
    p.rebalance_timeout_ms = kRebalance;
    p.protocol_type = "consumer";
    p.protocols = std::move(protocols);
    p.require_known_member_id = true;
    PendingJoin pending;
    coordinator_->JoinGroup(p, [r = pending.result](JoinGroupResult result) { *r = std::move(result); });
    return pending;
  }

  // A new dynamic member's first join: MEMBER_ID_REQUIRED with its id, then the join
  // with it (left pending until the rebalance completes).
  PendingJoin JoinNew(std::string* member_id) {
    PendingJoin first = StartJoin("");
    EXPECT_TRUE(first.done());
    EXPECT_EQ(first.get().error, ErrorCode::kMemberIdRequired);
    *member_id = first.get().member_id;
    EXPECT_FALSE(member_id->empty());
    return StartJoin(*member_id);
  }

  std::optional<SyncGroupResult> Sync(const std::string& member_id, int32_t generation,
                                      std::vector<std::pair<std::string, std::string>> assignments = {},
                                      std::optional<std::string> instance = std::nullopt) {
    SyncGroupParams p;
    p.group_id = "g";
    p.generation_id = generation;
    p.member_id = member_id;
    p.group_instance_id = std::move(instance);
    p.assignments = std::move(assignments);
    auto out = std::make_shared<std::optional<SyncGroupResult>>();
    coordinator_->SyncGroup(p, [out](SyncGroupResult r) { *out = std::move(r); });
    last_sync_ = out;
    return *out;
  }

  std::vector<PartitionError> Commit(const std::string& member_id, int32_t generation, int64_t offset,
                                     const std::string& group = "g") {
    OffsetCommitParams p;
    p.group_id = group;
    p.generation_id = generation;
    p.member_id = member_id;
    p.partitions = {{"orders", 0, offset, 3, std::string("meta")}};
    std::vector<PartitionError> out;
    coordinator_->CommitOffsets(p, [&out](std::vector<PartitionError> r) { out = std::move(r); });
    coordinator_->RunDueTimers();  // completions
    return out;
  }

  int64_t Committed(const std::string& group = "g") {
    OffsetFetchResult r = coordinator_->FetchOffsets(group, std::vector<storage::TopicPartition>{{"orders", 0}});
    EXPECT_EQ(r.error, ErrorCode::kNone);
    return r.partitions.at(0).offset;
  }

  void Advance(int64_t ms) {
    clock_.Advance(ms);
    coordinator_->RunDueTimers();
  }

  GroupState State() { return coordinator_->DescribeGroup("g").state; }

  // Two members in a Stable group: a (the leader) and b.
  int32_t StableGroupOfTwo(std::string* a, std::string* b) {
    PendingJoin ja = JoinNew(a);
    PendingJoin jb = JoinNew(b);
    EXPECT_FALSE(ja.done());  // the initial delay,
    Advance(kInitialDelay);
    EXPECT_FALSE(ja.done());  // and another: b joined during the first
    Advance(kInitialDelay);
    EXPECT_TRUE(ja.done() && jb.done());
    EXPECT_EQ(ja.get().error, ErrorCode::kNone);
    int32_t generation = ja.get().generation_id;
    std::string leader = ja.get().leader_id;
    EXPECT_EQ(leader, *a);
    EXPECT_EQ(ja.get().members.size(), 2u);  // the leader learns every member
    EXPECT_TRUE(jb.get().members.empty());
    EXPECT_EQ(Sync(*b, generation), std::nullopt);  // waits for the leader's assignment
    auto b_sync = last_sync_;
    auto sa = Sync(*a, generation, {{*a, "assign-a"}, {*b, "assign-b"}});
    coordinator_->RunDueTimers();
    EXPECT_TRUE(last_sync_->has_value());
    EXPECT_EQ((*last_sync_)->assignment, "assign-a");
    EXPECT_TRUE(b_sync->has_value());
    EXPECT_EQ((*b_sync)->assignment, "assign-b");
    EXPECT_EQ(State(), GroupState::kStable);
    (void)sa;
    return generation;
  }

  storage::ManualClock clock_;
  MemoryGroupLog log_;
  std::unique_ptr<GroupCoordinator> coordinator_;
  std::shared_ptr<std::optional<SyncGroupResult>> last_sync_;
};

TEST_F(GroupCoordinatorTest, NewMembersGetTheirIdFirstAndShareTheFirstGenerationAfterTheInitialDelay) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  EXPECT_EQ(generation, 1);
  EXPECT_NE(a, b);
  GroupDescription d = coordinator_->DescribeGroup("g");
  EXPECT_EQ(d.protocol_name, "range");
  ASSERT_EQ(d.members.size(), 2u);
  EXPECT_EQ(d.members[0].assignment, "assign-a");
  EXPECT_EQ(coordinator_->stats().rebalances, 1);
}

TEST_F(GroupCoordinatorTest, TheInitialDelayGrowsWhileMembersKeepJoiningButNotPastTheRebalanceTimeout) {
  std::string a, b;
  PendingJoin ja = JoinNew(&a);
  Advance(kInitialDelay - 1);
  PendingJoin jb = JoinNew(&b);
  Advance(1);  // the first delay ends, but b arrived during it: another delay
  EXPECT_FALSE(ja.done());
  Advance(kInitialDelay);
  ASSERT_TRUE(ja.done() && jb.done());
  EXPECT_EQ(ja.get().generation_id, jb.get().generation_id);
}

TEST_F(GroupCoordinatorTest, AJoinDuringARebalanceJoinsTheSameGeneration) {
  std::string a, b, c;
  int32_t generation = StableGroupOfTwo(&a, &b);
  PendingJoin jc = JoinNew(&c);  // a new member: the group rebalances
  EXPECT_EQ(State(), GroupState::kPreparingRebalance);
  EXPECT_EQ(coordinator_->Heartbeat("g", a, std::nullopt, generation), ErrorCode::kRebalanceInProgress);
  PendingJoin ja = StartJoin(a);
  EXPECT_FALSE(ja.done());
  PendingJoin jb = StartJoin(b);  // the last one: the rebalance completes at once
  ASSERT_TRUE(ja.done() && jb.done() && jc.done());
  EXPECT_EQ(jc.get().generation_id, generation + 1);
  EXPECT_EQ(ja.get().members.size(), 3u);
  EXPECT_EQ(State(), GroupState::kCompletingRebalance);
}

TEST_F(GroupCoordinatorTest, ASyncFromAStaleGenerationIsIllegal) {
  std::string a, b, c;
  int32_t generation = StableGroupOfTwo(&a, &b);
  PendingJoin jc = JoinNew(&c);
  StartJoin(a);
  StartJoin(b);
  ASSERT_TRUE(jc.done());
  auto stale = Sync(b, generation);
  ASSERT_TRUE(stale.has_value());
  EXPECT_EQ(stale->error, ErrorCode::kIllegalGeneration);
}

TEST_F(GroupCoordinatorTest, HeartbeatsOfUnknownMembersAndGroupsAreRefused) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  EXPECT_EQ(coordinator_->Heartbeat("g", "nobody", std::nullopt, generation), ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coordinator_->Heartbeat("other", a, std::nullopt, generation), ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coordinator_->Heartbeat("g", a, std::nullopt, generation + 5), ErrorCode::kIllegalGeneration);
  EXPECT_EQ(coordinator_->Heartbeat("g", a, std::nullopt, generation), ErrorCode::kNone);
  EXPECT_EQ(coordinator_->Heartbeat("", a, std::nullopt, generation), ErrorCode::kInvalidGroupId);
}

TEST_F(GroupCoordinatorTest, AMemberWhoseSessionExpiresIsRemovedAndTheOthersRebalance) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  for (int i = 0; i < 3; ++i) {
    Advance(kSession / 4);
    EXPECT_EQ(coordinator_->Heartbeat("g", a, std::nullopt, generation), ErrorCode::kNone) << i;
  }
  EXPECT_EQ(State(), GroupState::kStable);
  // b sent nothing for a whole session: gone, and a is told to rejoin.
  Advance(kSession / 4);
  EXPECT_EQ(State(), GroupState::kPreparingRebalance);
  EXPECT_EQ(coordinator_->Heartbeat("g", b, std::nullopt, generation), ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coordinator_->Heartbeat("g", a, std::nullopt, generation), ErrorCode::kRebalanceInProgress);
  PendingJoin ja = StartJoin(a);
  ASSERT_TRUE(ja.done());
  EXPECT_EQ(ja.get().generation_id, generation + 1);
  EXPECT_EQ(ja.get().members.size(), 1u);
}

TEST_F(GroupCoordinatorTest, AMemberThatDoesNotRejoinIsRemovedAtTheRebalanceTimeout) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  PendingJoin ja = StartJoin(a, std::nullopt, {{"range", Subscription({"orders", "payments"})}});  // new metadata
  EXPECT_FALSE(ja.done());
  for (int elapsed = 0; elapsed < kRebalance; elapsed += kSession / 2) {
    Advance(kSession / 2);
    coordinator_->Heartbeat("g", b, std::nullopt, generation);  // b heartbeats but never rejoins
  }
  ASSERT_TRUE(ja.done());
  EXPECT_EQ(ja.get().error, ErrorCode::kNone);
  EXPECT_EQ(ja.get().members.size(), 1u);
  EXPECT_EQ(coordinator_->Heartbeat("g", b, std::nullopt, generation), ErrorCode::kUnknownMemberId);
}

TEST_F(GroupCoordinatorTest, WhenTheLeaderLeavesAnotherMemberLeadsTheNextGeneration) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  GroupCoordinator::LeaveResult left = coordinator_->LeaveGroup("g", {{a, std::nullopt}, {"nobody", std::nullopt}});
  ASSERT_EQ(left.members.size(), 2u);
  EXPECT_EQ(left.members[0], ErrorCode::kNone);
  EXPECT_EQ(left.members[1], ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coordinator_->Heartbeat("g", b, std::nullopt, generation), ErrorCode::kRebalanceInProgress);
  PendingJoin jb = StartJoin(b);
  ASSERT_TRUE(jb.done());
  EXPECT_EQ(jb.get().leader_id, b);
  EXPECT_EQ(jb.get().members.size(), 1u);
}

TEST_F(GroupCoordinatorTest, CommitsNeedTheCurrentGenerationAndAreFetchedBack) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  EXPECT_EQ(Commit(a, generation - 1, 10).at(0).error, ErrorCode::kIllegalGeneration);
  EXPECT_EQ(Commit("nobody", generation, 10).at(0).error, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(Committed(), -1);
  EXPECT_EQ(Commit(a, generation, 42).at(0).error, ErrorCode::kNone);
  EXPECT_EQ(Committed(), 42);
  OffsetFetchResult all = coordinator_->FetchOffsets("g", std::nullopt);
  ASSERT_EQ(all.partitions.size(), 1u);
  EXPECT_EQ(all.partitions[0].metadata, "meta");
  EXPECT_EQ(all.partitions[0].leader_epoch, 3);
  // During a rebalance the members of the current generation may still commit (KIP-429).
  std::string c;
  JoinNew(&c);
  EXPECT_EQ(Commit(b, generation, 43).at(0).error, ErrorCode::kNone);
  EXPECT_EQ(Committed(), 43);
}

TEST_F(GroupCoordinatorTest, AssignConsumersCommitWithoutAGeneration) {
  EXPECT_EQ(Commit("", -1, 7, "standalone").at(0).error, ErrorCode::kNone);
  EXPECT_EQ(Committed("standalone"), 7);
  EXPECT_EQ(Commit("", 3, 8, "unknown").at(0).error, ErrorCode::kIllegalGeneration);
}

TEST_F(GroupCoordinatorTest, AFailedWriteIsNotApplied) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  EXPECT_EQ(Commit(a, generation, 5).at(0).error, ErrorCode::kNone);
  log_.fail_with = ErrorCode::kNotLeaderOrFollower;
  EXPECT_EQ(Commit(a, generation, 6).at(0).error, ErrorCode::kNotCoordinator);
  log_.fail_with = ErrorCode::kRequestTimedOut;
  EXPECT_EQ(Commit(a, generation, 6).at(0).error, ErrorCode::kCoordinatorNotAvailable);
  EXPECT_EQ(Committed(), 5);
}

TEST_F(GroupCoordinatorTest, ACommitIsAnsweredOnlyOnceItsWriteCompletes) {
  EXPECT_EQ(Commit("", -1, 1, "s").at(0).error, ErrorCode::kNone);
  log_.hold = true;
  OffsetCommitParams p;
  p.group_id = "s";
  p.partitions = {{"orders", 0, 2, -1, std::nullopt}};
  std::optional<std::vector<PartitionError>> out;
  coordinator_->CommitOffsets(p, [&out](std::vector<PartitionError> r) { out = std::move(r); });
  coordinator_->RunDueTimers();
  EXPECT_FALSE(out.has_value());
  EXPECT_EQ(Committed("s"), 1);  // not yet
  log_.ReleaseHeld();
  coordinator_->RunDueTimers();
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->at(0).error, ErrorCode::kNone);
  EXPECT_EQ(Committed("s"), 2);
}

TEST_F(GroupCoordinatorTest, AStaticMemberComingBackGetsItsAssignmentWithoutARebalance) {
  PendingJoin first = StartJoin("", std::string("instance-1"));  // static members need no id round trip
  std::string b;
  PendingJoin jb = JoinNew(&b);
  Advance(kInitialDelay);
  Advance(kInitialDelay);
  ASSERT_TRUE(first.done() && jb.done());
  const std::string old_id = first.get().member_id;
  const int32_t generation = first.get().generation_id;
  Sync(b, generation);
  Sync(old_id, generation, {{old_id, "mine"}, {b, "yours"}}, std::string("instance-1"));
  coordinator_->RunDueTimers();
  ASSERT_EQ(State(), GroupState::kStable);
  const int64_t rebalances = coordinator_->stats().rebalances;

  // The member restarts: a join with its instance id and no member id.
  PendingJoin back = StartJoin("", std::string("instance-1"));
  coordinator_->RunDueTimers();
  ASSERT_TRUE(back.done());
  EXPECT_EQ(back.get().error, ErrorCode::kNone);
  EXPECT_EQ(back.get().generation_id, generation);  // no new generation
  EXPECT_NE(back.get().member_id, old_id);
  EXPECT_EQ(State(), GroupState::kStable);
  EXPECT_EQ(coordinator_->stats().rebalances, rebalances);
  auto synced = Sync(back.get().member_id, generation, {}, std::string("instance-1"));
  ASSERT_TRUE(synced.has_value());
  EXPECT_EQ(synced->assignment, "mine");
  // The old incarnation is fenced; the other member saw nothing.
  EXPECT_EQ(coordinator_->Heartbeat("g", old_id, std::string("instance-1"), generation), ErrorCode::kFencedInstanceId);
  EXPECT_EQ(coordinator_->Heartbeat("g", b, std::nullopt, generation), ErrorCode::kNone);
}

TEST_F(GroupCoordinatorTest, ProtocolsAreChosenByVoteAndMustBeShared) {
  std::string a, b;
  PendingJoin ja = JoinNew(&a);
  // a prefers range but also speaks roundrobin; b only roundrobin.
  ja = StartJoin(a, std::nullopt, {{"range", "r"}, {"roundrobin", "rr-a"}});
  PendingJoin first = StartJoin("");
  b = first.get().member_id;
  PendingJoin jb = StartJoin(b, std::nullopt, {{"roundrobin", "rr-b"}});
  PendingJoin refused = StartJoin("", std::nullopt, {{"sticky", "s"}});
  ASSERT_TRUE(refused.done());
  EXPECT_EQ(refused.get().error, ErrorCode::kInconsistentGroupProtocol);
  Advance(kInitialDelay);
  Advance(kInitialDelay);
  ASSERT_TRUE(ja.done());
  EXPECT_EQ(ja.get().protocol_name, "roundrobin");
  ASSERT_EQ(ja.get().members.size(), 2u);
  EXPECT_EQ(ja.get().members[0].metadata, "rr-a");
}

TEST_F(GroupCoordinatorTest, SessionTimeoutsOutsideTheBrokersBoundsAreRefused) {
  JoinGroupParams p;
  p.group_id = "g";
  p.session_timeout_ms = 10;
  p.protocol_type = "consumer";
  p.protocols = {{"range", ""}};
  std::optional<JoinGroupResult> r;
  coordinator_->JoinGroup(p, [&r](JoinGroupResult x) { r = x; });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, ErrorCode::kInvalidSessionTimeout);
}

TEST_F(GroupCoordinatorTest, ANewCoordinatorLoadsGroupsAndOffsetsFromThePartition) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  ASSERT_EQ(Commit(a, generation, 99).at(0).error, ErrorCode::kNone);
  ASSERT_EQ(Commit("", -1, 5, "standalone").at(0).error, ErrorCode::kNone);

  // The leadership moves: this coordinator drops the partition, another loads it.
  coordinator_->OnLeadership({}, 1);
  EXPECT_EQ(coordinator_->Heartbeat("g", a, std::nullopt, generation), ErrorCode::kNotCoordinator);
  std::unique_ptr<GroupCoordinator> owner = Other();
  GroupCoordinator& next = *owner;
  next.OnLeadership({{0, 2}}, 1);
  EXPECT_EQ(next.Heartbeat("g", a, std::nullopt, generation), ErrorCode::kCoordinatorLoadInProgress);
  next.RunDueTimers();
  ASSERT_TRUE(next.IsLoaded(0));
  EXPECT_EQ(next.Heartbeat("g", a, std::nullopt, generation), ErrorCode::kNone);
  GroupDescription d = next.DescribeGroup("g");
  EXPECT_EQ(d.state, GroupState::kStable);
  ASSERT_EQ(d.members.size(), 2u);
  EXPECT_EQ(next.FetchOffsets("g", std::nullopt).partitions.at(0).offset, 99);
  EXPECT_EQ(next.FetchOffsets("standalone", std::nullopt).partitions.at(0).offset, 5);
}

TEST_F(GroupCoordinatorTest, LosingThePartitionAnswersWaitingMembersNotCoordinator) {
  std::string a;
  PendingJoin ja = JoinNew(&a);
  EXPECT_FALSE(ja.done());
  coordinator_->OnLeadership({}, 1);
  ASSERT_TRUE(ja.done());
  EXPECT_EQ(ja.get().error, ErrorCode::kNotCoordinator);
}

TEST_F(GroupCoordinatorTest, OffsetsOfAnEmptyGroupExpireAfterTheRetention) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  ASSERT_EQ(Commit(a, generation, 10).at(0).error, ErrorCode::kNone);
  coordinator_->LeaveGroup("g", {{a, std::nullopt}, {b, std::nullopt}});
  Advance(kInitialDelay);  // the rebalance with nobody left ends Empty
  ASSERT_EQ(State(), GroupState::kEmpty);
  Advance(30'000);
  EXPECT_EQ(Committed(), 10);  // empty for less than the retention
  Advance(31'000);
  EXPECT_EQ(Committed(), -1);
  EXPECT_EQ(State(), GroupState::kDead);  // forgotten
  EXPECT_EQ(coordinator_->stats().offsets_expired, 1);
  // And it stays so for the next coordinator: the tombstones are in the log.
  const auto& records = log_.partitions[0];
  ASSERT_GE(records.size(), 2u);
  EXPECT_FALSE(records.back().value.has_value());
}

// A deleted topic's offsets go (Kafka's onPartitionsDeleted), from a live group and from
// an empty one, which then goes too; other topics' offsets stay; a new coordinator loads
// the tombstones.
TEST_F(GroupCoordinatorTest, TheOffsetsOfADeletedTopicAreRemoved) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  ASSERT_EQ(Commit(a, generation, 10).at(0).error, ErrorCode::kNone);
  ASSERT_EQ(Commit("", -1, 5, "standalone").at(0).error, ErrorCode::kNone);
  OffsetCommitParams other;
  other.group_id = "g";
  other.generation_id = generation;
  other.member_id = a;
  other.partitions = {{"audit", 1, 77, 3, std::string()}};
  coordinator_->CommitOffsets(other, [](std::vector<PartitionError>) {});
  coordinator_->RunDueTimers();

  coordinator_->OnTopicsDeleted({"orders"});
  coordinator_->RunDueTimers();
  EXPECT_EQ(Committed(), -1);
  OffsetFetchResult kept = coordinator_->FetchOffsets("g", std::nullopt);
  ASSERT_EQ(kept.partitions.size(), 1u);
  EXPECT_EQ(kept.partitions[0].topic, "audit");
  EXPECT_EQ(kept.partitions[0].offset, 77);
  EXPECT_EQ(State(), GroupState::kStable);  // the group itself stays
  EXPECT_EQ(coordinator_->DescribeGroup("standalone").state, GroupState::kDead);  // empty, no offsets: gone

  coordinator_->OnLeadership({}, 1);
  std::unique_ptr<GroupCoordinator> owner = Other();
  GroupCoordinator& next = *owner;
  next.OnLeadership({{0, 2}}, 1);
  next.RunDueTimers();
  ASSERT_TRUE(next.IsLoaded(0));
  EXPECT_EQ(next.FetchOffsets("g", std::vector<storage::TopicPartition>{{"orders", 0}}).partitions.at(0).offset, -1);
  EXPECT_EQ(next.FetchOffsets("g", std::vector<storage::TopicPartition>{{"audit", 1}}).partitions.at(0).offset, 77);
  EXPECT_EQ(next.DescribeGroup("standalone").state, GroupState::kDead);
}

TEST_F(GroupCoordinatorTest, OnlyEmptyGroupsAreDeleted) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  ASSERT_EQ(Commit(a, generation, 10).at(0).error, ErrorCode::kNone);
  ASSERT_EQ(Commit("", -1, 3, "idle").at(0).error, ErrorCode::kNone);
  std::vector<std::pair<std::string, ErrorCode>> out;
  coordinator_->DeleteGroups({"g", "idle", "missing"}, [&out](auto r) { out = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].second, ErrorCode::kNonEmptyGroup);
  EXPECT_EQ(out[1].second, ErrorCode::kNone);
  EXPECT_EQ(out[2].second, ErrorCode::kGroupIdNotFound);
  EXPECT_EQ(Committed("idle"), -1);
  EXPECT_EQ(Committed("g"), 10);
}

TEST_F(GroupCoordinatorTest, OffsetsOfSubscribedTopicsAreNotDeleted) {
  std::string a, b;
  int32_t generation = StableGroupOfTwo(&a, &b);
  OffsetCommitParams p;
  p.group_id = "g";
  p.generation_id = generation;
  p.member_id = a;
  p.partitions = {{"orders", 0, 1, -1, std::nullopt}, {"old", 0, 2, -1, std::nullopt}};
  coordinator_->CommitOffsets(p, [](auto) {});
  coordinator_->RunDueTimers();
  std::optional<std::pair<ErrorCode, std::vector<PartitionError>>> out;
  coordinator_->DeleteOffsets("g", {{"orders", 0}, {"old", 0}}, [&out](ErrorCode e, auto r) { out.emplace(e, r); });
  coordinator_->RunDueTimers();
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->first, ErrorCode::kNone);
  EXPECT_EQ(out->second.at(0).error, ErrorCode::kGroupSubscribedToTopic);
  EXPECT_EQ(out->second.at(1).error, ErrorCode::kNone);
  OffsetFetchResult r = coordinator_->FetchOffsets("g", std::nullopt);
  ASSERT_EQ(r.partitions.size(), 1u);
  EXPECT_EQ(r.partitions[0].topic, "orders");
}

TEST_F(GroupCoordinatorTest, PartitionsNotLedAreNotCoordinated) {
  std::unique_ptr<GroupCoordinator> owner = Other();
  GroupCoordinator& other = *owner;
  EXPECT_EQ(other.Heartbeat("g", "m", std::nullopt, 1), ErrorCode::kNotCoordinator);
  EXPECT_EQ(other.FetchOffsets("g", std::nullopt).error, ErrorCode::kNotCoordinator);
}

}  // namespace
}  // namespace strata::broker
