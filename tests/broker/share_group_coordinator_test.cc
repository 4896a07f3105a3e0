// GroupCoordinator's KIP-932 share groups (coordinator_share.cc), driven with a
// ManualClock over an in-memory GroupLog, so that a second coordinator loads what the
// first wrote: a join answered once its records are written, members sharing a partition,
// a failover keeping every member's epoch and partitions, session expiry, a new partition
// of a subscribed topic, one group id for one type, and ListGroups, ShareGroupDescribe,
// DeleteGroups and offsets retention (which never expires a share group).

#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "broker/group/group_coordinator.h"
#include "storage/clock.h"
#include "tests/support/memory_group_log.h"

namespace strata::broker {
namespace {

using testing::MemoryGroupLog;

const std::string kJobs(16, 'j');

class ShareGroupCoordinatorTest : public ::testing::Test {
 protected:
  ShareGroupCoordinatorTest() { coordinator_ = Make(); }

  std::unique_ptr<GroupCoordinator> Make() {
    GroupCoordinatorOptions o;
    o.offsets_topic_partitions = 1;  // every group in partition 0
    o.offsets_retention_ms = 1000;
    o.offsets_retention_check_interval_ms = 500;
    o.clock = &clock_;
    o.start_thread = false;
    auto c = std::make_unique<GroupCoordinator>(o, &log_);
    c->OnTopicsChanged(topics_, {}, true);
    c->OnLeadership({{0, ++leader_epoch_}}, 1);
    c->RunDueTimers();  // loads partition 0
    return c;
  }

  // Sends a heartbeat and runs the completions; the answer, if given by then.
  std::optional<ShareHeartbeatResult> Heartbeat(const std::string& member, int32_t epoch,
                                                const std::string& group = "queue") {
    ShareHeartbeatParams p;
    p.member_id = member;
    p.member_epoch = epoch;
    p.client_id = "client-" + member;
    p.client_host = "/127.0.0.1";
    if (epoch == 0) p.subscribed_topic_names = std::vector<std::string>{"jobs"};
    auto out = std::make_shared<std::optional<ShareHeartbeatResult>>();
    coordinator_->ShareGroupHeartbeat(group, p, [out](ShareHeartbeatResult r) { *out = std::move(r); });
    coordinator_->RunDueTimers();
    return *out;
  }

  void Advance(int64_t ms) {
    clock_.Advance(ms);
    coordinator_->RunDueTimers();
  }

