// The KIP-848 server-side assignors (broker/group/consumer_assignor.h): every partition of
// a subscribed topic goes to exactly one subscriber, balance, stickiness, range's
// co-partitioning.
#include "broker/group/consumer_assignor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

namespace strata::broker {
namespace {

AssignorMember Member(std::string id, std::set<std::string> topics) { return AssignorMember{std::move(id), std::move(topics)}; }

// Every partition of every topic some member subscribes to is held by exactly one member,
// a subscriber of its topic.
void ExpectComplete(const AssignmentInput& in, const TargetAssignment& out) {
  std::map<std::pair<std::string, int32_t>, int> holders;
  for (const auto& [member, partitions] : out) {
    const std::string& id = member;  // clang 14 does not capture structured bindings
    auto m = std::find_if(in.members.begin(), in.members.end(),
                          [&](const AssignorMember& x) { return x.member_id == id; });
    ASSERT_NE(m, in.members.end()) << member;
    for (const auto& [topic, ps] : partitions) {
      EXPECT_TRUE(m->topics.count(topic)) << member << " holds " << topic << " without subscribing";
      for (int32_t p : ps) ++holders[{topic, p}];
    }
  }
  for (const auto& [topic, n] : in.partitions) {
    const std::string& name = topic;
    bool subscribed = std::any_of(in.members.begin(), in.members.end(),
                                  [&](const AssignorMember& m) { return m.topics.count(name) > 0; });
    for (int32_t p = 0; p < n; ++p) EXPECT_EQ((holders[{topic, p}]), subscribed ? 1 : 0) << topic << "-" << p;
  }
}

std::pair<int64_t, int64_t> MinMax(const TargetAssignment& out) {
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& [member, ps] : out) {
    lo = std::min(lo, PartitionCount(ps));
    hi = std::max(hi, PartitionCount(ps));
  }
  return {lo, hi};
}

int64_t Moved(const TargetAssignment& before, const TargetAssignment& after) {
  int64_t moved = 0;
  for (const auto& [member, ps] : before) {
    auto it = after.find(member);
    for (const auto& [topic, partitions] : ps) {
      for (int32_t p : partitions) {
        if (it == after.end() || !it->second.count(topic) || !it->second.at(topic).count(p)) ++moved;
      }
    }
  }
  return moved;
}

TEST(UniformAssignor, BalancesAHomogeneousGroupToWithinOne) {
  AssignmentInput in{{Member("a", {"t1", "t2"}), Member("b", {"t1", "t2"}), Member("c", {"t1", "t2"})},
                     {{"t1", 7}, {"t2", 4}}, {}};
  TargetAssignment out = AssignUniform(in);
  ExpectComplete(in, out);
  auto [lo, hi] = MinMax(out);
  EXPECT_EQ(lo, 3);
  EXPECT_EQ(hi, 4);
}

TEST(UniformAssignor, AJoiningMemberTakesOnlyItsShare) {
  AssignmentInput in{{Member("a", {"t"}), Member("b", {"t"})}, {{"t", 12}}, {}};
  TargetAssignment before = AssignUniform(in);
  in.members.push_back(Member("c", {"t"}));
  in.current = before;
  TargetAssignment after = AssignUniform(in);
  ExpectComplete(in, after);
  EXPECT_EQ(PartitionCount(after.at("c")), 4);
  EXPECT_EQ(Moved(before, after), 4);  // only what c takes moves
}

TEST(UniformAssignor, ALeavingMembersPartitionsGoToTheOthersAndNothingElseMoves) {
  AssignmentInput in{{Member("a", {"t"}), Member("b", {"t"}), Member("c", {"t"})}, {{"t", 9}}, {}};
  TargetAssignment before = AssignUniform(in);
  in.members.pop_back();
  in.current = before;
  TargetAssignment after = AssignUniform(in);
  ExpectComplete(in, after);
  auto [lo, hi] = MinMax(after);
  EXPECT_LE(hi - lo, 1);
  TargetAssignment stayed = before;
  stayed.erase("c");
  EXPECT_EQ(Moved(stayed, after), 0);
}

TEST(UniformAssignor, HeterogeneousSubscriptionsHoldOnlyTheirTopics) {
  AssignmentInput in{{Member("a", {"t1"}), Member("b", {"t1", "t2"}), Member("c", {"t2"})},
                     {{"t1", 6}, {"t2", 6}, {"t3", 3}}, {}};
  TargetAssignment out = AssignUniform(in);
  ExpectComplete(in, out);
  auto [lo, hi] = MinMax(out);
  EXPECT_EQ(lo, 4);
  EXPECT_EQ(hi, 4);
}

TEST(UniformAssignor, DropsWhatNoLongerExistsOrIsNoLongerSubscribed) {
  AssignmentInput in{{Member("a", {"t1"}), Member("b", {"t1"})}, {{"t1", 2}}, {}};
  in.current["a"] = {{"t1", {0, 1, 5}}, {"gone", {0}}};
  TargetAssignment out = AssignUniform(in);
  ExpectComplete(in, out);
  EXPECT_EQ(PartitionCount(out.at("a")), 1);
  EXPECT_EQ(PartitionCount(out.at("b")), 1);
}

TEST(UniformAssignor, IsDeterministicWhateverTheMembersOrder) {
  AssignmentInput in{{Member("b", {"t"}), Member("a", {"t"}), Member("c", {"t"})}, {{"t", 10}}, {}};
  AssignmentInput reversed = in;
  std::reverse(reversed.members.begin(), reversed.members.end());
  EXPECT_EQ(AssignUniform(in), AssignUniform(reversed));
}

TEST(RangeAssignor, SplitsCoPartitionedTopicsAlike) {
  AssignmentInput in{{Member("b", {"t1", "t2"}), Member("a", {"t1", "t2"}), Member("c", {"t1", "t2"})},
                     {{"t1", 5}, {"t2", 5}}, {}};
  TargetAssignment out = AssignRange(in);
  ExpectComplete(in, out);
  EXPECT_EQ(out.at("a").at("t1"), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(out.at("b").at("t1"), (std::set<int32_t>{2, 3}));
  EXPECT_EQ(out.at("c").at("t1"), (std::set<int32_t>{4}));
  for (const auto& [member, ps] : out) EXPECT_EQ(ps.at("t1"), ps.at("t2")) << member;
}

TEST(RangeAssignor, AMemberWithoutPartitionsIsInTheTarget) {
  AssignmentInput in{{Member("a", {"t"}), Member("b", {"t"}), Member("c", {"other"})}, {{"t", 1}}, {}};
  TargetAssignment out = AssignRange(in);
  ExpectComplete(in, out);
  ASSERT_TRUE(out.count("b"));
  ASSERT_TRUE(out.count("c"));
  EXPECT_EQ(PartitionCount(out.at("b")) + PartitionCount(out.at("c")), 0);
}

TEST(Assignors, FoundByTheirKafkaNames) {
  EXPECT_EQ(FindAssignor("uniform"), &AssignUniform);
  EXPECT_EQ(FindAssignor("range"), &AssignRange);
  EXPECT_EQ(FindAssignor("sticky"), nullptr);
}

}  // namespace
}  // namespace strata::broker
