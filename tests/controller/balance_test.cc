// Balancing a running cluster (controller/balance.h): a fourth broker gets its share with
// the fewest moves, leaderships even out by reordering, racks stay spread, replicas on a
// broker that is gone move.

#include "controller/balance.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace strata::controller {
namespace {

std::vector<PlacementBroker> Brokers(std::vector<int32_t> ids, std::vector<std::string> racks = {}) {
  std::vector<PlacementBroker> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    out.push_back({ids[i], i < racks.size() ? std::optional<std::string>(racks[i]) : std::nullopt});
  }
  return out;
}

// n partitions of topic "t" over brokers 1..3 at RF 3, leaders rotating.
ClusterAssignment ThreeBrokers(int n) {
  ClusterAssignment a;
  for (int p = 0; p < n; ++p) {
    std::vector<int32_t> r;
    for (int i = 0; i < 3; ++i) r.push_back(1 + (p + i) % 3);
    a[{"t", p}] = r;
  }
  return a;
}

ClusterAssignment Applied(ClusterAssignment current, const ClusterAssignment& plan) {
  for (const auto& [key, replicas] : plan) current[key] = replicas;
  return current;
}

std::map<int32_t, int> ReplicaCounts(const ClusterAssignment& a) {
  std::map<int32_t, int> n;
  for (const auto& [key, replicas] : a) {
    for (int32_t r : replicas) ++n[r];
  }
  return n;
}

std::map<int32_t, int> LeaderCounts(const ClusterAssignment& a) {
  std::map<int32_t, int> n;
  for (const auto& [key, replicas] : a) ++n[replicas.at(0)];
  return n;
}

// Replicas that are on another broker after the plan than before.
int MovedReplicas(const ClusterAssignment& before, const ClusterAssignment& after) {
  int moved = 0;
  for (const auto& [key, replicas] : after) {
    const auto& old = before.at(key);
    for (int32_t r : replicas) moved += std::find(old.begin(), old.end(), r) == old.end();
  }
  return moved;
}

TEST(PlanBalance, AFourthBrokerGetsItsShareOfReplicasAndLeadersWithTheFewestMoves) {
  ClusterAssignment before = ThreeBrokers(12);
  ClusterAssignment plan = PlanBalance(Brokers({1, 2, 3, 4}), before);
  ClusterAssignment after = Applied(before, plan);
  EXPECT_EQ(ReplicaCounts(after), (std::map<int32_t, int>{{1, 9}, {2, 9}, {3, 9}, {4, 9}}));
  EXPECT_EQ(LeaderCounts(after), (std::map<int32_t, int>{{1, 3}, {2, 3}, {3, 3}, {4, 3}}));
  EXPECT_EQ(MovedReplicas(before, after), 9);  // exactly broker 4's share
  for (const auto& [key, replicas] : after) {
    EXPECT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()).size(), 3u) << key.second;
  }
}

TEST(PlanBalance, ABalancedClusterNeedsNoChange) {
  EXPECT_TRUE(PlanBalance(Brokers({1, 2, 3}), ThreeBrokers(12)).empty());
  // Uneven by one at most is balanced.
  EXPECT_TRUE(PlanBalance(Brokers({1, 2, 3, 4}), {{{"t", 0}, {1, 2}}, {{"t", 1}, {3, 4}}, {{"t", 2}, {2, 3}}}).empty());
}

TEST(PlanBalance, LeadershipsEvenOutByReorderingWithoutMovingData) {
  ClusterAssignment before;
  for (int p = 0; p < 6; ++p) before[{"t", p}] = {1, 2, 3};  // broker 1 leads all
  ClusterAssignment after = Applied(before, PlanBalance(Brokers({1, 2, 3}), before));
  EXPECT_EQ(LeaderCounts(after), (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
  EXPECT_EQ(MovedReplicas(before, after), 0);
}

TEST(PlanBalance, NoPartitionSpansFewerRacksAfterwards) {
  // Racks: a = {1, 2}, b = {3, 4}; RF 2 partitions across both; broker 5 joins rack a.
  // Moving a rack-b replica to it would leave a partition in rack a only.
  std::vector<PlacementBroker> brokers = Brokers({1, 2, 3, 4, 5}, {"a", "a", "b", "b", "a"});
  std::map<int32_t, std::string> rack = {{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}, {5, "a"}};
  ClusterAssignment before;
  for (int p = 0; p < 10; ++p) before[{"t", p}] = {1 + p % 2, 3 + p % 2};
  ClusterAssignment after = Applied(before, PlanBalance(brokers, before));
  for (const auto& [key, replicas] : after) {
    std::set<std::string> racks;
    for (int32_t r : replicas) racks.insert(rack[r]);
    EXPECT_EQ(racks.size(), 2u) << key.second;
  }
  // Broker 5 took rack a's share: rack a's 10 replicas over its 3 brokers.
  std::map<int32_t, int> counts = ReplicaCounts(after);
  EXPECT_GE(counts[5], 3);
  EXPECT_EQ(counts[1] + counts[2] + counts[5], 10);
}

TEST(PlanBalance, ReplicasOnABrokerThatIsGoneMoveToTheUsableOnes) {
  ClusterAssignment before = {{{"t", 0}, {9, 1}}, {{"t", 1}, {2, 9}}};
  ClusterAssignment after = Applied(before, PlanBalance(Brokers({1, 2}), before));
  for (const auto& [key, replicas] : after) {
    EXPECT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()), (std::set<int32_t>{1, 2})) << key.second;
  }
  EXPECT_EQ(LeaderCounts(after), (std::map<int32_t, int>{{1, 1}, {2, 1}}));
}

}  // namespace
}  // namespace strata::controller
