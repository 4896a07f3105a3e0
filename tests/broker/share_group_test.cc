// broker/group/share_group.h: the simple assignor and ShareGroupHeartbeat's rules.

#include "broker/group/share_group.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;

const std::string kJobs(16, 'j');
const std::string kAudit(16, 'a');

ConsumerTopics Topics(int32_t jobs_partitions = 1) {
  return {{"jobs", {kJobs, jobs_partitions}}, {"audit", {kAudit, 4}}};
}

ShareHeartbeatParams Join(const std::string& member, std::vector<std::string> topics = {"jobs"}) {
  ShareHeartbeatParams p;
  p.member_id = member;
  p.member_epoch = 0;
  p.subscribed_topic_names = std::move(topics);
  p.client_id = "client-" + member;
  p.client_host = "/127.0.0.1";
  return p;
}

ShareHeartbeatParams Beat(const std::string& member, int32_t epoch) {
  ShareHeartbeatParams p;
  p.member_id = member;
  p.member_epoch = epoch;
  p.client_id = "client-" + member;
  p.client_host = "/127.0.0.1";
  return p;
}

TEST(SimpleShareAssignment, MoreMembersThanPartitionsShareThemAndFewerSplitThem) {
  // Three members, one partition: all three get it.
  TargetAssignment three = SimpleShareAssignment({{"a", {"jobs"}}, {"b", {"jobs"}}, {"c", {"jobs"}}}, Topics(1));
  for (const char* m : {"a", "b", "c"}) EXPECT_EQ(three[m], (TopicPartitionSet{{kJobs, {0}}})) << m;
  // Two members, four partitions: two each, every partition once.
  TargetAssignment two = SimpleShareAssignment({{"a", {"audit"}}, {"b", {"audit"}}}, Topics());
  EXPECT_EQ(two["a"], (TopicPartitionSet{{kAudit, {0, 2}}}));
  EXPECT_EQ(two["b"], (TopicPartitionSet{{kAudit, {1, 3}}}));
  // Five members, two partitions: every member one partition, each partition at least two members.
  TargetAssignment five = SimpleShareAssignment(
      {{"a", {"jobs"}}, {"b", {"jobs"}}, {"c", {"jobs"}}, {"d", {"jobs"}}, {"e", {"jobs"}}}, Topics(2));
  std::map<int32_t, int> members_of;
  for (const auto& [m, parts] : five) {
    ASSERT_EQ(parts.at(kJobs).size(), 1u) << m;
    members_of[*parts.at(kJobs).begin()]++;
  }
  EXPECT_EQ(members_of, (std::map<int32_t, int>{{0, 3}, {1, 2}}));
  // A member of an unknown topic only gets nothing, and is still in the assignment.
  TargetAssignment unknown = SimpleShareAssignment({{"a", {"nope"}}}, Topics());
  EXPECT_TRUE(unknown.count("a") == 1 && unknown["a"].empty());
}

TEST(ShareHeartbeat, MembersJoinShareThePartitionAndLearnChangesOnTheirNextHeartbeat) {
  ShareGroup g;
  ShareGroupSettings s;
  ShareGroupChanges c1;
  ShareHeartbeatResult a = ShareHeartbeat(g, Join("a"), Topics(), s, 0, c1);
  ASSERT_EQ(a.error, ErrorCode::kNone);
  EXPECT_EQ(a.member_epoch, 1);
  EXPECT_EQ(a.heartbeat_interval_ms, 5000);
  EXPECT_EQ(a.assignment, (TopicPartitionSet{{kJobs, {0}}}));
  EXPECT_TRUE(c1.group_epoch_changed);
  EXPECT_EQ(c1.members_changed, (std::vector<std::string>{"a"}));
  EXPECT_EQ(g.phase(), ShareGroupPhase::kStable);

  ShareGroupChanges c2;
  ShareHeartbeatResult b = ShareHeartbeat(g, Join("b"), Topics(), s, 10, c2);
  EXPECT_EQ(b.member_epoch, 2);
  EXPECT_EQ(b.assignment, (TopicPartitionSet{{kJobs, {0}}})) << "both share the one partition";
  // a's part did not change, but its epoch follows the group's on its next heartbeat.
  ShareGroupChanges c3;
  ShareHeartbeatResult a2 = ShareHeartbeat(g, Beat("a", 1), Topics(), s, 20, c3);
  EXPECT_EQ(a2.member_epoch, 2);
  EXPECT_EQ(a2.assignment, (TopicPartitionSet{{kJobs, {0}}}));
  ShareGroupChanges c4;
  ShareHeartbeatResult a3 = ShareHeartbeat(g, Beat("a", 2), Topics(), s, 30, c4);
  EXPECT_FALSE(a3.assignment.has_value()) << "nothing changed: null";
  EXPECT_TRUE(c4.members_changed.empty() && !c4.group_epoch_changed);
  EXPECT_EQ(g.members.at("a").session_deadline_ms, 30 + 45000);
}

