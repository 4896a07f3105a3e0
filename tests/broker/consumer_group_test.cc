// A KIP-848 consumer group's heartbeat rules (broker/group/consumer_group.h): joining,
// revoke-before-assign between members, leaving, fencing, static members, validation,
// partitions added to a subscribed topic.
#include "broker/group/consumer_group.h"

#include <gtest/gtest.h>

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;

const ConsumerTopics kTopics = {{"orders", {"ID-orders", 4}}, {"audit", {"ID-audit", 2}}};

class ConsumerGroupTest : public ::testing::Test {
 protected:
  ConsumerHeartbeatResult Beat(ConsumerHeartbeatParams p) {
    changes_ = ConsumerGroupChanges{};
    return ConsumerHeartbeat(group_, p, topics_, settings_, now_, changes_);
  }

  ConsumerHeartbeatResult Join(const std::string& member, std::vector<std::string> topics = {"orders"},
                               std::optional<std::string> instance = std::nullopt) {
    ConsumerHeartbeatParams p;
    p.group_id = "g";
    p.member_id = member;
    p.member_epoch = 0;
    p.instance_id = std::move(instance);
    p.rebalance_timeout_ms = 30000;
    p.subscribed_topic_names = std::move(topics);
    p.owned = TopicPartitionSet{};
    return Beat(p);
  }

  // A heartbeat of a member in `epoch` that owns `owned`.
  ConsumerHeartbeatResult Poll(const std::string& member, int32_t epoch, TopicPartitionSet owned) {
    ConsumerHeartbeatParams p;
    p.group_id = "g";
    p.member_id = member;
    p.member_epoch = epoch;
    p.owned = std::move(owned);
    return Beat(p);
  }

  // No partition is held by two members, and partition_epochs says who holds what.
  void ExpectConsistent() {
    std::map<std::pair<std::string, int32_t>, std::string> holder;
    for (const auto& [id, m] : group_.members) {
      for (const TopicPartitionSet* set : {&m.assignment.assigned, &m.assignment.pending_revocation}) {
        for (const auto& [t, ps] : *set) {
          for (int32_t p : ps) {
            EXPECT_TRUE(holder.emplace(std::make_pair(t, p), id).second) << t << "-" << p << " held twice";
            EXPECT_EQ(group_.PartitionEpoch(t, p), m.assignment.member_epoch) << t << "-" << p;
          }
        }
      }
    }
    EXPECT_EQ(holder.size(), group_.partition_epochs.size());
  }

  ConsumerGroup group_;
  ConsumerTopics topics_ = kTopics;
  ConsumerGroupSettings settings_;
  ConsumerGroupChanges changes_;
  int64_t now_ = 1000;
};

TEST_F(ConsumerGroupTest, TheFirstMemberGetsEveryPartitionAtOnce) {
  ConsumerHeartbeatResult r = Join("m1");
  ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message.value_or("");
  EXPECT_EQ(r.member_id, "m1");
  EXPECT_EQ(r.member_epoch, 1);
  EXPECT_EQ(r.heartbeat_interval_ms, 5000);
  ASSERT_TRUE(r.assignment);
  EXPECT_EQ(*r.assignment, (TopicPartitionSet{{"ID-orders", {0, 1, 2, 3}}}));
  EXPECT_EQ(group_.group_epoch, 1);
  EXPECT_EQ(group_.assignment_epoch, 1);
  EXPECT_EQ(group_.phase(), ConsumerGroupPhase::kStable);
  EXPECT_TRUE(changes_.group_epoch_changed);
  EXPECT_TRUE(changes_.target_changed);
  EXPECT_EQ(group_.members.at("m1").session_deadline_ms, now_ + 45000);
  ExpectConsistent();
  // A heartbeat with nothing new is answered without an assignment.
  ConsumerHeartbeatResult again = Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}});
  EXPECT_EQ(again.member_epoch, 1);
  EXPECT_FALSE(again.assignment);
}

