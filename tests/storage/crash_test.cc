// Crash simulation: a log is written through the fault-injecting FileOps, flushed at
// random points and "powered off" at random points (unsynced bytes dropped, torn or
// garbled). After recovery every flushed record must be present and intact, and
// nothing that was not written survives. Seeded; the seed is printed on failure.

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "storage/fault_injecting_file_ops.h"
#include "storage/log.h"
#include "tests/storage/log_test_util.h"

namespace strata::storage {
namespace {

void RunCrashScenario(uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << "seed=" << seed);
  std::mt19937_64 rng(seed);
  testing::TempDir tmp;
  FaultInjectingFileOps ops;
  LogOptions options = SmallLogOptions(tmp.Sub("crash-0"), &ops);
  options.config.segment_bytes = 2048 + rng() % 4096;
  std::vector<std::string> written;  // value of each offset
  int64_t flushed = 0;                // every offset below this must survive (above log start)
  int64_t recovery_point = 0;         // what the recovery-point checkpoint would say
  int64_t log_start = 0;              // what the log-start-offset checkpoint would say
  bool clean = false;
  for (int life = 0; life < 5; ++life) {
    options.recovery_point = recovery_point;
    options.log_start_offset = log_start;
    options.had_clean_shutdown = clean;
    auto opened = Log::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status();
    Log& log = **opened;
    // Every flushed record at or above the log start is there and intact; anything
    // after the flushed ones is a prefix of what was written (no garbage, no hole).
    ASSERT_GE(log.log_start_offset(), log_start);
    ASSERT_LE(log.log_start_offset(), std::max(log_start, flushed));
    auto records = testing::ReadAll(log);
    ASSERT_TRUE(records.ok()) << records.status();
    int64_t end = log.log_start_offset() + static_cast<int64_t>(records->size());
    ASSERT_EQ(end, log.log_end_offset());
    ASSERT_GE(end, flushed);
    ASSERT_LE(end, static_cast<int64_t>(written.size()));
    for (size_t i = 0; i < records->size(); ++i) {
      int64_t offset = log.log_start_offset() + static_cast<int64_t>(i);
      ASSERT_EQ((*records)[i].offset, offset);
      ASSERT_EQ((*records)[i].value, written[offset]);
    }
    written.resize(end);
    flushed = end;
    log_start = log.log_start_offset();

    int operations = 20 + static_cast<int>(rng() % 80);
    for (int a = 0; a < operations; ++a) {
      uint64_t dice = rng() % 100;
      if (dice < 4 && log.log_end_offset() > log.log_start_offset()) {
        // A follower truncating after a leader change.
        int64_t to = log.log_start_offset() + static_cast<int64_t>(rng() % (log.log_end_offset() - log.log_start_offset()));
        auto truncated = log.TruncateTo(to);
        ASSERT_TRUE(truncated.ok()) << truncated.status();
        ASSERT_LE(log.log_end_offset(), to);  // a batch straddling `to` goes whole
        to = log.log_end_offset();
        written.resize(to);
        flushed = std::min(flushed, to);
        recovery_point = std::min(recovery_point, to);
        continue;
      }
      if (dice < 7 && log.log_end_offset() > log.log_start_offset()) {
        // DeleteRecords: the log start moves up (and is checkpointed at once here).
        log.UpdateHighWatermark(log.log_end_offset());
        int64_t to = log.log_start_offset() + static_cast<int64_t>(rng() % (log.log_end_offset() - log.log_start_offset()));
        ASSERT_TRUE(log.MaybeIncrementLogStartOffset(to).ok());
        log_start = to;
        continue;
      }
      int n = 1 + static_cast<int>(rng() % 6);
      std::string tag = "l" + std::to_string(life) + "a" + std::to_string(a);
      size_t value_size = rng() % 300;
      std::string batch = testing::MakeBatch(n, tag, 1000 + a, value_size);
      auto info = log.AppendAsLeader(batch, life);
      ASSERT_TRUE(info.ok()) << info.status();
      ASSERT_EQ(info->first_offset, static_cast<int64_t>(written.size()));
      for (int i = 0; i < n; ++i) {
        std::string value = tag + "-" + std::to_string(i);
        if (value.size() < value_size) value.resize(value_size, 'x');
        written.push_back(value);
      }
      if (rng() % 10 == 0) {
        ASSERT_TRUE(log.FlushAll().ok());
        flushed = log.log_end_offset();
        recovery_point = flushed;
      }
    }
    clean = rng() % 4 == 0;
    if (clean) {
      ASSERT_TRUE(log.Close().ok());
      flushed = log.log_end_offset();
      recovery_point = flushed;
    }
    ops.SimulateCrash(rng());
  }
}

TEST(Crash, FlushedRecordsSurviveRandomPowerLoss) {
  uint64_t first = 1, count = 120;
  if (const char* env = std::getenv("STRATA_CRASH_SEED")) {  // replay one seed
    first = std::strtoull(env, nullptr, 10);
    count = 1;
  }
  if (const char* env = std::getenv("STRATA_CRASH_SEEDS")) count = std::strtoull(env, nullptr, 10);  // soak
  for (uint64_t seed = first; seed < first + count; ++seed) {
    RunCrashScenario(seed);
    if (HasFatalFailure()) {
      ADD_FAILURE() << "replay with STRATA_CRASH_SEED=" << seed;
      return;
    }
  }
}

TEST(Crash, FailedFsyncDoesNotMoveTheRecoveryPoint) {
  testing::TempDir tmp;
  FaultInjectingFileOps ops;
  LogOptions options = SmallLogOptions(tmp.Sub("sync-0"), &ops);
  auto log = Log::Open(options);
  ASSERT_TRUE(log.ok());
  AppendBatches(**log, 5, 3, "s");
  ops.AddRule({.path_substring = ".log", .op = FaultOp::kSync, .error = EIO, .remaining = 1});
  absl::Status s = (*log)->FlushAll();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ((*log)->recovery_point(), 0);
}

TEST(Crash, ShortReadIsAnErrorNotSilentlyFewerRecords) {
  testing::TempDir tmp;
  FaultInjectingFileOps ops;
  auto log = Log::Open(SmallLogOptions(tmp.Sub("short-0"), &ops));
  ASSERT_TRUE(log.ok());
  AppendBatches(**log, 3, 3, "s");
  auto info = (*log)->Read(0, 1 << 20, (*log)->log_end_offset(), true);
  ASSERT_TRUE(info.ok());
  ops.AddRule({.path_substring = ".log", .op = FaultOp::kRead, .begin = 10, .error = 0});
  auto bytes = info->records.ReadAll();
  EXPECT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("short read"), absl::string_view::npos) << bytes.status();
}

}  // namespace
}  // namespace strata::storage
