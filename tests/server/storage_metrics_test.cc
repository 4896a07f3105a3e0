// server/storage_metrics.h: the figures a scrape shows come from the LogManager.

#include "server/storage_metrics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "storage/scheduler.h"
#include "tests/support/batches.h"
#include "tests/support/scrape.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::server {
namespace {

using testing::Scrape;

TEST(StorageMetrics, ShowOfflineDirsFlushesAndTransferOutcomesAsTheLogManagerHasThem) {
  testing::TempDir tmp;
  storage::Scheduler scheduler(1);
  storage::LogManagerOptions o;
  o.log_dirs = {tmp.Sub("a"), tmp.Sub("b")};
  o.cluster_id = "c";
  o.node_id = 1;
  o.scheduler = &scheduler;
  auto logs = storage::LogManager::Open(o);
  ASSERT_TRUE(logs.ok()) << logs.status();
  StorageMetrics metrics(**logs);
  auto before = Scrape(metrics);
  EXPECT_EQ(before["strata_log_dirs{state=online}"], 2);
  EXPECT_EQ(before["strata_log_dirs{state=offline}"], 0);
  EXPECT_EQ(before["strata_log_flushes_total"], 0);
  EXPECT_EQ(before["strata_transfer_failures_total{outcome=file}"], 0);
  EXPECT_EQ(before["strata_log_recovery_bytes"], 0);

  auto log = (*logs)->GetOrCreateLog({"t", 0});
  ASSERT_TRUE(log.ok());
  std::string batch = testing::MakeBatch(5, "v");
  ASSERT_TRUE((*log)->AppendAsLeader(batch, 0).ok());
  ASSERT_TRUE((*log)->FlushAll().ok());
  ASSERT_TRUE((*logs)->failure_channel().MaybeAddOfflineLogDir(tmp.Sub("b"), absl::DataLossError("test")));
  auto after = Scrape(metrics);
  EXPECT_EQ(after["strata_log_flushes_total"], 1);
  EXPECT_EQ(after["strata_log_flush_seconds_count"], 1);
  EXPECT_GT(after["strata_log_flush_seconds_sum"], 0);
  EXPECT_EQ(after["strata_log_dirs{state=online}"], 1);
  EXPECT_EQ(after["strata_log_dirs{state=offline}"], 1);
  EXPECT_EQ(after["strata_log_dir_offline{dir=" + tmp.Sub("b") + "}"], 1);
  EXPECT_EQ(after["strata_log_dir_offline{dir=" + tmp.Sub("a") + "}"], 0);
  scheduler.Shutdown();
}


// Producer-state rebuilds at start (seed 004 keeps them at zero for swaps) and the
// cleaner's figures are on the scrape.
TEST(StorageMetrics, ShowProducerStateRebuildsAtStartAndTheCleanersWork) {
  testing::TempDir tmp;
  storage::Scheduler scheduler(1);
  storage::LogManagerOptions o;
  o.log_dirs = {tmp.Sub("a")};
  o.cluster_id = "c";
  o.node_id = 1;
  o.scheduler = &scheduler;
  o.default_config.segment_bytes = 4096;
  o.default_config.cleanup_compact = true;
  o.default_config.cleanup_delete = false;
  o.default_config.min_cleanable_dirty_ratio = 0.01;
  {
    auto logs = storage::LogManager::Open(o);
    ASSERT_TRUE(logs.ok()) << logs.status();
    auto log = (*logs)->GetOrCreateLog({"t", 0});
    ASSERT_TRUE(log.ok());
    for (int b = 0; b < 100; ++b) {
      storage::RecordBatchBuilder builder;
      builder.set_producer(5, 0, b);
      builder.Add("same-key", "value " + std::to_string(b), 1000 + b);
      std::string batch = builder.Build();
      ASSERT_TRUE((*log)->AppendAsLeader(batch, 0).ok());
    }
    ASSERT_TRUE((*log)->Roll().ok());
    (*log)->UpdateHighWatermark((*log)->log_end_offset());
    ASSERT_TRUE((*logs)->Shutdown().ok());
  }
  // Without its snapshots the log's producer state must be rebuilt from the log start.
  for (const auto& entry : std::filesystem::directory_iterator(tmp.Sub("a/t-0"))) {
    if (entry.path().extension() == ".snapshot") std::filesystem::remove(entry.path());
  }
  o.cleaner = storage::LogCleanerOptions{};
  o.cleaner->backoff_ms = 10;
  auto logs = storage::LogManager::Open(o);
  ASSERT_TRUE(logs.ok()) << logs.status();
  StorageMetrics metrics(**logs);
  EXPECT_EQ(Scrape(metrics)["strata_log_producer_state_rebuilds"], 1);
  (*logs)->GetLog({"t", 0})->UpdateHighWatermark((*logs)->GetLog({"t", 0})->log_end_offset());
  ASSERT_TRUE(testing::WaitUntil([&] { return Scrape(metrics)["strata_log_cleaner_cleanings_total"] >= 1; },
                                 std::chrono::seconds(20)));
  auto after = Scrape(metrics);
  EXPECT_GT(after["strata_log_cleaner_bytes_total{direction=read}"], 0);
  EXPECT_GT(after["strata_log_cleaner_records_removed_total"], 90);
  EXPECT_EQ(after["strata_log_cleaner_failures_total"], 0);
  ASSERT_TRUE((*logs)->Shutdown().ok());
  scheduler.Shutdown();
}

}  // namespace
}  // namespace strata::server
