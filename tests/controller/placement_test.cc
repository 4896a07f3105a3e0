#include "controller/placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace strata::controller {
namespace {

using ::testing::HasSubstr;

// Brokers 1..count without racks.
std::vector<PlacementBroker> Brokers(int count) {
  std::vector<PlacementBroker> brokers;
  for (int id = 1; id <= count; ++id) brokers.push_back({id, std::nullopt});
  return brokers;
}

// Brokers 1..count, consecutive ids sharing a rack: with 6 brokers and 3 racks, 1 and 2
// are in rack-0, 3 and 4 in rack-1, 5 and 6 in rack-2. Placing replicas on consecutive
// ids would therefore put two replicas of a partition in one rack.
std::vector<PlacementBroker> RackedBrokers(int count, int racks) {
  std::vector<PlacementBroker> brokers;
  const int per_rack = count / racks;
  for (int id = 1; id <= count; ++id) brokers.push_back({id, absl::StrCat("rack-", (id - 1) / per_rack)});
  return brokers;
}

PlacementRequest Request(std::vector<PlacementBroker> brokers, int32_t partitions, int32_t replication_factor) {
  PlacementRequest request;
  request.brokers = std::move(brokers);
  request.partition_count = partitions;
  request.replication_factor = replication_factor;
  return request;
}

// Replicas and leaderships per broker after the assignment, existing load included;
// every broker of the request appears, with zeros if it got nothing.
struct Totals {
  std::map<int32_t, int64_t> replicas;
  std::map<int32_t, int64_t> leaders;
};

Totals TotalsAfter(const PlacementRequest& request, const ReplicaAssignment& assignment) {
  Totals totals;
  for (const PlacementBroker& broker : request.brokers) {
    auto load = request.existing_load.find(broker.id);
    BrokerLoad existing = load == request.existing_load.end() ? BrokerLoad{} : load->second;
    totals.replicas[broker.id] = existing.replicas;
    totals.leaders[broker.id] = existing.leaders;
  }
  for (const auto& [partition, replicas] : assignment) {
    ++totals.leaders.at(replicas.front());
    for (int32_t broker : replicas) ++totals.replicas.at(broker);
  }
  return totals;
}

int64_t Spread(const std::map<int32_t, int64_t>& counts) {
  auto [min, max] = std::minmax_element(counts.begin(), counts.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  return max->second - min->second;
}

std::map<int32_t, std::string> RackOf(const std::vector<PlacementBroker>& brokers) {
  std::map<int32_t, std::string> racks;
  for (const PlacementBroker& broker : brokers) racks[broker.id] = broker.rack.value_or("");
  return racks;
}

size_t DistinctRacks(const std::vector<int32_t>& replicas, const std::map<int32_t, std::string>& rack_of) {
  std::set<std::string> racks;
  for (int32_t broker : replicas) racks.insert(rack_of.at(broker));
  return racks.size();
}

TEST(PlaceReplicas, EachPartitionGetsDistinctBrokersUnderConsecutiveIds) {
  PlacementRequest request = Request(Brokers(5), 20, 3);
  request.first_partition_id = 7;
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  ASSERT_EQ(assignment->size(), 20u);
  EXPECT_EQ(assignment->begin()->first, 7);
  EXPECT_EQ(assignment->rbegin()->first, 26);
  for (const auto& [partition, replicas] : *assignment) {
    ASSERT_EQ(replicas.size(), 3u) << "partition " << partition;
    EXPECT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()).size(), 3u) << "partition " << partition;
    for (int32_t broker : replicas) EXPECT_TRUE(broker >= 1 && broker <= 5) << broker;
  }
}

TEST(PlaceReplicas, ReplicasAndLeadersAreEvenOnAFreshCluster) {
  for (int brokers : {3, 5, 6}) {
    for (int partitions : {12, 1000}) {
      for (int replication_factor = 1; replication_factor <= brokers; ++replication_factor) {
        SCOPED_TRACE(absl::StrCat(brokers, " brokers, ", partitions, " partitions, RF ", replication_factor));
        PlacementRequest request = Request(Brokers(brokers), partitions, replication_factor);
        auto assignment = PlaceReplicas(request);
        ASSERT_TRUE(assignment.ok()) << assignment.status();
        Totals totals = TotalsAfter(request, *assignment);
        EXPECT_LE(Spread(totals.replicas), 1);
        EXPECT_LE(Spread(totals.leaders), 1);
      }
    }
  }
}

