// GroupCoordinator's KIP-848 consumer groups (coordinator_consumer.cc), driven with a
// ManualClock over an in-memory GroupLog, so that a second coordinator loads what the
// first wrote: a heartbeat's changes written before it is answered, revoke before
// assign across two members, a failover that keeps every member's epoch and
// partitions, session expiry, partitions added to a subscribed topic, offsets committed
// and fetched with member epochs, the two group types sharing one id space, and
// ListGroups, ConsumerGroupDescribe and DeleteGroups.

#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "broker/group/group_coordinator.h"
#include "storage/clock.h"
#include "tests/support/memory_group_log.h"

namespace strata::broker {
namespace {

using testing::MemoryGroupLog;

const std::string kOrders(16, 'o');

class ConsumerGroupCoordinatorTest : public ::testing::Test {
 protected:
  ConsumerGroupCoordinatorTest() { coordinator_ = Make(); }

  std::unique_ptr<GroupCoordinator> Make() {
    GroupCoordinatorOptions o;
    o.offsets_topic_partitions = 1;  // every group in partition 0
    o.clock = &clock_;
    o.start_thread = false;
    auto c = std::make_unique<GroupCoordinator>(o, &log_);
    c->OnTopicsChanged(topics_, {}, true);
    c->OnLeadership({{0, ++leader_epoch_}}, 1);
    c->RunDueTimers();  // loads partition 0
    return c;
  }

  // Sends a heartbeat and runs the completions; the answer, if given by then.
  std::optional<ConsumerHeartbeatResult> Heartbeat(const std::string& member, int32_t epoch,
                                                   std::optional<TopicPartitionSet> owned = std::nullopt,
                                                   const std::string& group = "g") {
    ConsumerHeartbeatParams p;
    p.group_id = group;
    p.member_id = member;
    p.member_epoch = epoch;
    p.client_id = "client";
    if (epoch == 0) {
      p.rebalance_timeout_ms = 30000;
      p.subscribed_topic_names = std::vector<std::string>{"orders"};
      p.owned = TopicPartitionSet{};
    } else {
      p.owned = std::move(owned);
    }
    auto out = std::make_shared<std::optional<ConsumerHeartbeatResult>>();
    coordinator_->ConsumerGroupHeartbeat(p, [out](ConsumerHeartbeatResult r) { *out = std::move(r); });
    coordinator_->RunDueTimers();
    return *out;
  }

  std::vector<PartitionError> Commit(const std::string& member, int32_t epoch, int64_t offset,
                                     const std::string& group = "g") {
    OffsetCommitParams p;
    p.group_id = group;
    p.generation_id = epoch;
    p.member_id = member;
    p.partitions = {{"orders", 0, offset, 3, std::string("")}};
    std::vector<PartitionError> out;
    coordinator_->CommitOffsets(p, [&out](std::vector<PartitionError> r) { out = std::move(r); });
    coordinator_->RunDueTimers();
    return out;
  }

  static std::set<int32_t> Orders(const std::optional<TopicPartitionSet>& set) {
    if (!set) return {};
    auto it = set->find(kOrders);
    return it == set->end() ? std::set<int32_t>{} : it->second;
  }

  void Advance(int64_t ms) {
    clock_.Advance(ms);
    coordinator_->RunDueTimers();
  }