TEST_F(ConsumerGroupTest, ASecondMemberGetsPartitionsOnlyOnceTheFirstRevokedThem) {
  Join("m1");
  ConsumerHeartbeatResult m2 = Join("m2");
  EXPECT_EQ(group_.group_epoch, 2);
  EXPECT_EQ(m2.member_epoch, 2);
  ASSERT_TRUE(m2.assignment);
  EXPECT_TRUE(m2.assignment->empty());  // its partitions are m1's still
  EXPECT_EQ(group_.members.at("m2").assignment.state, ConsumerMemberState::kUnreleasedPartitions);
  EXPECT_EQ(group_.phase(), ConsumerGroupPhase::kReconciling);
  ExpectConsistent();

  // m1 is told to keep two: its epoch stays until it shows the others gone.
  ConsumerHeartbeatResult m1 = Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}});
  EXPECT_EQ(m1.member_epoch, 1);
  ASSERT_TRUE(m1.assignment);
  EXPECT_EQ(PartitionCount(*m1.assignment), 2);
  EXPECT_EQ(group_.members.at("m1").assignment.state, ConsumerMemberState::kUnrevokedPartitions);
  EXPECT_EQ(group_.members.at("m1").revocation_deadline_ms, now_ + 30000);
  TopicPartitionSet kept = *m1.assignment;
  // m2 still waits.
  EXPECT_TRUE(Poll("m2", 2, {}).assignment.value_or(TopicPartitionSet{}).empty());
  ExpectConsistent();

  // Revoked: m1 moves to epoch 2; then m2 gets the two released partitions.
  m1 = Poll("m1", 1, kept);
  EXPECT_EQ(m1.member_epoch, 2);
  EXPECT_EQ(group_.members.at("m1").revocation_deadline_ms, 0);
  ExpectConsistent();
  m2 = Poll("m2", 2, {});
  ASSERT_TRUE(m2.assignment);
  EXPECT_EQ(PartitionCount(*m2.assignment), 2);
  EXPECT_EQ(group_.phase(), ConsumerGroupPhase::kStable);
  ExpectConsistent();
}

TEST_F(ConsumerGroupTest, ALeavingMembersPartitionsGoToTheOthers) {
  Join("m1");
  Join("m2");
  TopicPartitionSet kept = *Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}}).assignment;
  Poll("m1", 1, kept);
  TopicPartitionSet m2_parts = *Poll("m2", 2, {}).assignment;

  ConsumerHeartbeatParams leave;
  leave.group_id = "g";
  leave.member_id = "m2";
  leave.member_epoch = kLeaveGroupMemberEpoch;
  ConsumerHeartbeatResult left = Beat(leave);
  EXPECT_EQ(left.error, ErrorCode::kNone);
  EXPECT_EQ(left.member_epoch, -1);
  EXPECT_EQ(group_.members.count("m2"), 0u);
  EXPECT_EQ(changes_.members_removed, std::vector<std::string>{"m2"});
  EXPECT_EQ(group_.group_epoch, 3);
  ConsumerHeartbeatResult m1 = Poll("m1", 2, kept);
  EXPECT_EQ(m1.member_epoch, 3);
  ASSERT_TRUE(m1.assignment);
  EXPECT_EQ(*m1.assignment, (TopicPartitionSet{{"ID-orders", {0, 1, 2, 3}}}));
  ExpectConsistent();
}

TEST_F(ConsumerGroupTest, AWrongEpochIsFencedAndTheEpochBeforeIsTakenWhenTheAnswerWasLost) {
  Join("m1");
  Join("m2");
  TopicPartitionSet kept = *Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}}).assignment;
  ConsumerHeartbeatResult moved = Poll("m1", 1, kept);  // m1 at epoch 2 now
  ASSERT_EQ(moved.member_epoch, 2);
  EXPECT_EQ(Poll("m1", 3, kept).error, ErrorCode::kFencedMemberEpoch);
  // Its answer lost, m1 sends epoch 1 again owning exactly what it has: fine.
  ConsumerHeartbeatResult retry = Poll("m1", 1, kept);
  EXPECT_EQ(retry.error, ErrorCode::kNone);
  EXPECT_EQ(retry.member_epoch, 2);
  // Epoch 1 owning something else is fenced.
  EXPECT_EQ(Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}}).error, ErrorCode::kFencedMemberEpoch);
  EXPECT_EQ(Poll("nobody", 1, {}).error, ErrorCode::kUnknownMemberId);
}