TEST(PlaceReplicas, EveryPrefixOfAPlacementIsEven) {
  // Topics are created one at a time; each must be even on its own, not only in sum.
  for (int partitions = 1; partitions <= 30; ++partitions) {
    SCOPED_TRACE(absl::StrCat(partitions, " partitions"));
    PlacementRequest request = Request(Brokers(7), partitions, 3);
    auto assignment = PlaceReplicas(request);
    ASSERT_TRUE(assignment.ok()) << assignment.status();
    Totals totals = TotalsAfter(request, *assignment);
    EXPECT_LE(Spread(totals.replicas), 1);
    EXPECT_LE(Spread(totals.leaders), 1);
  }
}

TEST(PlaceReplicas, FollowersOfABrokerAreSpreadOverTheOthers) {
  // When a broker fails, its partitions should not all fall on the same one or two peers.
  PlacementRequest request = Request(Brokers(6), 24, 3);
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  std::map<int32_t, std::set<int32_t>> peers;
  for (const auto& [partition, replicas] : *assignment) {
    for (int32_t a : replicas) {
      for (int32_t b : replicas) {
        if (a != b) peers[a].insert(b);
      }
    }
  }
  for (int32_t broker = 1; broker <= 6; ++broker) EXPECT_EQ(peers[broker].size(), 5u) << "broker " << broker;

  // With three brokers and RF 2, each leader is followed once by each of the other two.
  auto pairs = PlaceReplicas(Request(Brokers(3), 6, 2));
  ASSERT_TRUE(pairs.ok()) << pairs.status();
  std::set<std::pair<int32_t, int32_t>> leader_follower;
  for (const auto& [partition, replicas] : *pairs) leader_follower.insert({replicas[0], replicas[1]});
  EXPECT_EQ(leader_follower.size(), 6u);
}

TEST(PlaceReplicas, ReplicasOfAPartitionGoToDistinctRacks) {
  for (int partitions : {12, 1000}) {
    SCOPED_TRACE(absl::StrCat(partitions, " partitions"));
    PlacementRequest request = Request(RackedBrokers(6, 3), partitions, 3);
    auto assignment = PlaceReplicas(request);
    ASSERT_TRUE(assignment.ok()) << assignment.status();
    auto rack_of = RackOf(request.brokers);
    for (const auto& [partition, replicas] : *assignment) {
      EXPECT_EQ(DistinctRacks(replicas, rack_of), 3u) << "partition " << partition;
    }
    Totals totals = TotalsAfter(request, *assignment);
    EXPECT_LE(Spread(totals.replicas), 1);
    EXPECT_LE(Spread(totals.leaders), 1);
  }
}

TEST(PlaceReplicas, FewerReplicasThanRacksNeverShareARack) {
  PlacementRequest request = Request(RackedBrokers(6, 3), 60, 2);
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  auto rack_of = RackOf(request.brokers);
  for (const auto& [partition, replicas] : *assignment) {
    EXPECT_EQ(DistinctRacks(replicas, rack_of), 2u) << "partition " << partition;
  }
  Totals totals = TotalsAfter(request, *assignment);
  EXPECT_LE(Spread(totals.replicas), 1);
  EXPECT_LE(Spread(totals.leaders), 1);
}