  storage::ManualClock clock_;
  MemoryGroupLog log_;
  ConsumerTopics topics_{{"orders", {kOrders, 4}}};
  int32_t leader_epoch_ = 0;
  std::unique_ptr<GroupCoordinator> coordinator_;
};

TEST_F(ConsumerGroupCoordinatorTest, AJoinIsAnsweredOnceItsRecordsAreWrittenWithEveryPartition) {
  log_.hold = true;
  auto out = std::make_shared<std::optional<ConsumerHeartbeatResult>>();
  ConsumerHeartbeatParams p;
  p.group_id = "g";
  p.member_id = "a";
  p.client_id = "client";
  p.rebalance_timeout_ms = 30000;
  p.subscribed_topic_names = std::vector<std::string>{"orders"};
  p.owned = TopicPartitionSet{};
  coordinator_->ConsumerGroupHeartbeat(p, [out](ConsumerHeartbeatResult r) { *out = std::move(r); });
  coordinator_->RunDueTimers();
  EXPECT_FALSE(out->has_value()) << "answered before its records were committed";
  EXPECT_EQ(log_.partitions[0].size(), 5u) << "member, group, target member, target, current assignment";
  log_.hold = false;
  log_.ReleaseHeld();
  coordinator_->RunDueTimers();
  ASSERT_TRUE(out->has_value());
  EXPECT_EQ((*out)->error, ErrorCode::kNone);
  EXPECT_EQ((*out)->member_epoch, 1);
  EXPECT_EQ(Orders((*out)->assignment), (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ((*out)->heartbeat_interval_ms, 5000);
  // A heartbeat that changes nothing writes nothing.
  const size_t records = log_.partitions[0].size();
  auto again = Heartbeat("a", 1, TopicPartitionSet{{kOrders, {0, 1, 2, 3}}});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->error, ErrorCode::kNone);
  EXPECT_FALSE(again->assignment.has_value()) << "unchanged";
  EXPECT_EQ(log_.partitions[0].size(), records);
}

TEST_F(ConsumerGroupCoordinatorTest, ASecondMemberGetsPartitionsOnlyOnceTheFirstRevokedThem) {
  auto a = Heartbeat("a", 0);
  ASSERT_EQ(a->member_epoch, 1);
  auto b = Heartbeat("b", 0);
  ASSERT_EQ(b->error, ErrorCode::kNone);
  EXPECT_EQ(b->member_epoch, 2);
  EXPECT_TRUE(Orders(b->assignment).empty()) << "a still holds them";
  // a is told to keep two partitions, in its old epoch, until it revoked the others.
  auto revoke = Heartbeat("a", 1, TopicPartitionSet{{kOrders, {0, 1, 2, 3}}});
  ASSERT_EQ(revoke->error, ErrorCode::kNone);
  EXPECT_EQ(revoke->member_epoch, 1);
  std::set<int32_t> kept = Orders(revoke->assignment);
  EXPECT_EQ(kept.size(), 2u);
  EXPECT_TRUE(Orders(Heartbeat("b", 2, TopicPartitionSet{})->assignment).empty()) << "not released yet";
  auto revoked = Heartbeat("a", 1, TopicPartitionSet{{kOrders, kept}});
  EXPECT_EQ(revoked->member_epoch, 2);
  auto given = Heartbeat("b", 2, TopicPartitionSet{});
  std::set<int32_t> got = Orders(given->assignment);
  EXPECT_EQ(got.size(), 2u);
  for (int32_t p : got) EXPECT_EQ(kept.count(p), 0u) << "partition " << p << " held by both";
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").state, "Stable");
}

TEST_F(ConsumerGroupCoordinatorTest, AFailoverKeepsEveryMembersEpochAndPartitions) {
  Heartbeat("a", 0);
  Heartbeat("b", 0);
  auto revoke = Heartbeat("a", 1, TopicPartitionSet{{kOrders, {0, 1, 2, 3}}});
  std::set<int32_t> kept = Orders(revoke->assignment);
  Heartbeat("a", 1, TopicPartitionSet{{kOrders, kept}});
  std::set<int32_t> b_got = Orders(Heartbeat("b", 2, TopicPartitionSet{})->assignment);
  ASSERT_EQ(b_got.size(), 2u);
  const ConsumerGroupDescription before = coordinator_->DescribeConsumerGroup("g");

  coordinator_ = Make();  // another coordinator loads what this one wrote
  const ConsumerGroupDescription after = coordinator_->DescribeConsumerGroup("g");
  EXPECT_EQ(after.error, ErrorCode::kNone);
  EXPECT_EQ(after.group_epoch, before.group_epoch);
  EXPECT_EQ(after.assignment_epoch, before.assignment_epoch);
  EXPECT_EQ(after.state, "Stable");
  ASSERT_EQ(after.members.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after.members[i].member_id, before.members[i].member_id);
    EXPECT_EQ(after.members[i].member_epoch, before.members[i].member_epoch);
    EXPECT_EQ(after.members[i].assignment.at(0).partitions, before.members[i].assignment.at(0).partitions);
  }
  // The members go on in their epochs, fenced by nothing.
  auto a = Heartbeat("a", 2, TopicPartitionSet{{kOrders, kept}});
  EXPECT_EQ(a->error, ErrorCode::kNone);
  EXPECT_EQ(a->member_epoch, 2);
  auto b = Heartbeat("b", 2, TopicPartitionSet{{kOrders, b_got}});
  EXPECT_EQ(b->error, ErrorCode::kNone);
  // And a member that joins now still waits for a partition to be released.
  auto c = Heartbeat("c", 0);
  EXPECT_EQ(c->member_epoch, 3);
  EXPECT_TRUE(Orders(c->assignment).empty());
}

TEST_F(ConsumerGroupCoordinatorTest, AMemberWhoseSessionEndsIsRemovedAndItsPartitionsGoToTheOthers) {
  Heartbeat("a", 0);
  Heartbeat("b", 0);
  auto revoke = Heartbeat("a", 1, TopicPartitionSet{{kOrders, {0, 1, 2, 3}}});
  std::set<int32_t> kept = Orders(revoke->assignment);
  Heartbeat("a", 1, TopicPartitionSet{{kOrders, kept}});
  Heartbeat("b", 2, TopicPartitionSet{});
  // b goes silent; a keeps heartbeating (every 5 s, its interval) and is given b's
  // partitions in a new epoch once b's 45 s session ended.
  int32_t epoch = 2;
  std::set<int32_t> owned = kept;
  for (int i = 0; i < 8; ++i) {
    Advance(5000);
    auto r = Heartbeat("a", epoch, TopicPartitionSet{{kOrders, owned}});
    ASSERT_EQ(r->error, ErrorCode::kNone);
    epoch = r->member_epoch;
    if (r->assignment) owned = Orders(r->assignment);
  }
  EXPECT_EQ(epoch, 2) << "b's session has not ended after 40 s";
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").members.size(), 2u);
  Advance(5000);
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").members.size(), 1u);
  auto all = Heartbeat("a", epoch, TopicPartitionSet{{kOrders, owned}});
  EXPECT_EQ(all->member_epoch, 3);
  EXPECT_EQ(Orders(all->assignment), (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Heartbeat("b", 2, TopicPartitionSet{})->error, ErrorCode::kUnknownMemberId);
  // The removal was written: a coordinator that loads the log has one member.
  coordinator_ = Make();
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").members.size(), 1u);
}

TEST_F(ConsumerGroupCoordinatorTest, PartitionsAddedToASubscribedTopicAreAssigned) {
  Heartbeat("a", 0);
  topics_["orders"].partitions = 6;
  coordinator_->OnTopicsChanged({{"orders", topics_["orders"]}}, {}, false);
  coordinator_->RunDueTimers();
  auto a = Heartbeat("a", 1, TopicPartitionSet{{kOrders, {0, 1, 2, 3}}});
  EXPECT_EQ(a->member_epoch, 2);
  EXPECT_EQ(Orders(a->assignment), (std::set<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST_F(ConsumerGroupCoordinatorTest, OffsetsAreCommittedAndFetchedInTheMembersEpochOnly) {
  Heartbeat("a", 0);
  auto ok = Commit("a", 1, 10);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].error, ErrorCode::kNone);
  EXPECT_EQ(Commit("a", 0, 11)[0].error, ErrorCode::kStaleMemberEpoch);
  EXPECT_EQ(Commit("a", 2, 11)[0].error, ErrorCode::kFencedMemberEpoch);
  EXPECT_EQ(Commit("z", 1, 11)[0].error, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(Commit("", -1, 11)[0].error, ErrorCode::kUnknownMemberId) << "the group has members";
  std::vector<storage::TopicPartition> orders0{{"orders", 0}};
  EXPECT_EQ(coordinator_->FetchOffsets("g", orders0, false, {"a", 1}).partitions.at(0).offset, 10);
  EXPECT_EQ(coordinator_->FetchOffsets("g", orders0, false, {"a", 0}).error, ErrorCode::kStaleMemberEpoch);
  EXPECT_EQ(coordinator_->FetchOffsets("g", orders0, false, {}).partitions.at(0).offset, 10) << "admin tools";
  // A classic group's member id and generation (franz-go sends them in v9) are not checked.
  ASSERT_EQ(Commit("", -1, 10, "classic")[0].error, ErrorCode::kNone);
  EXPECT_EQ(coordinator_->FetchOffsets("classic", orders0, false, {"kgo-member", 3}).error, ErrorCode::kNone);
  EXPECT_EQ(coordinator_->FetchOffsets("nobody", orders0, false, {"kgo-member", 3}).error, ErrorCode::kNone);
  // Once the member left, a commit from outside the group is taken.
  EXPECT_EQ(Heartbeat("a", -1)->error, ErrorCode::kNone);
  EXPECT_EQ(Commit("", -1, 12)[0].error, ErrorCode::kNone);
  EXPECT_EQ(coordinator_->FetchOffsets("g", orders0).partitions.at(0).offset, 12);
}

TEST_F(ConsumerGroupCoordinatorTest, AGroupIdIsOneGroupOfOneTypeAndAnEmptyGroupTakesTheJoinersType) {
  // An offsets-only classic group becomes a consumer group and keeps its offsets.
  ASSERT_EQ(Commit("", -1, 7)[0].error, ErrorCode::kNone);
  ASSERT_EQ(Heartbeat("a", 0)->error, ErrorCode::kNone);
  std::vector<storage::TopicPartition> orders0{{"orders", 0}};
  EXPECT_EQ(coordinator_->FetchOffsets("g", orders0).partitions.at(0).offset, 7);
  auto [listed_error, listed] = coordinator_->ListGroups();
  EXPECT_EQ(listed_error, ErrorCode::kNone);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].type, GroupType::kConsumer);
  EXPECT_EQ(listed[0].state_name, "Stable");
  // A classic member cannot join it while it has members; DescribeGroups does not describe it.
  JoinGroupParams join;
  join.group_id = "g";
  join.client_id = "client";
  join.session_timeout_ms = 10000;
  join.rebalance_timeout_ms = 10000;
  join.protocol_type = "consumer";
  join.protocols = {{"range", ""}};
  join.require_known_member_id = true;  // KIP-394: a first join is given its id
  std::optional<JoinGroupResult> joined;
  coordinator_->JoinGroup(join, [&joined](JoinGroupResult r) { joined = std::move(r); });
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->error, ErrorCode::kInconsistentGroupProtocol);
  EXPECT_EQ(coordinator_->DescribeGroup("g").error, ErrorCode::kGroupIdNotFound);
  // Empty again, it becomes a classic group (KIP-394's first join) and the load agrees.
  ASSERT_EQ(Heartbeat("a", -1)->error, ErrorCode::kNone);
  joined.reset();
  coordinator_->JoinGroup(join, [&joined](JoinGroupResult r) { joined = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->error, ErrorCode::kMemberIdRequired);
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").error, ErrorCode::kGroupIdNotFound);
  coordinator_ = Make();
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").error, ErrorCode::kGroupIdNotFound);
  EXPECT_EQ(coordinator_->FetchOffsets("g", orders0).partitions.at(0).offset, 7);
  // A classic group with members refuses the other protocol.
  join.require_known_member_id = false;
  coordinator_->JoinGroup(join, [](JoinGroupResult) {});
  EXPECT_EQ(coordinator_->DescribeGroup("g").state, GroupState::kPreparingRebalance);
  EXPECT_EQ(Heartbeat("b", 0)->error, ErrorCode::kGroupIdNotFound);
}

TEST_F(ConsumerGroupCoordinatorTest, DeletingAnEmptyConsumerGroupTombstonesEveryRecord) {
  Heartbeat("a", 0);
  std::optional<std::vector<std::pair<std::string, ErrorCode>>> deleted;
  coordinator_->DeleteGroups({"g"}, [&deleted](auto r) { deleted = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->at(0).second, ErrorCode::kNonEmptyGroup);
  Heartbeat("a", -1);
  deleted.reset();
  coordinator_->DeleteGroups({"g"}, [&deleted](auto r) { deleted = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->at(0).second, ErrorCode::kNone);
  coordinator_ = Make();
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").error, ErrorCode::kGroupIdNotFound);
  EXPECT_TRUE(coordinator_->ListGroups().second.empty());
}

TEST_F(ConsumerGroupCoordinatorTest, AVersionZeroJoinIsGivenAMemberIdByTheCoordinator) {
  ConsumerHeartbeatParams p;
  p.group_id = "g";
  p.member_epoch = 0;
  p.rebalance_timeout_ms = 30000;
  p.subscribed_topic_names = std::vector<std::string>{"orders"};
  p.owned = TopicPartitionSet{};
  p.client_id = "consumer-1";
  p.api_version = 0;
  std::optional<ConsumerHeartbeatResult> out;
  coordinator_->ConsumerGroupHeartbeat(p, [&out](ConsumerHeartbeatResult r) { out = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->error, ErrorCode::kNone);
  EXPECT_EQ(out->member_id.rfind("consumer-1-", 0), 0u) << out->member_id;
  p.api_version = 1;  // v1: the client names itself
  out.reset();
  coordinator_->ConsumerGroupHeartbeat(p, [&out](ConsumerHeartbeatResult r) { out = std::move(r); });
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->error, ErrorCode::kInvalidRequest);
}

}  // namespace
}  // namespace strata::broker
