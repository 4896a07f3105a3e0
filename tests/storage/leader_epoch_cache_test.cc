#include "storage/leader_epoch_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "tests/support/temp_dir.h"

namespace strata::storage {
namespace {

using Entries = std::vector<EpochEntry>;

std::unique_ptr<LeaderEpochCache> Load(FileOps& ops, const std::string& path) {
  auto cache = LeaderEpochCache::Load(ops, path);
  EXPECT_TRUE(cache.ok()) << cache.status();
  return std::move(*cache);
}

TEST(LeaderEpochCache, AssignReplacesDivergentEntriesAndPersists) {
  testing::TempDir dir;
  std::string path = dir.Sub("leader-epoch-checkpoint");
  auto cache = Load(*FileOps::Default(), path);
  ASSERT_TRUE(cache->Assign(1, 0).ok());
  ASSERT_TRUE(cache->Assign(1, 5).ok());  // same epoch, later offset: no change
  ASSERT_TRUE(cache->Assign(2, 10).ok());
  ASSERT_TRUE(cache->Assign(4, 20).ok());
  EXPECT_EQ(cache->entries(), (Entries{{1, 0}, {2, 10}, {4, 20}}));
  ASSERT_TRUE(cache->Assign(3, 15).ok());  // a new leader of epoch 3 from 15: epoch 4 is gone
  EXPECT_EQ(cache->entries(), (Entries{{1, 0}, {2, 10}, {3, 15}}));
  EXPECT_EQ(Load(*FileOps::Default(), path)->entries(), cache->entries());
  EXPECT_EQ(ErrcOf(cache->Assign(-1, 3)), Errc::kInvalidArgument);
}

TEST(LeaderEpochCache, EndOffsetForAnswersAsKafka) {
  testing::TempDir dir;
  auto cache = Load(*FileOps::Default(), dir.Sub("leader-epoch-checkpoint"));
  ASSERT_TRUE(cache->Assign(Entries{{2, 10}, {4, 30}, {5, 50}}).ok());
  using P = std::pair<int32_t, int64_t>;
  EXPECT_EQ(cache->EndOffsetFor(5, 77), (P{5, 77}));    // latest: the log end
  EXPECT_EQ(cache->EndOffsetFor(4, 77), (P{4, 50}));
  EXPECT_EQ(cache->EndOffsetFor(3, 77), (P{2, 30}));    // unknown epoch between: floor's epoch
  EXPECT_EQ(cache->EndOffsetFor(1, 77), (P{1, 10}));    // below all: the first start
  EXPECT_EQ(cache->EndOffsetFor(6, 77), (P{-1, -1}));   // above all
  EXPECT_EQ(cache->EndOffsetFor(-1, 77), (P{-1, -1}));
}

TEST(LeaderEpochCache, TruncateFromStartAndEnd) {
  testing::TempDir dir;
  auto cache = Load(*FileOps::Default(), dir.Sub("leader-epoch-checkpoint"));
  ASSERT_TRUE(cache->Assign(Entries{{1, 0}, {2, 10}, {3, 20}, {4, 30}}).ok());
  ASSERT_TRUE(cache->TruncateFromStart(15).ok());
  EXPECT_EQ(cache->entries(), (Entries{{2, 15}, {3, 20}, {4, 30}}));
  ASSERT_TRUE(cache->TruncateFromEnd(20).ok());
  EXPECT_EQ(cache->entries(), (Entries{{2, 15}}));
}

TEST(LeaderEpochCache, AssignListWithAnInvalidEntryChangesNothing) {
  testing::TempDir dir;
  std::string path = dir.Sub("leader-epoch-checkpoint");
  auto cache = Load(*FileOps::Default(), path);
  ASSERT_TRUE(cache->Assign(1, 0).ok());
  EXPECT_EQ(ErrcOf(cache->Assign(Entries{{2, 10}, {3, 20}, {3, 30}})), Errc::kInvalidArgument);
  EXPECT_EQ(ErrcOf(cache->Assign(Entries{{2, 10}, {3, 5}})), Errc::kInvalidArgument);
  EXPECT_EQ(cache->entries(), (Entries{{1, 0}}));
  EXPECT_EQ(Load(*FileOps::Default(), path)->entries(), (Entries{{1, 0}}));
}

TEST(LeaderEpochCache, FailedCheckpointWriteChangesNothing) {
  testing::TempDir dir;
  FaultInjectingFileOps ops;
  auto cache = Load(ops, dir.Sub("leader-epoch-checkpoint"));
  ASSERT_TRUE(cache->Assign(1, 0).ok());
  ops.AddRule({.path_substring = "leader-epoch-checkpoint", .op = FaultOp::kSync, .error = EIO});
  absl::Status s = cache->Assign(Entries{{2, 10}, {3, 20}});
  EXPECT_EQ(ErrcOf(s), Errc::kStorageError) << s;
  EXPECT_EQ(cache->entries(), (Entries{{1, 0}}));
}

TEST(LeaderEpochCache, ConcurrentReaderSeesNoneOrAllOfAnAssignedList) {
  testing::TempDir dir;
  auto cache = Load(*FileOps::Default(), dir.Sub("leader-epoch-checkpoint"));
  constexpr int kEntries = 3000;
  constexpr int kRounds = 40;
  std::atomic<bool> done{false};
  std::atomic<int64_t> observations{0}, partial{0};
  std::thread reader([&] {
    while (!done.load()) {
      Entries seen = cache->entries();
      // Every round's list is complete: sizes are 0 or kEntries, never between.
      if (!seen.empty() && seen.size() != static_cast<size_t>(kEntries)) ++partial;
      if (!seen.empty() && seen.back().epoch - seen.front().epoch != kEntries - 1) ++partial;
      ++observations;
    }
  });
  for (int round = 0; round < kRounds; ++round) {
    Entries list;
    for (int i = 0; i < kEntries; ++i) list.push_back({round * kEntries + i, int64_t{round} * kEntries + i});
    ASSERT_TRUE(cache->Clear().ok());
    ASSERT_TRUE(cache->Assign(list).ok());
    EXPECT_EQ(cache->entries().size(), static_cast<size_t>(kEntries));
  }
  done = true;
  reader.join();
  EXPECT_GT(observations.load(), 0);
  EXPECT_EQ(partial.load(), 0);
}

TEST(LeaderEpochCache, GarbageCheckpointIsAPreciseError) {
  testing::TempDir dir;
  std::string path = dir.Sub("leader-epoch-checkpoint");
  ASSERT_TRUE(WriteFileAtomically(*FileOps::Default(), path, "0\n2\n1 0\nseven 10\n").ok());
  auto cache = LeaderEpochCache::Load(*FileOps::Default(), path);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(ErrcOf(cache.status()), Errc::kInvalidCheckpoint);
  EXPECT_NE(cache.status().message().find("line 4"), absl::string_view::npos) << cache.status();
}

}  // namespace
}  // namespace strata::storage
