// Seeded simulation of 3- and 5-voter quorums under message loss, delay, reordering,
// duplication, partitions and crashes (safety phase), then a healed network in which a
// leader must be elected and a proposal applied everywhere within a bound (liveness
// phase); and of dynamic quorums (KIP-853) of 5 nodes, 3 of them the bootstrap voters,
// whose voters are added and removed one at a time under the same faults, with disks
// lost in some seeds. A failure prints seed=N; STRATA_RAFT_SEED=N replays it and
// STRATA_RAFT_SEEDS=COUNT changes how many seeds run.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "tests/raft/sim.h"

namespace strata::raft::sim {
namespace {

constexpr int kSafetySteps = 1500;
constexpr int kLivenessBound = 400;  // steps; the election timeout is 10-20 steps

struct Shape {
  int nodes = 3;
  int initial_voters = 3;  // fewer than nodes: a dynamic quorum
  bool disk_loss = false;
  bool upgrade = false;  // a static quorum upgraded to a dynamic one mid-run
};

// The nodes that must apply what the quorum commits: every node of a static quorum,
// the leader's voters (by their current keys) of a dynamic one.
std::vector<NodeId> Appliers(const Cluster& cluster, const Shape& shape) {
  return shape.initial_voters < shape.nodes ? cluster.LiveVoters() : cluster.ids();
}

void RunSeed(const Shape& shape, uint64_t seed, int64_t* snapshots_installed,
             std::map<VoterChangeError, int64_t>* outcomes, int64_t* disks_lost) {
  SCOPED_TRACE(::testing::Message() << "nodes=" << shape.nodes << " voters=" << shape.initial_voters
                                    << " seed=" << seed);
  Cluster cluster(shape.nodes, shape.initial_voters, seed);
  bool dynamic = shape.initial_voters < shape.nodes;
  int voters = shape.nodes;
  auto& rng = cluster.rng();
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  Faults faults;
  faults.drop = std::uniform_real_distribution<double>(0, 0.2)(rng);
  faults.duplicate = std::uniform_real_distribution<double>(0, 0.1)(rng);
  faults.max_delay = static_cast<int>(rng() % 6);
  cluster.set_faults(faults);
  // Two seeds in three compact their logs, often enough that lagging and restarted
  // nodes need snapshots.
  if (seed % 3 != 0) cluster.set_snapshot_every(5 + static_cast<int>(rng() % 30));
  std::string violation;
  int proposals = 0;
  for (int step = 0; step < kSafetySteps; ++step) {
    if (chance(0.2)) cluster.ProposeOnLeader(absl::StrCat("s", seed, "p", proposals++));
    if (chance(0.004)) cluster.Crash(cluster.ids()[rng() % voters]);
    if (chance(0.02)) cluster.Restart(cluster.ids()[rng() % voters]);
    if (dynamic && chance(0.01)) cluster.ChangeVoterOnLeader(cluster.ids()[rng() % voters]);
    if (shape.disk_loss && chance(0.002)) cluster.LoseDisk(cluster.ids()[rng() % voters]);
    if (shape.upgrade && chance(0.003)) cluster.UpgradeOnLeader();
    if (chance(0.004)) {
      std::vector<int> groups;
      for (int i = 0; i < voters; ++i) groups.push_back(static_cast<int>(rng() % 2));
      cluster.Partition(groups);
    }
    if (chance(0.01)) cluster.Heal();
    cluster.Step();
    if (step % 10 == 0 || step + 1 == kSafetySteps) {
      ASSERT_TRUE(cluster.CheckInvariants(&violation)) << violation;
    }
  }
  // Liveness: heal everything; a leader must emerge and a new proposal must be
  // applied by every node.
  cluster.Heal();
  for (NodeId id : cluster.ids()) cluster.Restart(id);
  cluster.set_faults(Faults{});
  std::string marker = absl::StrCat("final-", seed);
  bool proposed = false;
  int64_t start = cluster.now();
  int64_t proposed_at = 0;
  while (cluster.now() - start < kLivenessBound) {
    // A client retries: a proposal accepted by a leader that is then deposed is lost.
    if (!proposed || cluster.now() - proposed_at > 60) {
      if (cluster.ProposeOnLeader(marker)) {
        proposed = true;
        proposed_at = cluster.now();
      }
    }
    cluster.Step();
    if (proposed) {
      bool everywhere = !Appliers(cluster, shape).empty();
      for (NodeId id : Appliers(cluster, shape)) {
        const auto& applied = cluster.Applied(id);
        bool found = false;
        for (auto it = applied.rbegin(); it != applied.rend() && !found; ++it) found = it->data == marker;
        everywhere = everywhere && found;
      }
      if (everywhere) break;
    }
  }
  ASSERT_TRUE(cluster.CheckInvariants(&violation)) << violation;
  *snapshots_installed += cluster.snapshots_installed();
  for (const auto& [error, n] : cluster.change_outcomes()) (*outcomes)[error] += n;
  *disks_lost += cluster.disks_lost();
  ASSERT_TRUE(proposed) << "no leader within " << kLivenessBound << " steps after healing: " << cluster.Describe();
  ASSERT_TRUE(cluster.Leader().has_value()) << "no leader at the end";
  for (NodeId id : Appliers(cluster, shape)) {
    bool found = false;
    for (const auto& e : cluster.Applied(id)) found = found || e.data == marker;
    Raft* r = cluster.raft(id);
    ASSERT_TRUE(found) << "node " << id << " did not apply the final proposal within " << kLivenessBound
                       << " steps: " << RoleName(r->role()) << " of term " << r->term() << ", leader " << r->leader()
                       << ", last index " << r->last_index() << ", commit " << r->commit_index() << ", applied "
                       << cluster.Applied(id).size() << "; leader " << (cluster.Leader() ? *cluster.Leader() : 0)
                       << " last index " << (cluster.Leader() ? cluster.raft(*cluster.Leader())->last_index() : -1)
                       << " commit " << (cluster.Leader() ? cluster.raft(*cluster.Leader())->commit_index() : -1);
  }
}

void RunSeeds(const Shape& shape, uint64_t first, uint64_t count) {
  if (const char* env = std::getenv("STRATA_RAFT_SEED")) {
    first = std::strtoull(env, nullptr, 10);
    count = 1;
  }
  if (const char* env = std::getenv("STRATA_RAFT_SEEDS")) count = std::strtoull(env, nullptr, 10);
  int64_t snapshots_installed = 0;
  std::map<VoterChangeError, int64_t> outcomes;
  int64_t disks_lost = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    RunSeed(shape, seed, &snapshots_installed, &outcomes, &disks_lost);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "replay with STRATA_RAFT_SEED=" << seed;
      return;
    }
  }
  // The snapshot path must have been exercised (one seed alone may not need it).
  if (count >= 20) {
    EXPECT_GT(snapshots_installed, 0);
  }
  std::printf("%d nodes, %d initial voters, %llu seeds: %lld snapshots installed\n", shape.nodes,
              shape.initial_voters, static_cast<unsigned long long>(count), static_cast<long long>(snapshots_installed));
  if (shape.initial_voters < shape.nodes || shape.upgrade) {
    for (const auto& [error, n] : outcomes) {
      std::printf("  voter changes %s: %lld\n", error == VoterChangeError::kNone ? "done" : VoterChangeErrorName(error),
                  static_cast<long long>(n));
    }
    std::printf("  disks lost: %lld\n", static_cast<long long>(disks_lost));
    // Changes must have happened, and been refused for the rules' reasons.
    if (count >= 20) {
      EXPECT_GT(outcomes[VoterChangeError::kNone], 0);
      EXPECT_GT(outcomes[VoterChangeError::kInProgress] + outcomes[VoterChangeError::kNotReady] +
                    (shape.upgrade ? outcomes[VoterChangeError::kInvalidRequest] : 0),
                0);
      if (shape.disk_loss) {
        EXPECT_GT(disks_lost, 0);
      }
    }
  }
}

TEST(RaftSimulation, ThreeVotersStaySafeAndLive) { RunSeeds({3, 3, false, false}, 1, 1000); }
TEST(RaftSimulation, FiveVotersStaySafeAndLive) { RunSeeds({5, 5, false, false}, 100'001, 600); }
// Static quorums upgraded to dynamic ones (kraft.version 1) at random points, through
// the same faults: refused while a voter has not answered the leader, once done for good.
TEST(RaftSimulation, StaticQuorumsUpgradedMidRunStaySafeAndLive) {
  RunSeeds({.nodes = 3, .initial_voters = 3, .disk_loss = false, .upgrade = true}, 400'001, 400);
}
TEST(RaftSimulation, MembershipChangesStaySafeAndLive) { RunSeeds({5, 3, false, false}, 200'001, 600); }
TEST(RaftSimulation, MembershipChangesWithDiskLossStaySafeAndLive) { RunSeeds({5, 3, true, false}, 300'001, 300); }

}  // namespace
}  // namespace strata::raft::sim
