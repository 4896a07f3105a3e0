// LogManager's future logs (AlterReplicaLogDirs): made, copied into, swapped in place of
// the current log, found again after a restart, and a move interrupted between its two
// renames finished at the next start.

#include <gtest/gtest.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/log_manager.h"
#include "tests/storage/log_test_util.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;

class LogManagerFuturesTest : public ::testing::Test {
 protected:
  LogManagerOptions Options() {
    LogManagerOptions o;
    o.log_dirs = {tmp_.Sub("d1"), tmp_.Sub("d2")};
    o.cluster_id = "c1";
    o.node_id = 1;
    o.default_config.segment_bytes = 4096;
    o.default_config.index_interval_bytes = 256;
    o.default_config.segment_index_bytes = 1024;
    o.default_config.file_delete_delay_ms = 0;
    o.ops = &ops_;
    o.scheduler = &scheduler_;
    return o;
  }
  std::unique_ptr<LogManager> Open() {
    auto m = LogManager::Open(Options());
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? std::move(*m) : nullptr;
  }
  // The other configured dir than tp's.
  std::string OtherDir(const LogManager& manager, const TopicPartition& tp) {
    return manager.dir_of(tp) == tmp_.Sub("d1") ? tmp_.Sub("d2") : tmp_.Sub("d1");
  }
  // What Partition's copy steps do: the current log's batches into the future log.
  static void CopyAll(const Log& current, Log& future) {
    if (future.log_end_offset() < current.log_start_offset()) {
      ASSERT_TRUE(future.TruncateFullyAndStartAt(current.log_start_offset()).ok());
    }
    while (future.log_end_offset() < current.log_end_offset()) {
      auto read = current.Read(future.log_end_offset(), 1000, current.log_end_offset(), true);
      ASSERT_TRUE(read.ok()) << read.status();
      auto bytes = read->records.ReadAll();
      ASSERT_TRUE(bytes.ok());
      bytes->resize(WholeBatches(*bytes).size());
      ASSERT_TRUE(future.AppendAsFollower(*bytes).ok());
    }
  }
  static std::vector<std::string> Names(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    return out;
  }
  static bool HasNameEndingWith(const std::string& dir, const std::string& suffix) {
    for (const auto& name : Names(dir)) {
      if (absl::EndsWith(name, suffix)) return true;
    }
    return false;
  }
  testing::TempDir tmp_;
  FaultInjectingFileOps ops_;
  Scheduler scheduler_{1};
  const TopicPartition tp_{"moving", 0};
};

TEST_F(LogManagerFuturesTest, AFutureLogIsMadeInTheTargetDirOnlyWhenAMoveMakesSense) {
  auto manager = Open();
  Log* current = *manager->GetOrCreateLog(tp_);
  ASSERT_TRUE(WriteFileAtomically(ops_, JoinPath(current->dir(), kPartitionMetadataFile), "version: 0\n").ok());
  const std::string source = manager->dir_of(tp_);
  const std::string target = OtherDir(*manager, tp_);

  EXPECT_EQ(ErrcOf(manager->GetOrCreateFutureLog(tp_, source).status()), Errc::kInvalidArgument);  // there already
  EXPECT_EQ(ErrcOf(manager->GetOrCreateFutureLog(tp_, tmp_.Sub("d3")).status()), Errc::kInvalidArgument);
  EXPECT_EQ(ErrcOf(manager->GetOrCreateFutureLog({"absent", 0}, target).status()), Errc::kInvalidArgument);

  auto future = manager->GetOrCreateFutureLog(tp_, target);
  ASSERT_TRUE(future.ok()) << future.status();
  EXPECT_EQ((*future)->log_dir(), target);
  EXPECT_TRUE(HasNameEndingWith(target, "-future"));
  EXPECT_TRUE(fs::exists(JoinPath((*future)->dir(), kPartitionMetadataFile)));  // the topic id goes along
  EXPECT_EQ(*manager->GetOrCreateFutureLog(tp_, target), *future);  // the same one again
  EXPECT_EQ(manager->GetFutureLog(tp_), *future);
  EXPECT_EQ(manager->future_partitions(), std::vector<TopicPartition>{tp_});
  EXPECT_EQ(manager->GetLog(tp_), current);  // the current log still serves

  ASSERT_TRUE(manager->DeleteFutureLog(tp_).ok());
  EXPECT_EQ(manager->GetFutureLog(tp_), nullptr);
  ASSERT_TRUE(scheduler_.WaitIdle(std::chrono::seconds(10)));
  EXPECT_FALSE(HasNameEndingWith(target, "-future"));
  EXPECT_FALSE(HasNameEndingWith(target, "-delete"));

  // No future log while a dir is offline: it could be a second copy of a replica there.
  Log* other = *manager->GetOrCreateLog({"other", 0}, std::nullopt, manager->directory_id(target));
  ASSERT_EQ(other->log_dir(), target);
  manager->failure_channel().MaybeAddOfflineLogDir(target, absl::InternalError("test"));
  EXPECT_EQ(ErrcOf(manager->GetOrCreateFutureLog(tp_, target).status()), Errc::kLogDirOffline);
}

