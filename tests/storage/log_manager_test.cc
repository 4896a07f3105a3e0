#include "storage/log_manager.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"

#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "tests/storage/log_test_util.h"
#include "tests/support/wait.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class LogManagerTest : public ::testing::Test {
 protected:
  LogManagerOptions Options() {
    LogManagerOptions o;
    o.log_dirs = {tmp_.Sub("d1"), tmp_.Sub("nested/d2")};  // missing parents are created
    o.cluster_id = "c1";
    o.node_id = 1;
    o.default_config.segment_bytes = 4096;
    o.default_config.index_interval_bytes = 256;
    o.default_config.segment_index_bytes = 1024;
    o.ops = &ops_;
    o.scheduler = &scheduler_;
    return o;
  }
  std::unique_ptr<LogManager> Open(LogManagerOptions o) {
    auto m = LogManager::Open(o);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? std::move(*m) : nullptr;
  }
  testing::TempDir tmp_;
  FaultInjectingFileOps ops_;
  Scheduler scheduler_{1};
};

TEST_F(LogManagerTest, PlacesNewPartitionsOnTheEmptiestDirAndReloadsThem) {
  std::vector<std::string> values;
  {
    auto manager = Open(Options());
    for (int p = 0; p < 4; ++p) {
      auto log = manager->GetOrCreateLog({"t", p});
      ASSERT_TRUE(log.ok());
      if (p == 0) values = AppendBatches(**log, 20, 4, "v");
    }
    EXPECT_NE(manager->dir_of({"t", 0}), manager->dir_of({"t", 1}));
    EXPECT_EQ(manager->dir_of({"t", 0}), manager->dir_of({"t", 2}));
    EXPECT_NE(manager->directory_id(tmp_.Sub("d1")), manager->directory_id(tmp_.Sub("nested/d2")));
    ASSERT_TRUE(manager->Shutdown().ok());
    EXPECT_TRUE(fs::exists(tmp_.Sub("d1/.kafka_cleanshutdown")));
    EXPECT_TRUE(fs::exists(tmp_.Sub("d1/recovery-point-offset-checkpoint")));
  }
  auto manager = Open(Options());
  EXPECT_EQ(manager->partitions().size(), 4u);
  Log* log = manager->GetLog({"t", 0});
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->load_stats().segments_recovered, 0);  // clean shutdown: no recovery
  EXPECT_EQ(Values(*testing::ReadAll(*log)), values);
  EXPECT_FALSE(fs::exists(tmp_.Sub("d1/.kafka_cleanshutdown")));  // consumed at start
}

TEST_F(LogManagerTest, MetaPropertiesMismatchIsAStartupError) {
  ASSERT_TRUE(Open(Options())->Shutdown().ok());
  LogManagerOptions other = Options();
  other.node_id = 2;
  auto m = LogManager::Open(other);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(ErrcOf(m.status()), Errc::kInvalidConfig);
  EXPECT_NE(m.status().message().find("node.id 1"), absl::string_view::npos) << m.status();
  other = Options();
  other.cluster_id = "c2";
  EXPECT_NE(LogManager::Open(other).status().message().find("cluster.id c1"), absl::string_view::npos);
}

