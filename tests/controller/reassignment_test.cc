// Partition reassignment (controller/reassignment.h): a reassignment starts, the ISR that
// takes in the last added replica completes it, a cancel goes back; the refusals. Each
// plan's records are applied to the image, which also checks that they fit.

#include "controller/reassignment.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "controller/cluster_control.h"
#include "tests/support/metadata_records.h"

namespace strata::controller {
namespace {

using Brokers = std::vector<BrokerId>;

const TopicId kTopic(16, 't');

std::string Dir(BrokerId b) {
  std::string dir = "dir-" + std::to_string(b);
  dir.resize(16, '.');
  return dir;
}

// Brokers 1..5 registered and unfenced (one log dir each), partition 0 of "orders" on
// 1, 2, 3, all in sync, led by 1, each replica in its broker's dir.
MetadataImage Cluster() {
  MetadataImage image;
  std::vector<pb::MetadataRecord> records;
  for (BrokerId b = 1; b <= 5; ++b) records.push_back(testing::RegisterBrokerRecord(b, 1, {Dir(b)}));
  records.push_back(testing::TopicRecord("orders", kTopic));
  pb::MetadataRecord p = testing::PartitionRecord(kTopic, 0, {1, 2, 3}, {1, 2, 3}, 1);
  for (BrokerId b : {1, 2, 3}) p.mutable_partition()->add_directories(Dir(b));
  records.push_back(p);
  for (const auto& r : records) EXPECT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
  return image;
}

const pb::Partition& Orders0(const MetadataImage& image) { return *image.FindPartition(kTopic, 0); }

Brokers Ids(const google::protobuf::RepeatedField<int32_t>& ids) { return {ids.begin(), ids.end()}; }

// Plans the reassignment of orders-0 and applies its records.
Plan Reassign(MetadataImage& image, std::optional<Brokers> target, bool allow_factor_change = true) {
  Plan plan = PlanReassignment(image, *image.FindTopic("orders"), Orders0(image), target, allow_factor_change);
  for (const auto& r : plan.records) EXPECT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
  return plan;
}

// The leader's AlterPartition of orders-0 to `isr`, applied.
Plan AlterIsr(MetadataImage& image, const Brokers& isr) {
  const pb::Partition& p = Orders0(image);
  controller::v1::AlterPartitionRequest::Partition request;
  request.set_topic_id(kTopic);
  request.set_partition_id(0);
  request.set_leader_epoch(p.leader_epoch());
  request.set_partition_epoch(p.partition_epoch());
  for (BrokerId b : isr) request.add_new_isr(b);
  Plan plan = PlanAlterPartition(image, p.leader(), request);
  for (const auto& r : plan.records) EXPECT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
  return plan;
}

TEST(Reassignment, StartsWithTheTargetFirstThenTheLeavingReplicasAndKeepsTheIsrAndLeader) {
  MetadataImage image = Cluster();
  Plan plan = Reassign(image, Brokers{2, 3, 4});
  ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
  ASSERT_EQ(plan.records.size(), 1u);
  const pb::Partition& p = Orders0(image);
  EXPECT_EQ(Ids(p.replicas()), (Brokers{2, 3, 4, 1}));
  EXPECT_EQ(Ids(p.adding_replicas()), (Brokers{4}));
  EXPECT_EQ(Ids(p.removing_replicas()), (Brokers{1}));
  EXPECT_EQ(Ids(p.isr()), (Brokers{1, 2, 3}));
  EXPECT_EQ(p.leader(), 1);
  // Each replica keeps its dir; the new one gets one of its broker's.
  ASSERT_EQ(p.directories_size(), 4);
  EXPECT_EQ(p.directories(0), Dir(2));
  EXPECT_EQ(p.directories(2), Dir(4));
  EXPECT_EQ(p.directories(3), Dir(1));
  EXPECT_TRUE(Reassigning(p));
}

TEST(Reassignment, CompletesInTheIsrChangeThatTakesInTheLastAddedReplica) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(Reassign(image, Brokers{4, 5, 3}).outcome.ok());
  // One of the two new replicas in sync: not yet.
  Plan first = AlterIsr(image, {1, 2, 3, 4});
  ASSERT_TRUE(first.outcome.ok()) << first.outcome.message;
  EXPECT_TRUE(Reassigning(Orders0(image)));
  EXPECT_EQ(Ids(Orders0(image).replicas()), (Brokers{4, 5, 3, 1, 2}));
  EXPECT_EQ(Orders0(image).leader(), 1);

  const int32_t leader_epoch = Orders0(image).leader_epoch();
  Plan last = AlterIsr(image, {1, 2, 3, 4, 5});
  ASSERT_TRUE(last.outcome.ok()) << last.outcome.message;
  const pb::Partition& p = Orders0(image);
  EXPECT_FALSE(Reassigning(p));
  EXPECT_EQ(Ids(p.replicas()), (Brokers{4, 5, 3}));
  EXPECT_EQ(Ids(p.isr()), (Brokers{3, 4, 5}));
  // The leader was removed: the first replica of the target in the ISR leads.
  EXPECT_EQ(p.leader(), 4);
  EXPECT_GT(p.leader_epoch(), leader_epoch);
  ASSERT_EQ(p.directories_size(), 3);
  EXPECT_EQ(p.directories(2), Dir(3));
}

TEST(Reassignment, ALeaderInTheTargetKeepsLeadingWhenItCompletes) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(Reassign(image, Brokers{1, 2, 4}).outcome.ok());
  ASSERT_TRUE(AlterIsr(image, {1, 2, 3, 4}).outcome.ok());
  EXPECT_EQ(Ids(Orders0(image).replicas()), (Brokers{1, 2, 4}));
  EXPECT_EQ(Ids(Orders0(image).isr()), (Brokers{1, 2, 4}));
  EXPECT_EQ(Orders0(image).leader(), 1);
}