TEST_F(LogManagerFuturesTest, TheFutureLogTakesTheCurrentLogsPlaceWithEverythingItHeld) {
  auto manager = Open();
  Log* current = *manager->GetOrCreateLog(tp_);
  // An idempotent producer whose batch will be below the log start: the future log never
  // copies it, and its state must still survive the move (a retry stays a duplicate).
  std::string produced = testing::MakeProducerBatch(2, /*producer_id=*/77, /*epoch=*/0, /*base_sequence=*/0);
  std::string retry = produced;
  auto first = current->AppendAsLeader(produced, 3);
  ASSERT_TRUE(first.ok());
  std::vector<std::string> values = AppendBatches(*current, 30, 4, "v", /*epoch=*/3);
  ASSERT_TRUE(current->StartLeaderEpoch(5).ok());  // an epoch with no batch yet
  current->UpdateHighWatermark(current->log_end_offset());
  ASSERT_TRUE(current->MaybeIncrementLogStartOffset(10).ok());
  const std::string source = manager->dir_of(tp_);
  const std::string target = OtherDir(*manager, tp_);

  Log* future = *manager->GetOrCreateFutureLog(tp_, target);
  ASSERT_NO_FATAL_FAILURE(CopyAll(*current, *future));
  auto replaced = manager->ReplaceCurrentWithFuture(tp_);
  ASSERT_TRUE(replaced.ok()) << replaced.status();

  Log* moved = replaced->log;
  EXPECT_EQ(manager->GetLog(tp_), moved);
  EXPECT_EQ(manager->GetFutureLog(tp_), nullptr);
  EXPECT_EQ(manager->dir_of(tp_), target);
  EXPECT_EQ(moved->dir(), JoinPath(target, tp_.DirName()));
  EXPECT_EQ(moved->log_end_offset(), replaced->retired->log_end_offset());
  EXPECT_EQ(moved->high_watermark(), moved->log_end_offset());
  EXPECT_EQ(moved->log_start_offset(), 10);
  EXPECT_EQ(moved->leader_epoch_cache().Latest()->epoch, 5);
  auto records = testing::ReadAll(*moved);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->front().offset, 10);
  EXPECT_EQ(records->size(), values.size() + 2 - 10);
  auto again = moved->AppendAsLeader(retry, 5);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->first_offset, first->first_offset);

  // The old log: no appends; gone from disk once removed.
  std::string batch = testing::MakeBatch(1, "late");
  EXPECT_FALSE(replaced->retired->AppendAsLeader(batch, 5).ok());
  ASSERT_TRUE(scheduler_.WaitIdle(std::chrono::seconds(10)));
  EXPECT_FALSE(fs::exists(JoinPath(source, tp_.DirName())));
  EXPECT_FALSE(HasNameEndingWith(source, "-delete"));
  EXPECT_EQ(ErrcOf(replaced->retired->Read(10, 100, 20, true).status()), Errc::kStorageError);  // closed

  // And it is the partition's log at the next start.
  ASSERT_TRUE(manager->Shutdown().ok());
  manager.reset();
  manager = Open();
  ASSERT_NE(manager->GetLog(tp_), nullptr);
  EXPECT_EQ(manager->dir_of(tp_), target);
  EXPECT_EQ(manager->GetFutureLog(tp_), nullptr);
  EXPECT_EQ(testing::ReadAll(*manager->GetLog(tp_))->size(), values.size() + 2 - 10);
}

TEST_F(LogManagerFuturesTest, AMoveUnderWayIsFoundAgainAfterARestart) {
  std::string target;
  int64_t copied = 0;
  {
    auto manager = Open();
    Log* current = *manager->GetOrCreateLog(tp_);
    AppendBatches(*current, 20, 4, "v");
    target = OtherDir(*manager, tp_);
    Log* future = *manager->GetOrCreateFutureLog(tp_, target);
    ASSERT_NO_FATAL_FAILURE(CopyAll(*current, *future));
    copied = future->log_end_offset();
    AppendBatches(*current, 5, 4, "w");  // the copy is behind again
    // No clean shutdown: the checkpoints and the page cache are what a kill -9 leaves.
    ASSERT_TRUE(manager->CheckpointAll().ok());
  }
  auto manager = Open();
  Log* future = manager->GetFutureLog(tp_);
  ASSERT_NE(future, nullptr);
  EXPECT_EQ(future->log_dir(), target);
  EXPECT_EQ(future->log_end_offset(), copied);
  ASSERT_NE(manager->GetLog(tp_), nullptr);
  EXPECT_NE(manager->dir_of(tp_), target);
  ASSERT_NO_FATAL_FAILURE(CopyAll(*manager->GetLog(tp_), *future));
  ASSERT_TRUE(manager->ReplaceCurrentWithFuture(tp_).ok());
  EXPECT_EQ(testing::ReadAll(*manager->GetLog(tp_))->size(), 100u);
}