TEST(PlaceReplicas, MoreReplicasThanRacksUseEveryRackAndStayEven) {
  struct Case {
    int brokers, racks, replication_factor;
  };
  for (Case c : {Case{6, 2, 4}, Case{6, 3, 4}, Case{10, 2, 3}, Case{12, 3, 8}}) {
    for (int partitions : {30, 100}) {
      SCOPED_TRACE(absl::StrCat(c.brokers, " brokers in ", c.racks, " racks, RF ", c.replication_factor, ", ",
                                partitions, " partitions"));
      PlacementRequest request = Request(RackedBrokers(c.brokers, c.racks), partitions, c.replication_factor);
      auto assignment = PlaceReplicas(request);
      ASSERT_TRUE(assignment.ok()) << assignment.status();
      auto rack_of = RackOf(request.brokers);
      for (const auto& [partition, replicas] : *assignment) {
        EXPECT_EQ(DistinctRacks(replicas, rack_of), static_cast<size_t>(c.racks)) << "partition " << partition;
      }
      Totals totals = TotalsAfter(request, *assignment);
      EXPECT_LE(Spread(totals.replicas), 1);
      EXPECT_LE(Spread(totals.leaders), 1);
    }
  }
}

TEST(PlaceReplicas, RackDiversityTakesPrecedenceOverEvenness) {
  // Rack a has four brokers, b and c one each: with RF 3 every partition needs the
  // brokers of b and c, so they hold every partition while rack a's share one replica.
  std::vector<PlacementBroker> brokers = {{1, "a"}, {2, "a"}, {3, "a"}, {4, "a"}, {5, "b"}, {6, "c"}};
  PlacementRequest request = Request(brokers, 20, 3);
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  auto rack_of = RackOf(brokers);
  for (const auto& [partition, replicas] : *assignment) {
    EXPECT_EQ(DistinctRacks(replicas, rack_of), 3u) << "partition " << partition;
  }
  Totals totals = TotalsAfter(request, *assignment);
  EXPECT_EQ(totals.replicas[5], 20);
  EXPECT_EQ(totals.replicas[6], 20);
  for (int32_t broker = 1; broker <= 4; ++broker) EXPECT_EQ(totals.replicas[broker], 5) << "broker " << broker;
  EXPECT_LE(Spread(totals.leaders), 1);
}

TEST(PlaceReplicas, RacksOnOnlySomeBrokersAreRefusedNamingTheOthers) {
  std::vector<PlacementBroker> brokers = {{1, "a"}, {2, std::nullopt}, {3, "b"}, {4, ""}};
  auto assignment = PlaceReplicas(Request(brokers, 3, 2));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(assignment.status().message(),
            "rack-aware placement needs broker.rack on every broker or on none; 2 of the 4 brokers have no rack: "
            "2, 4");

  brokers[3].rack = "c";
  assignment = PlaceReplicas(Request(brokers, 3, 2));
  ASSERT_FALSE(assignment.ok());
  EXPECT_THAT(assignment.status().message(), HasSubstr("; 1 of the 4 brokers has no rack: 2"));

  // A long list is cut short.
  std::vector<PlacementBroker> many = Brokers(12);
  many[11].rack = "a";
  assignment = PlaceReplicas(Request(many, 1, 1));
  ASSERT_FALSE(assignment.ok());
  EXPECT_THAT(assignment.status().message(), HasSubstr("; 11 of the 12 brokers have no rack: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 1 more"));
}

TEST(PlaceReplicas, EmptyRackNamesOnEveryBrokerMeanNoRacks) {
  std::vector<PlacementBroker> brokers = {{1, ""}, {2, ""}, {3, std::nullopt}};
  auto assignment = PlaceReplicas(Request(brokers, 6, 2));
  ASSERT_TRUE(assignment.ok()) << assignment.status();
}

TEST(PlaceReplicas, ReplicationFactorLargerThanTheBrokersIsRefused) {
  auto assignment = PlaceReplicas(Request(Brokers(3), 1, 4));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(assignment.status().message(), "replication factor 4 is larger than the 3 available brokers");

  assignment = PlaceReplicas(Request(Brokers(1), 1, 2));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().message(), "replication factor 2 is larger than the 1 available broker");

  assignment = PlaceReplicas(Request({}, 1, 1));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().message(), "replication factor 1 is larger than the 0 available brokers");
}

