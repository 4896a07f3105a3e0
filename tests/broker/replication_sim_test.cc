// The seeded simulation of one partition's replication (replication_sim.h): a safety
// phase under message loss, delay, duplication and reordering, crashes and power losses,
// stalled metadata, controlled shutdowns and elections, with the checker after every
// step; then a healed phase in which every broker must come back into the ISR with the
// leader's log and every producer's batch must be answered within a bound.
// A failure prints its seed and its trace; STRATA_REPLICATION_SEED=N replays one seed,
// STRATA_REPLICATION_SEEDS=COUNT changes how many run (scripts/test.sh runs fewer under
// ASan). The logs are files under $STRATA_SIM_DIR, else /dev/shm when there is one,
// else $TMPDIR.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "base/logging.h"
#include "tests/broker/replication_sim.h"

namespace strata::broker::sim {
namespace {

constexpr int kSafetySteps = 600;
constexpr int kLivenessBound = 1000;  // steps after healing

std::string BaseDir() {
  if (const char* env = std::getenv("STRATA_SIM_DIR")) return env;
  if (access("/dev/shm", W_OK) == 0) return "/dev/shm";
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr ? tmp : "/tmp";
}

struct Totals {
  int64_t acknowledged = 0;
  int64_t leader_changes = 0;
  int64_t truncations = 0;
  int64_t power_losses = 0;
  int64_t epoch_bumps = 0;
};

void RunSeed(uint64_t seed, const std::string& base, Totals* totals) {
  std::string dir = base + "/strata-replication-sim-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr) << "mkdtemp under " << base;
  ReplicationSim sim(seed, dir);
  for (int step = 0; step < kSafetySteps; ++step) {
    if (!sim.Step()) {
      FAIL() << "seed " << seed << ": " << sim.violation() << "\n" << sim.trace();
    }
  }
  sim.Heal();
  std::string why;
  while (!sim.Settled(&why)) {
    if (!sim.Step()) FAIL() << "seed " << seed << " (healed): " << sim.violation() << "\n" << sim.trace();
    if (sim.now() > kSafetySteps + kLivenessBound) {
      FAIL() << "seed " << seed << ": not settled " << kLivenessBound << " steps after healing: " << why << "\n"
             << sim.trace();
    }
  }
  totals->acknowledged += sim.acknowledged();
  totals->leader_changes += sim.leader_changes();
  totals->truncations += sim.truncations();
  totals->power_losses += sim.power_losses();
  totals->epoch_bumps += sim.epoch_bumps();
}

TEST(ReplicationSimulation, AcknowledgedRecordsSurviveAndReplicasConverge) {
  uint64_t first = 1;
  uint64_t count = 1000;
  if (const char* env = std::getenv("STRATA_REPLICATION_SEED")) {
    first = std::strtoull(env, nullptr, 10);
    count = 1;
  }
  if (const char* env = std::getenv("STRATA_REPLICATION_SEEDS")) count = std::strtoull(env, nullptr, 10);
  const std::string base = BaseDir();
  spdlog::set_level(spdlog::level::err);  // the logs' recoveries: the trace says what matters
  Totals totals;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    RunSeed(seed, base, &totals);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "replay with STRATA_REPLICATION_SEED=" << seed;
      return;
    }
  }
  std::printf("%llu seeds: %lld records acknowledged, %lld leader changes, %lld truncations, %lld power losses, "
              "%lld producer epoch bumps\n",
              static_cast<unsigned long long>(count), static_cast<long long>(totals.acknowledged),
              static_cast<long long>(totals.leader_changes), static_cast<long long>(totals.truncations),
              static_cast<long long>(totals.power_losses), static_cast<long long>(totals.epoch_bumps));
  // The faults must have been exercised, or the seeds prove nothing.
  if (count >= 50) {
    EXPECT_GT(totals.acknowledged, 0);
    EXPECT_GT(totals.leader_changes, 0);
    EXPECT_GT(totals.truncations, 0);
    EXPECT_GT(totals.power_losses, 0);
  }
}

}  // namespace
}  // namespace strata::broker::sim
