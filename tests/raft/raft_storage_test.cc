#include "raft/raft_storage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "raft/raft.h"
#include "raft/voter_set.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"
#include "storage/record_batch.h"
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

TEST(RaftStorage, AConfigurationEntryIsAKafkaControlBatchAndReadsBackWithItsType) {
  testing::TempDir dir;
  Voter voter{1, std::string(16, '\x07'), {{"CONTROLLER", "127.0.0.1", 9093}}, 0, 1};
  std::string voters = VoterSet::Of({voter})->Encode();
  std::vector<Entry> written = {{1, 1, ""},
                                {1, 2, EncodeKraftVersion(kKraftVersionDynamic), EntryType::kKraftVersion},
                                {1, 3, voters, EntryType::kVoters},
                                {1, 4, "data"}};
  {
    auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_TRUE((*s)->Save(ReadyWith(written, {1, 1, 4})).ok());
    ASSERT_TRUE((*s)->Close().ok());
  }
  auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*(*s)->ReadEntries(), written);
  // On disk as Kafka writes them: control batches keyed by KRAFT_VERSION and KRAFT_VOTERS;
  // the others plain batches whose record has no key.
  std::string log = storage::ReadWholeFile(*storage::FileOps::Default(),
                                           dir.Sub("__cluster_metadata-0/00000000000000000000.log"))
                        .value();
  storage::BatchSplitter splitter(log);
  std::vector<std::pair<bool, std::optional<std::string>>> seen;
  while (true) {
    auto batch = splitter.Next();
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (!batch->has_value()) break;
    auto records = storage::DecodeRecords(**batch);
    ASSERT_TRUE(records.ok());
    seen.emplace_back(storage::RecordBatchHeader::Parse((*batch)->data()).is_control(), records->front().key);
  }
  using Seen = std::vector<std::pair<bool, std::optional<std::string>>>;
  EXPECT_EQ(seen, (Seen{{false, std::nullopt},
                        {true, EncodeControlKey(kKraftVersionControlType)},
                        {true, EncodeControlKey(kKraftVotersControlType)},
                        {false, std::nullopt}}));
}

TEST(RaftStorage, AControlBatchOfAnotherTypeIsAPreciseError) {
  testing::TempDir dir;
  {
    auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->Save(ReadyWith({{1, 1, "x"}}, {1, 1, 1})).ok());
    ASSERT_TRUE((*s)->Close().ok());
  }
  {
    // A LEADER_CHANGE record (type 2), which Strata's metadata log never holds.
    storage::LogOptions options;
    options.dir = dir.Sub("__cluster_metadata-0");
    auto log = storage::Log::Open(options);
    ASSERT_TRUE(log.ok()) << log.status();
    std::string batch = storage::RecordBatchBuilder()
                            .set_base_offset(1)
                            .set_partition_leader_epoch(1)
                            .set_control(true)
                            .Add(EncodeControlKey(2), std::string("x"), 0)
                            .Build();
    ASSERT_TRUE((*log)->AppendAsFollower(batch).ok());
    ASSERT_TRUE((*log)->Close().ok());
  }
  auto s = RaftStorage::Open(*storage::FileOps::Default(), dir.path());
  ASSERT_TRUE(s.ok()) << s.status();
  auto entries = (*s)->ReadEntries();
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(storage::ErrcOf(entries.status()), storage::Errc::kInconsistentLog);
  EXPECT_NE(entries.status().message().find("control record type 2 is not KRAFT_VERSION (5) or KRAFT_VOTERS (6)"),
            absl::string_view::npos)
      << entries.status();
}

}  // namespace
}  // namespace strata::raft
