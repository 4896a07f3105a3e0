// One test per election rule (controller/partition_election.h).

#include "controller/partition_election.h"

#include <gtest/gtest.h>

#include <set>

namespace strata::controller {
namespace {

pb::Partition P(std::vector<int32_t> replicas, std::vector<int32_t> isr, int32_t leader) {
  pb::Partition p;
  p.set_topic_id(std::string(16, 't'));
  p.set_partition_id(3);
  for (int32_t b : replicas) p.add_replicas(b);
  for (int32_t b : isr) p.add_isr(b);
  p.set_leader(leader);
  return p;
}

AvailabilityFn Down(std::set<BrokerId> down) {
  return [down](BrokerId b, int) { return down.count(b) == 0; };
}

std::vector<int32_t> Isr(const pb::PartitionChange& c) { return {c.isr().ids().begin(), c.isr().ids().end()}; }

TEST(PartitionElection, AFencedLeaderIsReplacedByTheNextInSyncReplicaInReplicaOrder) {
  auto c = ElectAfterUnavailability(P({1, 2, 3}, {1, 3, 2}, 1), Down({1}), false);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->leader(), 2);
  EXPECT_EQ(Isr(*c), (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(c->partition_id(), 3);
}

TEST(PartitionElection, AFencedFollowerOnlyLeavesTheIsr) {
  auto c = ElectAfterUnavailability(P({1, 2, 3}, {1, 2, 3}, 1), Down({3}), false);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->has_leader());
  EXPECT_EQ(Isr(*c), (std::vector<int32_t>{1, 2}));
}

TEST(PartitionElection, NothingChangesWhenEveryReplicaIsUp) {
  EXPECT_FALSE(ElectAfterUnavailability(P({1, 2, 3}, {1, 2, 3}, 2), Down({}), false).has_value());
}

TEST(PartitionElection, TheLastInSyncReplicaStaysInTheIsrAndThePartitionGoesOffline) {
  auto c = ElectAfterUnavailability(P({1, 2, 3}, {1}, 1), Down({1}), false);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->leader(), kNoLeader);
  EXPECT_FALSE(c->has_isr()) << "the ISR stays {1}";
}

TEST(PartitionElection, UncleanElectionPicksAnOutOfSyncReplicaOnlyWhenAllowed) {
  auto c = ElectAfterUnavailability(P({1, 2, 3}, {1}, 1), Down({1}), true);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->leader(), 2);
  EXPECT_EQ(Isr(*c), (std::vector<int32_t>{2}));
}

TEST(PartitionElection, AnOfflineReplicaDirCountsAsUnavailableForThatReplicaOnly) {
  // Broker 1 is up, but the dir holding this partition's replica 0 is offline.
  AvailabilityFn available = [](BrokerId b, int replica_index) { return !(b == 1 && replica_index == 0); };
  auto c = ElectAfterUnavailability(P({1, 2}, {1, 2}, 1), available, false);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->leader(), 2);
  EXPECT_EQ(Isr(*c), (std::vector<int32_t>{2}));
}

TEST(PartitionElection, PreferredElectionMovesLeadershipToTheFirstReplicaWhenInSync) {
  auto c = ElectPreferred(P({1, 2, 3}, {2, 3, 1}, 2), Down({}));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->leader(), 1);
  EXPECT_FALSE(ElectPreferred(P({1, 2, 3}, {2, 3}, 2), Down({}))) << "1 is out of sync";
  EXPECT_FALSE(ElectPreferred(P({1, 2, 3}, {1, 2, 3}, 2), Down({1}))) << "1 is down";
  EXPECT_FALSE(ElectPreferred(P({1, 2, 3}, {1, 2, 3}, 1), Down({}))) << "1 leads already";
}

TEST(PartitionElection, AnOfflinePartitionGetsALeaderBackWhenItsLastInSyncReplicaReturns) {
  pb::Partition offline = P({1, 2, 3}, {1}, kNoLeader);
  EXPECT_FALSE(ElectOfflinePartition(offline, Down({1}), false).has_value()) << "1 is still down";
  auto c = ElectOfflinePartition(offline, Down({}), false);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->leader(), 1);
  EXPECT_FALSE(ElectOfflinePartition(P({1, 2}, {1, 2}, 2), Down({}), false).has_value()) << "it has a leader";
}

}  // namespace
}  // namespace strata::controller