TEST(Reassignment, RemovingReplicasOnlyOrReorderingCompletesAtOnce) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(Reassign(image, Brokers{2, 1}).outcome.ok());
  EXPECT_FALSE(Reassigning(Orders0(image)));
  EXPECT_EQ(Ids(Orders0(image).replicas()), (Brokers{2, 1}));
  EXPECT_EQ(Ids(Orders0(image).isr()), (Brokers{1, 2}));
  EXPECT_EQ(Orders0(image).leader(), 1);
  // The same replicas again: nothing to write.
  Plan again = Reassign(image, Brokers{2, 1});
  EXPECT_TRUE(again.outcome.ok());
  EXPECT_TRUE(again.records.empty());
}

TEST(Reassignment, ANewTargetDuringOneStartsFromTheCurrentReplicas) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(Reassign(image, Brokers{2, 3, 4}).outcome.ok());
  ASSERT_TRUE(Reassign(image, Brokers{2, 3, 5}).outcome.ok());
  const pb::Partition& p = Orders0(image);
  EXPECT_EQ(Ids(p.replicas()), (Brokers{2, 3, 5, 4, 1}));
  EXPECT_EQ(Ids(p.adding_replicas()), (Brokers{5}));
  EXPECT_EQ(Ids(p.removing_replicas()), (Brokers{4, 1}));
}

TEST(Reassignment, ACancelGoesBackToTheReplicasBeforeAndDropsTheAddedOnesFromTheIsr) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(Reassign(image, Brokers{4, 5, 3}).outcome.ok());
  ASSERT_TRUE(AlterIsr(image, {1, 2, 3, 4}).outcome.ok());
  Plan cancel = Reassign(image, std::nullopt);
  ASSERT_TRUE(cancel.outcome.ok()) << cancel.outcome.message;
  const pb::Partition& p = Orders0(image);
  EXPECT_FALSE(Reassigning(p));
  EXPECT_EQ(Ids(p.replicas()), (Brokers{3, 1, 2}));
  EXPECT_EQ(Ids(p.isr()), (Brokers{1, 2, 3}));
  EXPECT_EQ(p.leader(), 1);
  ASSERT_EQ(p.directories_size(), 3);
  EXPECT_EQ(p.directories(1), Dir(1));
}

TEST(Reassignment, CancellingWhereNoneIsInProgressIsRefused) {
  MetadataImage image = Cluster();
  Plan cancel = Reassign(image, std::nullopt);
  EXPECT_EQ(cancel.outcome.code, ErrorCode::kNoReassignmentInProgress);
  EXPECT_TRUE(cancel.records.empty());
}

TEST(Reassignment, BadTargetsAreRefusedWithKafkasErrorsAndNothingWritten) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(image.Apply(testing::RegisterBrokerRecord(6, 1, {Dir(6)})).ok());
  ASSERT_TRUE(image.Apply(testing::FenceBrokerRecord(6)).ok());
  struct Case {
    Brokers target;
    ErrorCode code;
    const char* says;
  };
  for (const Case& c : {Case{{}, ErrorCode::kInvalidReplicaAssignment, "empty"},
                        Case{{1, 2, 2}, ErrorCode::kInvalidReplicaAssignment, "named twice"},
                        Case{{1, 2, 9}, ErrorCode::kInvalidReplicaAssignment, "not registered"},
                        Case{{1, 2, 6}, ErrorCode::kInvalidReplicaAssignment, "fenced"}}) {
    Plan plan = Reassign(image, c.target);
    EXPECT_EQ(plan.outcome.code, c.code) << ::testing::PrintToString(c.target);
    EXPECT_NE(plan.outcome.message.find(c.says), std::string::npos) << plan.outcome.message;
    EXPECT_TRUE(plan.records.empty());
  }
  Plan grow = Reassign(image, Brokers{1, 2, 3, 4}, /*allow_factor_change=*/false);
  EXPECT_EQ(grow.outcome.code, ErrorCode::kInvalidReplicationFactor);
  EXPECT_TRUE(grow.records.empty());
  EXPECT_EQ(Ids(Orders0(image).replicas()), (Brokers{1, 2, 3}));
  // The factor may change when the request allows it.
  EXPECT_TRUE(Reassign(image, Brokers{1, 2, 3, 4}).outcome.ok());
}

TEST(Reassignment, AReplicaAlreadyOnAFencedBrokerMayStayInTheTarget) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(image.Apply(testing::FenceBrokerRecord(3)).ok());
  Plan plan = Reassign(image, Brokers{1, 3, 4});
  ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
  EXPECT_EQ(Ids(Orders0(image).adding_replicas()), (Brokers{4}));
}

TEST(Reassignment, TheImageRefusesAddingOrRemovingReplicasThatAreNotReplicas) {
  MetadataImage image = Cluster();
  pb::MetadataRecord r;
  auto* c = r.mutable_partition_change();
  c->set_topic_id(kTopic);
  c->set_partition_id(0);
  c->mutable_adding_replicas()->add_ids(4);
  EXPECT_FALSE(image.Apply(r).ok());
  c->clear_adding_replicas();
  for (BrokerId b : {1, 2, 3}) c->mutable_removing_replicas()->add_ids(b);
  EXPECT_FALSE(image.Apply(r).ok());  // nothing would stay
  EXPECT_FALSE(Reassigning(Orders0(image)));
}

}  // namespace
}  // namespace strata::controller