TEST(PlaceReplicas, ReplicationFactorBelowOneIsRefused) {
  for (int32_t replication_factor : {0, -1}) {
    auto assignment = PlaceReplicas(Request(Brokers(3), 1, replication_factor));
    ASSERT_FALSE(assignment.ok());
    EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(assignment.status().message(),
              absl::StrCat("the replication factor must be at least 1, got ", replication_factor));
  }
}

TEST(PlaceReplicas, FewerThanOnePartitionIsRefused) {
  auto assignment = PlaceReplicas(Request(Brokers(3), 0, 1));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(assignment.status().message(), "the number of partitions must be at least 1, got 0");
}

TEST(PlaceReplicas, PartitionIdsMustStayInRange) {
  PlacementRequest request = Request(Brokers(3), 1, 1);
  request.first_partition_id = -1;
  auto assignment = PlaceReplicas(request);
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().message(), "the first partition id must not be negative, got -1");

  request.first_partition_id = 2147483600;
  request.partition_count = 48;  // ids up to 2147483647: fine
  EXPECT_TRUE(PlaceReplicas(request).ok());
  request.partition_count = 49;
  assignment = PlaceReplicas(request);
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(assignment.status().message(), "49 partitions starting at id 2147483600 would take partition ids past 2147483647");
}

TEST(PlaceReplicas, ABrokerListedTwiceIsRefused) {
  std::vector<PlacementBroker> brokers = Brokers(3);
  brokers.push_back({2, std::nullopt});
  auto assignment = PlaceReplicas(Request(brokers, 1, 1));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(assignment.status().message(), "broker 2 is listed twice");
}

TEST(PlaceReplicas, ExistingLoadIsEvenedOut) {
  // Brokers 3 and 4 joined a cluster where 1 and 2 hold everything: the new partitions
  // (added to a topic that has 3) go to them until all four carry the same.
  PlacementRequest request = Request(Brokers(4), 6, 2);
  request.first_partition_id = 3;
  request.existing_load[1] = {6, 3};
  request.existing_load[2] = {6, 3};
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_EQ(assignment->begin()->first, 3);
  Totals totals = TotalsAfter(request, *assignment);
  EXPECT_EQ(totals.replicas, (std::map<int32_t, int64_t>{{1, 6}, {2, 6}, {3, 6}, {4, 6}}));
  EXPECT_EQ(totals.leaders, (std::map<int32_t, int64_t>{{1, 3}, {2, 3}, {3, 3}, {4, 3}}));
}

TEST(PlaceReplicas, AnEmptyBrokerTakesNewPartitionsFirst) {
  PlacementRequest request = Request(Brokers(4), 10, 1);
  for (int32_t broker = 1; broker <= 3; ++broker) request.existing_load[broker] = {10, 10};
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  for (const auto& [partition, replicas] : *assignment) {
    EXPECT_EQ(replicas, std::vector<int32_t>{4}) << "partition " << partition;
  }
}

TEST(PlaceReplicas, LeadershipsAreEvenedOutEvenWhereReplicasAreEven) {
  // Same replica counts, but broker 3 leads nothing yet: it becomes the preferred leader
  // of new partitions until the leaderships are even.
  PlacementRequest request = Request(Brokers(3), 3, 3);
  request.existing_load[1] = {4, 2};
  request.existing_load[2] = {4, 2};
  request.existing_load[3] = {4, 0};
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  Totals totals = TotalsAfter(request, *assignment);
  EXPECT_LE(Spread(totals.leaders), 1);
  EXPECT_EQ(totals.leaders[3], 2);
}

TEST(PlaceReplicas, LoadOfBrokersNotOfferedIsIgnored) {
  // A fenced broker's load is passed along with the rest; it receives nothing.
  PlacementRequest request = Request(Brokers(3), 9, 2);
  request.existing_load[99] = {100, 100};
  auto assignment = PlaceReplicas(request);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  for (const auto& [partition, replicas] : *assignment) {
    EXPECT_THAT(replicas, ::testing::Not(::testing::Contains(99)));
  }
  Totals totals = TotalsAfter(request, *assignment);
  EXPECT_LE(Spread(totals.replicas), 1);
}