TEST_F(LogManagerTest, IoErrorTakesTheDirOfflineOnceAndLaterCallsTouchNothing) {
  auto manager = Open(Options());
  Log* a = *manager->GetOrCreateLog({"a", 0});
  Log* b = *manager->GetOrCreateLog({"b", 0});
  std::string dir_a = manager->dir_of({"a", 0});
  ASSERT_NE(dir_a, manager->dir_of({"b", 0}));
  AppendBatches(*a, 5, 4, "a");
  ASSERT_TRUE(a->FlushAll().ok());
  ops_.AddRule({.path_substring = "/a-0/", .op = FaultOp::kWrite, .error = ENOSPC});
  std::string batch = testing::MakeBatch(4, "x");
  auto failed = a->AppendAsLeader(batch, 0);
  EXPECT_EQ(ErrcOf(failed.status()), Errc::kStorageError);
  EXPECT_EQ(ErrnoOf(failed.status()), ENOSPC);
  EXPECT_NE(failed.status().message().find("No space left"), absl::string_view::npos) << failed.status();
  EXPECT_TRUE(manager->failure_channel().IsOffline(dir_a));
  EXPECT_EQ(manager->online_dirs().size(), 1u);
  ASSERT_TRUE(scheduler_.WaitIdle(std::chrono::seconds(10)));  // logs of the dir closed

  int64_t ops_before = ops_.operations();
  batch = testing::MakeBatch(4, "y");
  EXPECT_EQ(ErrcOf(a->AppendAsLeader(batch, 0).status()), Errc::kLogDirOffline);
  EXPECT_EQ(ErrcOf(a->Read(0, 100, 20, true).status()), Errc::kLogDirOffline);
  EXPECT_EQ(ErrcOf(a->FlushAll()), Errc::kLogDirOffline);
  EXPECT_EQ(ops_.operations(), ops_before);  // nothing reached the disk
  // Another report for the same dir is not a second failure.
  EXPECT_FALSE(manager->failure_channel().MaybeAddOfflineLogDir(dir_a, absl::InternalError("again")));
  // The other dir keeps serving, and new partitions avoid the failed dir.
  batch = testing::MakeBatch(4, "b");
  EXPECT_TRUE(b->AppendAsLeader(batch, 0).ok());
  EXPECT_NE(manager->dir_of({"c", 0}), dir_a);
  EXPECT_EQ(manager->dir_of(TopicPartition{"c", 0}), "");
  ASSERT_TRUE(manager->GetOrCreateLog({"c", 0}).ok());
  EXPECT_NE(manager->dir_of({"c", 0}), dir_a);
  ASSERT_TRUE(manager->Shutdown().ok());

  // After the disk is repaired, every flushed record of a is intact.
  ops_.ClearRules();
  auto reopened = Open(Options());
  Log* again = reopened->GetLog({"a", 0});
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(testing::ReadAll(*again)->size(), 20u);
}

TEST_F(LogManagerTest, ReadErrorTakesTheDirOfflineExactlyOnce) {
  auto manager = Open(Options());
  Log* log = *manager->GetOrCreateLog({"r", 0});
  AppendBatches(*log, 10, 4, "r");
  int offline_events = 0;
  manager->failure_channel().AddListener([&](const std::string&, const absl::Status&) { ++offline_events; });
  ops_.AddRule({.path_substring = "/r-0/", .op = FaultOp::kRead, .error = EIO});
  auto first = log->Read(0, 1 << 20, log->log_end_offset(), true);
  EXPECT_EQ(ErrcOf(first.status()), Errc::kStorageError) << first.status();
  EXPECT_EQ(ErrnoOf(first.status()), EIO);
  auto second = log->Read(4, 1 << 20, log->log_end_offset(), true);
  EXPECT_EQ(ErrcOf(second.status()), Errc::kLogDirOffline) << second.status();
  EXPECT_EQ(offline_events, 1);
  EXPECT_TRUE(log->offline());
  EXPECT_EQ(manager->failure_channel().OfflineReason(manager->dir_of({"r", 0})).code(), first.status().code());
}

TEST_F(LogManagerTest, GarbageRecoveryCheckpointMeansFullRecoveryNotDataLoss) {
  std::vector<std::string> values;
  {
    auto manager = Open(Options());
    values = AppendBatches(**manager->GetOrCreateLog({"g", 0}), 30, 4, "g");
    ASSERT_TRUE(manager->Shutdown().ok());
  }
  std::string dir = tmp_.Sub("d1");
  { std::ofstream(dir + "/recovery-point-offset-checkpoint", std::ios::trunc) << "0\n1\ng 0 banana\n"; }
  auto manager = Open(Options());
  Log* log = manager->GetLog({"g", 0});
  ASSERT_NE(log, nullptr);
  EXPECT_GT(log->load_stats().segments_recovered, 0);  // treated as unclean, recovered from 0
  EXPECT_EQ(Values(*testing::ReadAll(*log)), values);
}