  storage::ManualClock clock_;
  MemoryGroupLog log_;
  ConsumerTopics topics_{{"jobs", {kJobs, 1}}};
  int32_t leader_epoch_ = 0;
  std::unique_ptr<GroupCoordinator> coordinator_;
};

TEST_F(ShareGroupCoordinatorTest, MembersShareAPartitionAndAFailoverKeepsThem) {
  log_.hold = true;
  auto out = std::make_shared<std::optional<ShareHeartbeatResult>>();
  ShareHeartbeatParams p;
  p.member_id = "a";
  p.subscribed_topic_names = std::vector<std::string>{"jobs"};
  coordinator_->ShareGroupHeartbeat("queue", p, [out](ShareHeartbeatResult r) { *out = std::move(r); });
  coordinator_->RunDueTimers();
  EXPECT_FALSE(out->has_value()) << "answered before its records were committed";
  log_.hold = false;
  log_.ReleaseHeld();
  coordinator_->RunDueTimers();
  ASSERT_TRUE(out->has_value());
  EXPECT_EQ((*out)->error, ErrorCode::kNone);
  EXPECT_EQ((*out)->member_epoch, 1);
  EXPECT_EQ((*out)->assignment, (TopicPartitionSet{{kJobs, {0}}}));

  auto b = Heartbeat("b", 0);
  ASSERT_TRUE(b && b->error == ErrorCode::kNone);
  EXPECT_EQ(b->assignment, (TopicPartitionSet{{kJobs, {0}}})) << "two members, one partition: shared";
  auto a = Heartbeat("a", 1);
  EXPECT_EQ(a->member_epoch, b->member_epoch) << "a catches up with the new group epoch";

  // Another coordinator loads the partition: the members keep their epochs and partitions.
  coordinator_->OnLeadership({}, 1);
  coordinator_ = Make();
  ShareGroupDescription d = coordinator_->DescribeShareGroup("queue");
  ASSERT_EQ(d.error, ErrorCode::kNone);
  EXPECT_EQ(d.state, "Stable");
  EXPECT_EQ(d.assignor, "simple");
  ASSERT_EQ(d.members.size(), 2u);
  for (const auto& m : d.members) {
    EXPECT_EQ(m.member_epoch, b->member_epoch) << m.member_id;
    ASSERT_EQ(m.assignment.size(), 1u);
    EXPECT_EQ(m.assignment[0].topic_name, "jobs");
    EXPECT_EQ(m.assignment[0].partitions, std::vector<int32_t>{0});
  }
  auto again = Heartbeat("a", b->member_epoch);
  EXPECT_EQ(again->error, ErrorCode::kNone) << "a member is not fenced by a failover";
}

TEST_F(ShareGroupCoordinatorTest, ASilentMemberIsRemovedAndTheGroupStaysUntilDeleted) {
  ASSERT_EQ(Heartbeat("a", 0)->error, ErrorCode::kNone);
  auto b = Heartbeat("b", 0);
  Advance(30000);
  ASSERT_EQ(Heartbeat("b", b->member_epoch)->error, ErrorCode::kNone);  // b keeps its session
  Advance(20000);  // a's 45 s session ends
  ShareGroupDescription d = coordinator_->DescribeShareGroup("queue");
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].member_id, "b");
  // b leaves: the group is empty, and offsets retention does not expire it.
  ASSERT_EQ(Heartbeat("b", -1)->error, ErrorCode::kNone);
  Advance(10000);
  EXPECT_EQ(coordinator_->DescribeShareGroup("queue").state, "Empty");
  auto [error, groups] = coordinator_->ListGroups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].type, GroupType::kShare);
  EXPECT_EQ(groups[0].state_name, "Empty");
  std::vector<std::pair<std::string, ErrorCode>> deleted;
  coordinator_->DeleteGroups({"queue"}, [&deleted](auto r) { deleted = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].second, ErrorCode::kNone);
  coordinator_->OnLeadership({}, 1);
  coordinator_ = Make();
  EXPECT_EQ(coordinator_->DescribeShareGroup("queue").error, ErrorCode::kGroupIdNotFound) << "deleted for good";
}

TEST_F(ShareGroupCoordinatorTest, ANewPartitionIsAssignedAndTypesDoNotMix) {
  auto a = Heartbeat("a", 0);
  topics_["jobs"].partitions = 2;
  coordinator_->OnTopicsChanged(topics_, {}, true);
  coordinator_->RunDueTimers();
  auto next = Heartbeat("a", a->member_epoch);
  EXPECT_GT(next->member_epoch, a->member_epoch);
  EXPECT_EQ(next->assignment, (TopicPartitionSet{{kJobs, {0, 1}}}));

  // A consumer group's heartbeat, a classic join and an offset commit for the share
  // group are refused; a share heartbeat for a consumer group too.
  ConsumerHeartbeatParams c;
  c.group_id = "queue";
  c.member_id = "c";
  c.rebalance_timeout_ms = 30000;
  c.subscribed_topic_names = std::vector<std::string>{"jobs"};
  c.owned = TopicPartitionSet{};
  std::optional<ConsumerHeartbeatResult> consumer;
  coordinator_->ConsumerGroupHeartbeat(c, [&consumer](ConsumerHeartbeatResult r) { consumer = std::move(r); });
  coordinator_->RunDueTimers();
  EXPECT_EQ(consumer->error, ErrorCode::kGroupIdNotFound);
  OffsetCommitParams commit;
  commit.group_id = "queue";
  commit.partitions = {{"jobs", 0, 5, -1, std::string("")}};
  std::vector<PartitionError> committed;
  coordinator_->CommitOffsets(commit, [&committed](std::vector<PartitionError> r) { committed = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_EQ(committed.size(), 1u);
  EXPECT_EQ(committed[0].error, ErrorCode::kGroupIdNotFound);
  c.group_id = "orders-app";
  coordinator_->ConsumerGroupHeartbeat(c, [&consumer](ConsumerHeartbeatResult r) { consumer = std::move(r); });
  coordinator_->RunDueTimers();
  ASSERT_EQ(consumer->error, ErrorCode::kNone);
  EXPECT_EQ(Heartbeat("s", 0, "orders-app")->error, ErrorCode::kGroupIdNotFound);
  EXPECT_EQ(coordinator_->DescribeShareGroup("orders-app").error, ErrorCode::kGroupIdNotFound);
}

}  // namespace
}  // namespace strata::broker
