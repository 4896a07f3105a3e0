// Seeded simulation of 3- and 5-voter quorums under message loss, delay, reordering,
// duplication, partitions and crashes (safety phase), then a healed network in which a
// leader must be elected and a proposal applied everywhere within a bound (liveness
// phase). A failure prints seed=N; STRATA_RAFT_SEED=N replays it and
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

void RunSeed(int voters, uint64_t seed, int64_t* snapshots_installed) {
  SCOPED_TRACE(::testing::Message() << "voters=" << voters << " seed=" << seed);
  Cluster cluster(voters, seed);
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
      bool everywhere = true;
      for (NodeId id : cluster.ids()) {
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
  ASSERT_TRUE(proposed) << "no leader within " << kLivenessBound << " steps after healing";
  for (NodeId id : cluster.ids()) {
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

void RunSeeds(int voters, uint64_t first, uint64_t count) {
  if (const char* env = std::getenv("STRATA_RAFT_SEED")) {
    first = std::strtoull(env, nullptr, 10);
    count = 1;
  }
  if (const char* env = std::getenv("STRATA_RAFT_SEEDS")) count = std::strtoull(env, nullptr, 10);
  int64_t snapshots_installed = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    RunSeed(voters, seed, &snapshots_installed);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "replay with STRATA_RAFT_SEED=" << seed;
      return;
    }
  }
  // The snapshot path must have been exercised (one seed alone may not need it).
  if (count >= 20) {
    EXPECT_GT(snapshots_installed, 0);
  }
  std::printf("%d voters, %llu seeds: %lld snapshots installed\n", voters, static_cast<unsigned long long>(count),
              static_cast<long long>(snapshots_installed));
}

TEST(RaftSimulation, ThreeVotersStaySafeAndLive) { RunSeeds(3, 1, 1000); }
TEST(RaftSimulation, FiveVotersStaySafeAndLive) { RunSeeds(5, 100'001, 600); }

}  // namespace
}  // namespace strata::raft::sim