TEST_F(LogManagerTest, AnUncleanRestartRecoversOnlyWhatLiesAboveTheCheckpointedRecoveryPoint) {
  std::vector<std::string> values;
  int64_t active_base = 0;
  uint64_t active_bytes = 0;
  {
    auto manager = Open(Options());
    Log* log = *manager->GetOrCreateLog({"r", 0});
    values = AppendBatches(*log, 120, 4, "r");
    ASSERT_GT(log->segment_count(), 3);
    active_base = log->segment_base_offsets().back();
    // The rolls flushed every segment but the active one, in the background.
    ASSERT_TRUE(testing::WaitUntil([&] { return log->recovery_point() == active_base; }, 10s));
    ASSERT_TRUE(manager->CheckpointRecoveryPoints().ok());
    int64_t rolled_bytes = 0;
    for (int64_t base : log->segment_base_offsets()) {
      if (base != active_base) rolled_bytes += static_cast<int64_t>(fs::file_size(SegmentFileName(log->dir(), base, kLogSuffix)));
    }
    active_bytes = static_cast<uint64_t>(log->size_in_bytes() - rolled_bytes);
    // No Shutdown: the process dies here (no clean-shutdown marker, nothing flushed).
  }
  auto manager = Open(Options());
  Log* log = manager->GetLog({"r", 0});
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->load_stats().segments_recovered, 1);  // only the active segment is read
  EXPECT_EQ(log->load_stats().bytes_recovered, static_cast<int64_t>(active_bytes));
  EXPECT_EQ(log->recovery_point(), log->log_end_offset());  // recovered, then flushed
  EXPECT_EQ(Values(*testing::ReadAll(*log)), values);
}

TEST_F(LogManagerTest, AReplicaGoesToTheDirTheControllerNamedAndIsNeverRecreatedOutsideItsOfflineDir) {
  auto manager = Open(Options());
  const std::string d1 = tmp_.Sub("d1"), d2 = tmp_.Sub("nested/d2");
  std::string id2 = manager->directory_id(d2);
  ASSERT_EQ(id2.size(), 16u);  // raw bytes, as partition records name dirs
  // d1 holds more partitions, but the controller named d2 for p-9: it goes there. Then
  // d1 would be the emptiest: the controller's choice still wins.
  ASSERT_TRUE(manager->GetOrCreateLog({"p", 0}).ok());
  ASSERT_TRUE(manager->GetOrCreateLog({"p", 9}, std::nullopt, id2).ok());
  EXPECT_EQ(manager->dir_of({"p", 9}), d2);
  ASSERT_TRUE(manager->GetOrCreateLog({"p", 8}, std::nullopt, id2).ok());
  EXPECT_EQ(manager->dir_of({"p", 8}), d2);
  // d2 fails: a replica placed there is refused, not created empty in d1.
  manager->failure_channel().MaybeAddOfflineLogDir(d2, absl::DataLossError("test: d2 failed"));
  auto refused = manager->GetOrCreateLog({"p", 7}, std::nullopt, id2);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(ErrcOf(refused.status()), Errc::kLogDirOffline) << refused.status();
  EXPECT_EQ(manager->GetLog({"p", 7}), nullptr);
  EXPECT_FALSE(fs::exists(d1 + "/p-7"));
  // A replica the controller placed nowhere in particular still finds an online dir.
  ASSERT_TRUE(manager->GetOrCreateLog({"p", 6}).ok());
  EXPECT_EQ(manager->dir_of({"p", 6}), d1);
}

TEST_F(LogManagerTest, UnreadableDirAtStartIsOfflineOthersServe) {
  LogManagerOptions o = Options();
  fs::create_directories(tmp_.Sub("nested"));
  { std::ofstream(tmp_.Sub("nested/d2")) << "a file where a dir should be"; }
  auto manager = Open(o);
  ASSERT_NE(manager, nullptr);
  EXPECT_EQ(manager->online_dirs(), std::vector<std::string>{tmp_.Sub("d1")});
  o.log_dirs = {tmp_.Sub("nested/d2")};
  auto none = LogManager::Open(o);
  EXPECT_FALSE(none.ok());
}

