#include "raft/raft_storage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "raft/raft.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "tests/support/temp_dir.h"

namespace strata::raft {
namespace {

Ready ReadyWith(std::vector<Entry> entries, HardState hs, bool hs_changed = true) {
  Ready rd;
  rd.entries = std::move(entries);
  rd.hard_state = hs;
  rd.hard_state_changed = hs_changed;
  return rd;
}

TEST(RaftStorage, EntriesAndHardStateSurviveARestart) {
  testing::TempDir dir;
  {
    auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_TRUE((*s)->Save(ReadyWith({{1, 1, ""}, {1, 2, "a"}, {2, 3, "b"}}, {2, 3, 2})).ok());
    ASSERT_TRUE((*s)->Close().ok());
  }
  auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->hard_state(), (HardState{2, 3, 2}));
  auto entries = (*s)->ReadEntries();
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(*entries, (std::vector<Entry>{{1, 1, ""}, {1, 2, "a"}, {2, 3, "b"}}));
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("__cluster_metadata-0/00000000000000000000.log")));
  // The core restarts from it.
  Config config;
  config.id = 3;
  config.voters = {1, 2, 3};
  Raft raft(config, (*s)->hard_state(), *entries);
  EXPECT_EQ(raft.term(), 2);
  EXPECT_EQ(raft.vote(), 3);
  EXPECT_EQ(raft.last_index(), 3);
}

TEST(RaftStorage, AnUncommittedTailIsOverwritten) {
  testing::TempDir dir;
  auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->Save(ReadyWith({{1, 1, "x"}, {1, 2, "y"}, {1, 3, "z"}}, {1, 0, 1})).ok());
  ASSERT_TRUE((*s)->Save(ReadyWith({{2, 2, "Y"}}, {2, 0, 1})).ok());
  EXPECT_EQ(*(*s)->ReadEntries(), (std::vector<Entry>{{1, 1, "x"}, {2, 2, "Y"}}));
}

TEST(RaftStorage, GarbageQuorumStateIsAPreciseError) {
  testing::TempDir dir;
  std::ofstream(dir.Sub("quorum-state")) << "{\"data_version\":0,\"term\":\"three\"}";
  auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("'term' is missing or not an integer"), absl::string_view::npos) << s.status();
}

TEST(RaftStorage, AnIoErrorIsReturnedForTheDriverToStopOn) {
  testing::TempDir dir;
  storage::FaultInjectingFileOps ops;
  auto s = RaftStorage::Open(ops, dir.path());
  ASSERT_TRUE(s.ok());
  ops.AddRule({.path_substring = "__cluster_metadata-0", .op = storage::FaultOp::kSync, .error = EIO});
  absl::Status status = (*s)->Save(ReadyWith({{1, 1, "x"}}, {1, 0, 0}));
  EXPECT_EQ(storage::ErrcOf(status), storage::Errc::kStorageError) << status;
  EXPECT_EQ(storage::ErrnoOf(status), EIO);
}

TEST(RaftStorage, ATornLastEntryIsDroppedAndEarlierOnesKept) {
  testing::TempDir dir;
  storage::FaultInjectingFileOps ops;
  {
    auto s = RaftStorage::Open(ops, dir.path());
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->Save(ReadyWith({{1, 1, "x"}, {1, 2, "y"}}, {1, 1, 2})).ok());
  }
  // Power loss in the middle of writing entry 3 (nothing of it was synced).
  std::string log = dir.Sub("__cluster_metadata-0/00000000000000000000.log");
  uint64_t size = std::filesystem::file_size(log);
  std::ofstream(log, std::ios::app | std::ios::binary) << std::string(30, '\x42');
  ASSERT_EQ(std::filesystem::file_size(log), size + 30);
  auto s = RaftStorage::Open(ops, dir.path());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*(*s)->ReadEntries(), (std::vector<Entry>{{1, 1, "x"}, {1, 2, "y"}}));
  EXPECT_EQ((*s)->hard_state().vote, 1);
}

}  // namespace
}  // namespace strata::raft