TEST_F(ConsumerGroupTest, AStaticMemberComingBackTakesOverItsPartitionsWithoutARebalance) {
  Join("m1", {"orders"}, "app-1");
  ConsumerHeartbeatResult other = Join("m1-again", {"orders"}, "app-1");
  EXPECT_EQ(other.error, ErrorCode::kUnreleasedInstanceId);

  ConsumerHeartbeatParams leave;
  leave.group_id = "g";
  leave.member_id = "m1";
  leave.instance_id = "app-1";
  leave.member_epoch = kLeaveGroupStaticMemberEpoch;
  EXPECT_EQ(Beat(leave).member_epoch, -2);
  EXPECT_EQ(group_.members.at("m1").assignment.member_epoch, -2);
  ASSERT_EQ(group_.group_epoch, 1);

  ConsumerHeartbeatResult back = Join("m1-restarted", {"orders"}, "app-1");
  ASSERT_EQ(back.error, ErrorCode::kNone) << back.error_message.value_or("");
  EXPECT_EQ(back.member_epoch, 1);
  ASSERT_TRUE(back.assignment);
  EXPECT_EQ(*back.assignment, (TopicPartitionSet{{"ID-orders", {0, 1, 2, 3}}}));
  EXPECT_EQ(group_.group_epoch, 1);  // no rebalance
  EXPECT_EQ(group_.members.count("m1"), 0u);
  EXPECT_EQ(group_.static_members.at("app-1"), "m1-restarted");
  ExpectConsistent();
  // The old incarnation is gone.
  EXPECT_EQ(Poll("m1", 1, {}).error, ErrorCode::kUnknownMemberId);
}

TEST_F(ConsumerGroupTest, AMemberRejoiningAfterItWasFencedStartsOver) {
  Join("m1");
  ConsumerHeartbeatResult r = Join("m1");
  EXPECT_EQ(r.error, ErrorCode::kNone);
  EXPECT_EQ(r.member_epoch, 1);
  ASSERT_TRUE(r.assignment);
  EXPECT_EQ(PartitionCount(*r.assignment), 4);
  ExpectConsistent();
}

TEST_F(ConsumerGroupTest, HeartbeatsAreValidatedAsKafkaDoes) {
  ConsumerHeartbeatParams p;
  p.group_id = "g";
  p.member_id = "m1";
  p.member_epoch = 0;
  p.subscribed_topic_names = std::vector<std::string>{"orders"};
  p.owned = TopicPartitionSet{};
  ConsumerHeartbeatResult r = Beat(p);
  EXPECT_EQ(r.error, ErrorCode::kInvalidRequest);
  EXPECT_EQ(r.error_message, "RebalanceTimeoutMs must be provided in first request.");
  p.rebalance_timeout_ms = 1000;
  p.owned = std::nullopt;
  EXPECT_EQ(Beat(p).error, ErrorCode::kInvalidRequest);
  p.owned = TopicPartitionSet{};
  p.server_assignor = "sticky";
  EXPECT_EQ(Beat(p).error, ErrorCode::kUnsupportedAssignor);
  p.server_assignor = std::nullopt;
  p.subscribed_topic_regex = "orders(";
  r = Beat(p);
  EXPECT_EQ(r.error, ErrorCode::kInvalidRegularExpression);
  EXPECT_NE(r.error_message.value_or("").find("orders("), std::string::npos) << r.error_message.value_or("");
  p.subscribed_topic_regex = std::nullopt;
  p.member_id = "";
  EXPECT_EQ(Beat(p).error, ErrorCode::kInvalidRequest);
  EXPECT_TRUE(group_.members.empty());
  EXPECT_EQ(group_.group_epoch, 0);
}

TEST_F(ConsumerGroupTest, PartitionsAddedToASubscribedTopicAreAssigned) {
  Join("m1");
  topics_["orders"].partitions = 6;
  changes_ = ConsumerGroupChanges{};
  OnConsumerTopicsChanged(group_, topics_, settings_, changes_);
  EXPECT_TRUE(changes_.group_epoch_changed);
  EXPECT_EQ(group_.group_epoch, 2);
  ConsumerHeartbeatResult r = Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}});
  EXPECT_EQ(r.member_epoch, 2);
  ASSERT_TRUE(r.assignment);
  EXPECT_EQ(PartitionCount(*r.assignment), 6);
  // A topic nobody subscribes to changes nothing.
  topics_["unrelated"] = {"ID-unrelated", 3};
  changes_ = ConsumerGroupChanges{};
  OnConsumerTopicsChanged(group_, topics_, settings_, changes_);
  EXPECT_FALSE(changes_.group_epoch_changed);
}