TEST_F(LogManagerTest, DeleteLogRemovesThePartitionDir) {
  auto manager = Open(Options());
  Log* log = *manager->GetOrCreateLog({"del", 0});
  AppendBatches(*log, 3, 2, "d");
  std::string dir = log->dir();
  ASSERT_TRUE(manager->DeleteLog({"del", 0}).ok());
  EXPECT_EQ(manager->GetLog({"del", 0}), nullptr);
  EXPECT_FALSE(fs::exists(dir));
}


// The cleaner threads compact a compacted log on their own and checkpoint it; deleting a
// log while its (throttled) cleaning runs stops the cleaning first, and nothing is
// written into the removed directory (a write there would take the dir offline).
TEST_F(LogManagerTest, CleanerThreadsCompactAndADeletionStopsACleaningFirst) {
  LogManagerOptions o = Options();
  o.cleaner = LogCleanerOptions{};
  o.cleaner->backoff_ms = 10;
  auto manager = Open(o);
  ASSERT_NE(manager, nullptr);
  LogConfig compact = o.default_config;
  compact.cleanup_compact = true;
  compact.cleanup_delete = false;
  compact.min_cleanable_dirty_ratio = 0.01;
  // 200 records over 5 keys, rolled and replicated: wholly dirty.
  auto fill = [](Log& log) {
    for (int b = 0; b < 200; ++b) {
      RecordBatchBuilder builder;
      builder.Add(absl::StrCat("k", b % 5), absl::StrCat("v", b), 1000 + b);
      std::string batch = builder.Build();
      ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
    }
    ASSERT_TRUE(log.Roll().ok());
    log.UpdateHighWatermark(log.log_end_offset());
  };
  auto log = manager->GetOrCreateLog({"c", 0}, compact);
  ASSERT_TRUE(log.ok());
  fill(**log);
  LogCleaner* cleaner = manager->cleaner();
  ASSERT_NE(cleaner, nullptr);
  ASSERT_TRUE(testing::WaitUntil([&] { return cleaner->checkpoint({"c", 0}) == 200; }, 20s));
  EXPECT_TRUE(fs::exists(fs::path(manager->dir_of({"c", 0})) / "cleaner-offset-checkpoint"));
  EXPECT_LT((*log)->size_in_bytes(), 200 * 70) << "compacted to about one record per key";

  // A second log, cleaned slowly: its cleaning is in progress when it is deleted. Only
  // c-1's first cleaned segment is held: the file of c-0's cleaned segment keeps its
  // ".cleaned" name after the swap, and a later flush of c-0 must not be the sync held.
  ops_.HoldSyncs("c-1/00000000000000000000.log.cleaned");
  auto doomed = manager->GetOrCreateLog({"c", 1}, compact);
  ASSERT_TRUE(doomed.ok());
  fill(**doomed);
  ASSERT_TRUE(testing::WaitUntil([&] { return ops_.syncs_held() > 0; }, 20s)) << "the cleaning reached its flush";
  std::thread release([&] {
    // The deletion has paused the log and waits for the cleaning, which waits for this sync.
    EXPECT_TRUE(testing::WaitUntil([&] { return cleaner->paused({"c", 1}); }, 20s));
    ops_.ReleaseSyncs();
  });
  ASSERT_TRUE(manager->DeleteLog({"c", 1}).ok());
  release.join();
  EXPECT_EQ(manager->GetLog({"c", 1}), nullptr);
  EXPECT_TRUE(manager->online_dirs().size() == 2) << "no dir went offline";
  EXPECT_FALSE(cleaner->checkpoint({"c", 1}).has_value());
  ASSERT_TRUE(manager->Shutdown().ok());
}

}  // namespace
}  // namespace strata::storage