TEST_F(LogManagerFuturesTest, ARestartBetweenTheRenamesFinishesTheMove) {
  std::string source, target;
  {
    auto manager = Open();
    Log* current = *manager->GetOrCreateLog(tp_);
    AppendBatches(*current, 20, 4, "v");
    source = manager->dir_of(tp_);
    target = OtherDir(*manager, tp_);
    Log* future = *manager->GetOrCreateFutureLog(tp_, target);
    ASSERT_NO_FATAL_FAILURE(CopyAll(*current, *future));
    ASSERT_TRUE(manager->Shutdown().ok());
  }
  // What the process leaves when it dies between ReplaceCurrentWithFuture's renames: the
  // current log's directory renamed for deletion, the future log complete.
  fs::rename(JoinPath(source, tp_.DirName()), JoinPath(source, tp_.DirName() + ".x-delete"));
  auto manager = Open();
  ASSERT_NE(manager->GetLog(tp_), nullptr);
  EXPECT_EQ(manager->dir_of(tp_), target);
  EXPECT_EQ(manager->GetFutureLog(tp_), nullptr);
  EXPECT_EQ(testing::ReadAll(*manager->GetLog(tp_))->size(), 80u);
  EXPECT_FALSE(HasNameEndingWith(target, "-future"));
  EXPECT_FALSE(HasNameEndingWith(source, "-delete"));
  // And the next start finds it where it is now.
  ASSERT_TRUE(manager->Shutdown().ok());
  manager.reset();
  manager = Open();
  EXPECT_EQ(manager->dir_of(tp_), target);
}

TEST_F(LogManagerFuturesTest, AFutureLogWithoutItsCurrentOneWaitsWhileADirIsOffline) {
  std::string target;
  {
    auto manager = Open();
    Log* current = *manager->GetOrCreateLog(tp_);
    AppendBatches(*current, 5, 4, "v");
    target = OtherDir(*manager, tp_);
    ASSERT_TRUE(manager->GetOrCreateFutureLog(tp_, target).ok());
    ASSERT_TRUE(manager->Shutdown().ok());
  }
  // The dir of the current log cannot be opened at the next start: the future log may
  // be behind a current log there, and is never promoted over it.
  const std::string source = tmp_.Sub(target == tmp_.Sub("d1") ? "d2" : "d1");
  ops_.AddRule({.path_substring = source + "/meta.properties", .op = FaultOp::kRead, .error = EIO});
  auto manager = Open();
  EXPECT_TRUE(manager->failure_channel().IsOffline(source));
  EXPECT_EQ(manager->GetLog(tp_), nullptr);
  EXPECT_NE(manager->GetFutureLog(tp_), nullptr);
  EXPECT_TRUE(HasNameEndingWith(target, "-future"));
}

TEST_F(LogManagerFuturesTest, DeletingAPartitionDeletesItsFutureLogFirst) {
  auto manager = Open();
  Log* current = *manager->GetOrCreateLog(tp_);
  AppendBatches(*current, 5, 4, "v");
  const std::string target = OtherDir(*manager, tp_);
  ASSERT_TRUE(manager->GetOrCreateFutureLog(tp_, target).ok());
  ASSERT_TRUE(manager->DeleteLog(tp_).ok());
  EXPECT_EQ(manager->GetFutureLog(tp_), nullptr);
  ASSERT_TRUE(manager->Shutdown().ok());
  manager.reset();
  manager = Open();  // nothing for CompleteInterruptedMoves to take for the partition
  EXPECT_EQ(manager->GetLog(tp_), nullptr);
}

TEST_F(LogManagerFuturesTest, DescribeLogDirsSeesTheFutureLogAndItsLag) {
  auto manager = Open();
  Log* current = *manager->GetOrCreateLog(tp_);
  AppendBatches(*current, 10, 4, "v");
  const std::string target = OtherDir(*manager, tp_);
  Log* future = *manager->GetOrCreateFutureLog(tp_, target);
  bool seen_future = false;
  for (const auto& s : manager->Summaries()) {
    if (!s.is_future) continue;
    seen_future = true;
    EXPECT_EQ(s.dir, target);
    EXPECT_EQ(s.log_end_offset, 0);
    EXPECT_EQ(s.current_log_end_offset, 40);
  }
  EXPECT_TRUE(seen_future);
  ASSERT_NO_FATAL_FAILURE(CopyAll(*current, *future));
  for (const auto& s : manager->Summaries()) {
    if (s.is_future) EXPECT_EQ(s.current_log_end_offset - s.log_end_offset, 0);
  }
}

}  // namespace
}  // namespace strata::storage
