// UnregisterBroker (controller/cluster_control.h, PlanUnregisterBroker): as Kafka 4's
// controller, any registered broker may be unregistered, fenced or not; its replicas
// leave the ISRs and leaderships first, then the registration goes; an unknown id is
// BROKER_ID_NOT_REGISTERED. Afterwards nothing places a replica on it or names it in an
// assignment, and the same broker may register again. Plans are applied to the image,
// which also checks that their records fit.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controller/cluster_control.h"
#include "tests/support/metadata_records.h"

namespace strata::controller {
namespace {

const TopicId kTopic(16, 't');
const ControllerConfig kDefaults;

// Brokers 1..3 registered and unfenced, partition 0 of "orders" on 1, 2, 3, all in sync,
// led by 3; with fence_3, broker 3 then fenced as a session timeout leaves it (out of the
// ISR, no longer leading).
MetadataImage Cluster(bool fence_3 = false) {
  MetadataImage image;
  std::vector<pb::MetadataRecord> records;
  for (BrokerId b = 1; b <= 3; ++b) records.push_back(testing::RegisterBrokerRecord(b, 10 + b));
  records.push_back(testing::TopicRecord("orders", kTopic));
  records.push_back(testing::PartitionRecord(kTopic, 0, {1, 2, 3}, {1, 2, 3}, 3));
  if (fence_3) {
    for (const auto& r : records) EXPECT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
    records = PlanFenceBroker(image, 3, kDefaults).records;
    EXPECT_FALSE(records.empty());
  }
  for (const auto& r : records) EXPECT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
  return image;
}

void ApplyPlan(MetadataImage& image, const Plan& plan) {
  ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
  for (const auto& r : plan.records) ASSERT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
}

std::vector<BrokerId> Isr(const MetadataImage& image) {
  const pb::Partition* p = image.FindPartition(kTopic, 0);
  return {p->isr().begin(), p->isr().end()};
}

TEST(PlanUnregisterBroker, AFencedBrokerGoesAndKeepsItsReplicasOffline) {
  MetadataImage image = Cluster(/*fence_3=*/true);
  ASSERT_EQ(Isr(image), (std::vector<BrokerId>{1, 2}));
  Plan plan = PlanUnregisterBroker(image, 3, kDefaults);
  ASSERT_EQ(plan.records.size(), 1u) << "nothing left to elect: only the UnregisterBroker record";
  EXPECT_EQ(plan.records[0].unregister_broker().broker_id(), 3);
  EXPECT_EQ(plan.records[0].unregister_broker().broker_epoch(), 13);
  ApplyPlan(image, plan);
  EXPECT_EQ(image.brokers().count(3), 0u);
  const pb::Partition* p = image.FindPartition(kTopic, 0);
  EXPECT_EQ(p->replicas_size(), 3) << "the replica stays in the list, offline, as in Kafka";
  EXPECT_FALSE(ReplicaAvailable(image, *p, 3, 2));
}

TEST(PlanUnregisterBroker, ALiveBrokerLeavesTheIsrAndItsLeadershipFirst) {
  MetadataImage image = Cluster();
  Plan plan = PlanUnregisterBroker(image, 3, kDefaults);
  ASSERT_EQ(plan.records.size(), 2u);
  EXPECT_TRUE(plan.records[0].has_partition_change());
  EXPECT_TRUE(plan.records[1].has_unregister_broker()) << "the registration goes last, as Kafka writes it";
  ApplyPlan(image, plan);
  EXPECT_EQ(Isr(image), (std::vector<BrokerId>{1, 2}));
  EXPECT_EQ(image.FindPartition(kTopic, 0)->leader(), 1);
  EXPECT_EQ(image.brokers().count(3), 0u);
}

TEST(PlanUnregisterBroker, AnUnknownBrokerIsNotRegistered) {
  MetadataImage image = Cluster();
  Plan plan = PlanUnregisterBroker(image, 9, kDefaults);
  EXPECT_EQ(plan.outcome.code, ErrorCode::kBrokerIdNotRegistered);
  EXPECT_NE(plan.outcome.message.find("broker 9"), std::string::npos) << plan.outcome.message;
  EXPECT_TRUE(plan.records.empty());
  // Twice: the second finds it gone.
  ApplyPlan(image, PlanUnregisterBroker(image, 2, kDefaults));
  EXPECT_EQ(PlanUnregisterBroker(image, 2, kDefaults).outcome.code, ErrorCode::kBrokerIdNotRegistered);
}

TEST(PlanUnregisterBroker, NothingPlacesReplicasOnAnUnregisteredBroker) {
  MetadataImage image = Cluster(/*fence_3=*/true);
  ApplyPlan(image, PlanUnregisterBroker(image, 3, kDefaults));
  // Placement: two brokers left, so three replicas cannot be placed.
  admin::v1::CreateTopicsRequest::Topic wide;
  wide.set_name("wide");
  wide.set_num_partitions(1);
  wide.set_replication_factor(3);
  EXPECT_EQ(PlanCreateTopic(image, wide, kDefaults, std::string(16, 'w'), {}).outcome.code,
            ErrorCode::kInvalidReplicationFactor);
  // An explicit assignment naming it is refused.
  admin::v1::CreateTopicsRequest::Topic assigned;
  assigned.set_name("assigned");
  assigned.set_num_partitions(-1);
  assigned.set_replication_factor(-1);
  auto* a = assigned.add_assignments();
  a->set_partition_id(0);
  for (BrokerId b : {1, 3}) a->add_broker_ids(b);
  EXPECT_EQ(PlanCreateTopic(image, assigned, kDefaults, std::string(16, 'a'), {}).outcome.code,
            ErrorCode::kInvalidReplicaAssignment);
  // A topic the brokers left can hold is placed on them alone.
  admin::v1::CreateTopicsRequest::Topic narrow;
  narrow.set_name("narrow");
  narrow.set_num_partitions(4);
  narrow.set_replication_factor(2);
  Plan placed = PlanCreateTopic(image, narrow, kDefaults, std::string(16, 'n'), {});
  ASSERT_TRUE(placed.outcome.ok()) << placed.outcome.message;
  for (const auto& r : placed.records) {
    if (!r.has_partition()) continue;
    for (BrokerId b : r.partition().replicas()) EXPECT_NE(b, 3) << r.ShortDebugString();
  }
}

TEST(PlanUnregisterBroker, TheSameBrokerMayRegisterAgain) {
  MetadataImage image = Cluster(/*fence_3=*/true);
  ApplyPlan(image, PlanUnregisterBroker(image, 3, kDefaults));
  controller::v1::BrokerRegistrationRequest again;
  again.set_broker_id(3);
  again.set_incarnation_id(std::string(16, 'z'));
  Plan registered = PlanRegisterBroker(image, again, 500);
  ApplyPlan(image, registered);
  ASSERT_EQ(image.brokers().count(3), 1u);
  EXPECT_EQ(image.brokers().at(3).registration().broker_epoch(), 500);
  EXPECT_TRUE(image.brokers().at(3).fenced()) << "registered fenced, as every registration";
}

}  // namespace
}  // namespace strata::controller