// SubscribedTopicRegex (KIP-848 v1): a full match over the topics' names, internal topics
// never; a topic created later that matches moves the group epoch and is assigned.
TEST_F(ConsumerGroupTest, ARegularExpressionSubscribesToTheTopicsItMatchesAndToNewOnes) {
  topics_["orders-eu"] = {"ID-orders-eu", 2};
  topics_["__orders-internal"] = {"ID-internal", 2};
  ConsumerHeartbeatParams p;
  p.group_id = "g";
  p.member_id = "m1";
  p.rebalance_timeout_ms = 30000;
  p.subscribed_topic_regex = "orders.*";
  p.owned = TopicPartitionSet{};
  ConsumerHeartbeatResult r = Beat(p);
  ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message.value_or("");
  EXPECT_EQ(*r.assignment, (TopicPartitionSet{{"ID-orders", {0, 1, 2, 3}}, {"ID-orders-eu", {0, 1}}}));
  EXPECT_EQ(group_.resolved_regexes.at("orders.*"), (std::set<std::string>{"orders", "orders-eu"}));
  // "audit" does not match in full; a new topic that does is picked up.
  topics_["orders-us"] = {"ID-orders-us", 1};
  changes_ = ConsumerGroupChanges{};
  OnConsumerTopicsChanged(group_, topics_, settings_, changes_);
  EXPECT_TRUE(changes_.group_epoch_changed);
  r = Poll("m1", 1, {{"ID-orders", {0, 1, 2, 3}}, {"ID-orders-eu", {0, 1}}});
  EXPECT_EQ(r.member_epoch, 2);
  ASSERT_TRUE(r.assignment);
  EXPECT_EQ(r.assignment->count("ID-orders-us"), 1u);
  EXPECT_EQ(r.assignment->count("ID-internal"), 0u);
  // Back to names only: an empty expression is none.
  p.member_epoch = 2;
  p.rebalance_timeout_ms = -1;
  p.subscribed_topic_regex = "";
  p.subscribed_topic_names = std::vector<std::string>{"audit"};
  p.owned = *r.assignment;
  r = Beat(p);
  ASSERT_EQ(r.error, ErrorCode::kNone);
  EXPECT_FALSE(group_.members.at("m1").subscribed_topic_regex.has_value());
  EXPECT_EQ(group_.target.at("m1"), (TopicPartitionSet{{"ID-audit", {0, 1}}}));
  ExpectConsistent();
}

TEST_F(ConsumerGroupTest, TheGroupTakesTheAssignorItsMembersAsk) {
  ConsumerHeartbeatParams p;
  p.group_id = "g";
  p.member_id = "m1";
  p.member_epoch = 0;
  p.rebalance_timeout_ms = 1000;
  p.subscribed_topic_names = std::vector<std::string>{"orders", "audit"};
  p.server_assignor = "range";
  p.owned = TopicPartitionSet{};
  ASSERT_EQ(Beat(p).error, ErrorCode::kNone);
  EXPECT_EQ(group_.assignor, "range");
}

TEST_F(ConsumerGroupTest, AFullGroupTurnsANewMemberAway) {
  settings_.max_size = 1;
  Join("m1");
  EXPECT_EQ(Join("m2").error, ErrorCode::kGroupMaxSizeReached);
  EXPECT_EQ(Join("m1").error, ErrorCode::kNone);  // a member already in rejoins
}

TEST_F(ConsumerGroupTest, PhaseNamesAreKafkas) {
  EXPECT_STREQ(ConsumerGroupPhaseName(ConsumerGroupPhase::kEmpty), "Empty");
  EXPECT_STREQ(ConsumerGroupPhaseName(ConsumerGroupPhase::kAssigning), "Assigning");
  EXPECT_STREQ(ConsumerGroupPhaseName(ConsumerGroupPhase::kReconciling), "Reconciling");
  EXPECT_STREQ(ConsumerGroupPhaseName(ConsumerGroupPhase::kStable), "Stable");
}

}  // namespace
}  // namespace strata::broker