TEST(ShareHeartbeat, SubscriptionChangesLeavingAndTopicsReassign) {
  ShareGroup g;
  ShareGroupSettings s;
  ShareGroupChanges c;
  ShareHeartbeat(g, Join("a", {"audit"}), Topics(), s, 0, c);
  ShareHeartbeatResult b = ShareHeartbeat(g, Join("b", {"audit"}), Topics(), s, 0, c);
  EXPECT_EQ(b.assignment, (TopicPartitionSet{{kAudit, {1, 3}}}));
  // b subscribes to jobs too.
  ShareHeartbeatParams more = Beat("b", 2);
  more.subscribed_topic_names = std::vector<std::string>{"jobs", "audit", "jobs"};
  ShareGroupChanges c2;
  ShareHeartbeatResult b2 = ShareHeartbeat(g, more, Topics(), s, 1, c2);
  EXPECT_EQ(b2.member_epoch, 3);
  EXPECT_EQ(g.members.at("b").subscribed_topic_names, (std::vector<std::string>{"audit", "jobs"}));
  EXPECT_EQ(b2.assignment->at(kJobs), (std::set<int32_t>{0}));
  ShareGroupChanges c3;
  ShareHeartbeatResult behind = ShareHeartbeat(g, Beat("a", 1), Topics(), s, 2, c3);  // a still has its join's epoch
  ASSERT_EQ(behind.error, ErrorCode::kNone);
  EXPECT_EQ(behind.member_epoch, 3);
  EXPECT_EQ(behind.assignment, (TopicPartitionSet{{kAudit, {0, 2}}}));
  // a leaves: b takes all of audit.
  ShareHeartbeatParams leave = Beat("a", -1);
  ShareGroupChanges c4;
  EXPECT_EQ(ShareHeartbeat(g, leave, Topics(), s, 3, c4).member_epoch, -1);
  EXPECT_EQ(c4.members_removed, (std::vector<std::string>{"a"}));
  EXPECT_EQ(g.members.at("b").assignment.at(kAudit), (std::set<int32_t>{0, 1, 2, 3}));
  // jobs gets a second partition: the epoch moves and b gets it.
  ShareGroupChanges c5;
  OnShareTopicsChanged(g, Topics(2), c5);
  EXPECT_TRUE(c5.group_epoch_changed);
  EXPECT_EQ(g.members.at("b").assignment.at(kJobs), (std::set<int32_t>{0, 1}));
  ShareGroupChanges c6;
  OnShareTopicsChanged(g, Topics(2), c6);
  EXPECT_FALSE(c6.group_epoch_changed) << "nothing the group subscribes to changed";
}

TEST(ShareHeartbeat, RefusalsNameTheRule) {
  ShareGroup g;
  ShareGroupSettings s;
  s.max_size = 1;
  ShareGroupChanges c;
  EXPECT_EQ(ShareHeartbeat(g, Join(""), Topics(), s, 0, c).error, ErrorCode::kInvalidRequest);
  ShareHeartbeatParams no_topics = Join("a");
  no_topics.subscribed_topic_names.reset();
  EXPECT_EQ(ShareHeartbeat(g, no_topics, Topics(), s, 0, c).error, ErrorCode::kInvalidRequest);
  ASSERT_EQ(ShareHeartbeat(g, Join("a"), Topics(), s, 0, c).error, ErrorCode::kNone);
  EXPECT_EQ(ShareHeartbeat(g, Join("b"), Topics(), s, 0, c).error, ErrorCode::kGroupMaxSizeReached);
  EXPECT_EQ(ShareHeartbeat(g, Beat("z", 1), Topics(), s, 0, c).error, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(ShareHeartbeat(g, Beat("a", 7), Topics(), s, 0, c).error, ErrorCode::kFencedMemberEpoch);
  EXPECT_EQ(ShareHeartbeat(g, Beat("z", -1), Topics(), s, 0, c).error, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(ShareHeartbeat(g, Beat("a", -2), Topics(), s, 0, c).error, ErrorCode::kInvalidRequest)
      << "share groups have no static members";
  // A member that rejoins with epoch 0 gets the whole assignment again.
  ShareHeartbeatResult again = ShareHeartbeat(g, Join("a"), Topics(), s, 5, c);
  EXPECT_EQ(again.member_epoch, 1);
  EXPECT_EQ(again.assignment, (TopicPartitionSet{{kJobs, {0}}}));
}

}  // namespace
}  // namespace strata::broker