TEST(PlaceReplicas, TheSameRequestGivesTheSameAssignment) {
  PlacementRequest request = Request(RackedBrokers(6, 3), 50, 3);
  request.existing_load[2] = {7, 3};
  auto first = PlaceReplicas(request);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = PlaceReplicas(request);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*first, *second);

  // The order in which brokers are listed does not matter.
  std::reverse(request.brokers.begin(), request.brokers.end());
  auto reversed = PlaceReplicas(request);
  ASSERT_TRUE(reversed.ok()) << reversed.status();
  EXPECT_EQ(*first, *reversed);
}

TEST(PlaceReplicas, ASmallPlacementIsExactlyAsDocumented) {
  // Pins the tie-breaks (lowest id first) so that a change to them is deliberate.
  auto assignment = PlaceReplicas(Request(Brokers(3), 6, 2));
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_EQ(*assignment, (ReplicaAssignment{{0, {1, 2}}, {1, {3, 1}}, {2, {2, 3}}, {3, {1, 3}}, {4, {2, 1}}, {5, {3, 2}}}));
}

TEST(ValidateReplicaAssignment, AcceptsAWellFormedAssignment) {
  std::set<int32_t> known = {1, 2, 3, 4};
  EXPECT_TRUE(ValidateReplicaAssignment({{0, {1, 2}}, {1, {3, 4}}, {2, {4, 1}}}, known).ok());
  EXPECT_TRUE(ValidateReplicaAssignment({{0, {3}}}, known).ok());
  // CreatePartitions: the topic has 5 partitions, the new ones start at 5.
  EXPECT_TRUE(ValidateReplicaAssignment({{5, {1, 2, 3}}, {6, {2, 3, 4}}}, known, 5).ok());
}

TEST(ValidateReplicaAssignment, RefusesAnEmptyAssignment) {
  absl::Status status = ValidateReplicaAssignment({}, {1, 2});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "the replica assignment names no partitions");
}

TEST(ValidateReplicaAssignment, RefusesPartitionIdsWithAGap) {
  absl::Status status = ValidateReplicaAssignment({{0, {1}}, {1, {2}}, {3, {1}}}, {1, 2});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "partition ids in the replica assignment must be consecutive from 0, but partition 2 is missing");

  status = ValidateReplicaAssignment({{6, {1}}}, {1, 2}, 5);
  EXPECT_EQ(status.message(), "partition ids in the replica assignment must be consecutive from 5, but partition 5 is missing");
}

TEST(ValidateReplicaAssignment, RefusesPartitionIdsBelowTheFirst) {
  absl::Status status = ValidateReplicaAssignment({{4, {1}}, {5, {2}}}, {1, 2}, 5);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "the replica assignment names partition 4 but new partition ids start at 5");
}

TEST(ValidateReplicaAssignment, RefusesAPartitionWithoutReplicas) {
  absl::Status status = ValidateReplicaAssignment({{0, {1}}, {1, {}}}, {1, 2});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "partition 1 is assigned no replicas");
  EXPECT_EQ(ValidateReplicaAssignment({{0, {}}}, {1}).message(), "partition 0 is assigned no replicas");
}

TEST(ValidateReplicaAssignment, RefusesUnequalReplicaCounts) {
  absl::Status status = ValidateReplicaAssignment({{0, {1, 2, 3}}, {1, {1, 2, 3}}, {2, {2, 3}}}, {1, 2, 3});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "partition 2 is assigned 2 replicas but partition 0 has 3; every partition needs the same number");
}

TEST(ValidateReplicaAssignment, RefusesABrokerTwiceInOnePartition) {
  absl::Status status = ValidateReplicaAssignment({{0, {1, 2}}, {1, {3, 3}}}, {1, 2, 3});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "partition 1 lists broker 3 more than once");
}

TEST(ValidateReplicaAssignment, RefusesAnUnknownBroker) {
  absl::Status status = ValidateReplicaAssignment({{0, {1, 2}}, {1, {2, 9}}}, {1, 2, 3});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "partition 1 is assigned to unknown broker 9");
}

}  // namespace
}  // namespace strata::controller
