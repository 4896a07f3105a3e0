// SnapshotStore and the chunked transfer between stores: sealing, the manifest check
// on receipt, removal of partial directories at open, keeping the newest two, and
// AppliedLog's snapshot round trip.

#include "raft/snapshot_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "raft/snapshot_transfer.h"
#include "raft/state_machine.h"
#include "raft/voter_set.h"
#include "storage/file_ops.h"
#include "tests/support/temp_dir.h"

namespace strata::raft {
namespace {

storage::FileOps& Ops() { return *storage::FileOps::Default(); }

void WriteFile(const std::string& path, const std::string& data) { std::ofstream(path, std::ios::binary) << data; }

std::unique_ptr<SnapshotStore> OpenStore(const std::string& dir) {
  auto store = SnapshotStore::Open(Ops(), dir);
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

SnapshotMeta Build(SnapshotStore& store, SnapshotMeta meta, const std::string& data) {
  auto partial = store.BeginPartial(meta);
  EXPECT_TRUE(partial.ok());
  WriteFile(partial->path + "/state", data);
  WriteFile(partial->path + "/empty", "");
  EXPECT_TRUE(store.Seal(*partial).ok());
  return meta;
}

TEST(SnapshotStore, ASealedSnapshotIsFoundAgainAndPartialOnesAreRemovedAtOpen) {
  testing::TempDir tmp;
  {
    auto store = OpenStore(tmp.Sub("s"));
    Build(*store, {5, 2}, "five");
    auto left = store->BeginPartial({9, 2});  // a crash before Seal
    ASSERT_TRUE(left.ok());
    WriteFile(left->path + "/state", "half");
  }
  auto store = OpenStore(tmp.Sub("s"));
  ASSERT_TRUE(store->Latest().has_value());
  EXPECT_EQ(*store->Latest(), (SnapshotMeta{5, 2}));
  auto manifest = store->ReadManifest({5, 2});
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  ASSERT_EQ(manifest->files.size(), 2u);
  EXPECT_EQ(manifest->total_bytes(), 4);
  int partial_dirs = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.Sub("s"))) {
    partial_dirs += e.path().string().find(".partial") != std::string::npos;
  }
  EXPECT_EQ(partial_dirs, 0);
}

TEST(SnapshotStore, ADirectoryWithoutAManifestIsAnError) {
  testing::TempDir tmp;
  std::filesystem::create_directories(tmp.Sub("s/" + SnapshotDirName({3, 1})));
  auto store = SnapshotStore::Open(Ops(), tmp.Sub("s"));
  EXPECT_FALSE(store.ok());
  EXPECT_NE(std::string(store.status().message()).find("manifest.json"), std::string::npos) << store.status();
}

TEST(SnapshotStore, OnlyTheNewestTwoAreKept) {
  testing::TempDir tmp;
  auto store = OpenStore(tmp.Sub("s"));
  for (Index i = 1; i <= 4; ++i) Build(*store, {i * 10, 1}, "x");
  EXPECT_FALSE(store->Has({10, 1}));
  EXPECT_FALSE(store->Has({20, 1}));
  EXPECT_TRUE(store->Has({30, 1}));
  EXPECT_TRUE(store->Has({40, 1}));
  EXPECT_FALSE(std::filesystem::exists(store->PathOf({10, 1})));
}

TEST(SnapshotStore, APinnedSnapshotStaysWhileNewerOnesAreSealedAndGoesWithItsPin) {
  // A node restores snapshot 10 while a transfer seals 20, 30 and 40: 10 stays, with
  // its files, until the restore is done.
  testing::TempDir tmp;
  auto store = OpenStore(tmp.Sub("s"));
  Build(*store, {10, 1}, "ten");
  EXPECT_EQ(store->PinSnapshot({15, 1}), nullptr);  // not sealed
  auto pin = store->PinSnapshot({10, 1});
  ASSERT_NE(pin, nullptr);
  for (Index i = 2; i <= 4; ++i) Build(*store, {i * 10, 1}, "x");
  EXPECT_TRUE(store->Has({10, 1}));
  EXPECT_TRUE(std::filesystem::exists(store->PathOf({10, 1}) + "/state"));
  EXPECT_FALSE(store->Has({20, 1}));  // the unpinned older ones still go
  EXPECT_TRUE(store->Has({30, 1}));
  EXPECT_TRUE(store->Has({40, 1}));
  pin.reset();
  EXPECT_FALSE(store->Has({10, 1}));
  EXPECT_FALSE(std::filesystem::exists(store->PathOf({10, 1})));
  EXPECT_TRUE(store->Has({30, 1}));
  EXPECT_TRUE(store->Has({40, 1}));
}

TEST(SnapshotTransfer, ChunksRebuildTheSnapshotInAnotherStore) {
  testing::TempDir tmp;
  auto from = OpenStore(tmp.Sub("from"));
  auto to = OpenStore(tmp.Sub("to"));
  std::string big(3 * 1000 + 7, 'b');
  Build(*from, {7, 3}, big);
  SnapshotReceiver receiver(*to);
  int chunks = 0;
  absl::Status sent = ForEachSnapshotChunk(*from, Ops(), {7, 3}, [&](v1::SnapshotChunk& chunk) {
    ++chunks;
    return receiver.Accept(chunk).ok();
  }, /*chunk_bytes=*/1000);
  ASSERT_TRUE(sent.ok()) << sent;
  EXPECT_TRUE(receiver.sealed());
  EXPECT_EQ(chunks, 5);  // the empty file, then 4 chunks of state
  ASSERT_TRUE(to->Has({7, 3}));
  EXPECT_EQ(to->ReadManifest({7, 3})->files, from->ReadManifest({7, 3})->files);
}

TEST(SnapshotTransfer, ACorruptedChunkIsRefusedAndLeavesNoSnapshot) {
  testing::TempDir tmp;
  auto from = OpenStore(tmp.Sub("from"));
  auto to = OpenStore(tmp.Sub("to"));
  Build(*from, {7, 3}, "the state");
  absl::Status last = absl::OkStatus();
  {
    SnapshotReceiver receiver(*to);
    (void)ForEachSnapshotChunk(*from, Ops(), {7, 3}, [&](v1::SnapshotChunk& chunk) {
      if (chunk.file() == "state") chunk.mutable_data()->at(0) ^= 1;  // a bit flips on the way
      last = receiver.Accept(chunk);
      return last.ok();
    });
  }
  EXPECT_FALSE(last.ok());
  EXPECT_NE(std::string(last.message()).find("does not match its manifest"), std::string::npos) << last;
  EXPECT_FALSE(to->Has({7, 3}));
  EXPECT_FALSE(to->Latest().has_value());
}

TEST(SnapshotTransfer, AFileNameThatEscapesTheDirectoryIsRefused) {
  testing::TempDir tmp;
  auto to = OpenStore(tmp.Sub("to"));
  SnapshotManifest m;
  m.meta = {2, 1};
  m.files.push_back({"state", 1, 0});
  v1::SnapshotChunk chunk;
  chunk.set_index(2);
  chunk.set_term(1);
  chunk.set_manifest_json(m.ToJson());
  chunk.set_file("../../escape");
  chunk.set_data("x");
  SnapshotReceiver receiver(*to);
  absl::Status s = receiver.Accept(chunk);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("escape")));
}

// A dynamic quorum's snapshot holds its voters (KIP-853): manifest version 1 with the
// VotersRecord, found again after a restart; a static one's manifest stays version 0.
TEST(SnapshotStore, ADynamicQuorumsManifestHoldsItsVoters) {
  testing::TempDir tmp;
  std::string voters =
      VoterSet::Of({Voter{.id = 1, .directory_id = std::string(16, 'd'), .endpoints = {{"CONTROLLER", "h", 9}}}})
          ->Encode();
  {
    auto store = OpenStore(tmp.Sub("s"));
    Build(*store, {5, 2}, "static");
    Build(*store, {7, 2, voters}, "dynamic");
  }
  auto store = OpenStore(tmp.Sub("s"));
  EXPECT_EQ(store->Latest()->voters, voters);
  auto dynamic = storage::ReadWholeFile(Ops(), store->PathOf({7, 2}) + "/manifest.json");
  auto static_one = storage::ReadWholeFile(Ops(), store->PathOf({5, 2}) + "/manifest.json");
  EXPECT_NE(dynamic->find("\"version\":1"), std::string::npos) << *dynamic;
  EXPECT_NE(dynamic->find("\"voters\""), std::string::npos) << *dynamic;
  EXPECT_NE(static_one->find("\"version\":0"), std::string::npos) << *static_one;
  EXPECT_EQ(static_one->find("voters"), std::string::npos) << *static_one;
  // Voters that do not decode are a precise error.
  auto bad = SnapshotManifest::Parse(R"({"version":1,"index":3,"term":1,"files":[],"voters":"AAAA"})", "test");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'voters'"), absl::string_view::npos) << bad.status();
}

TEST(SnapshotStore, AReceivedSnapshotWithOtherVotersThanItsManifestIsRefused) {
  testing::TempDir tmp;
  auto store = OpenStore(tmp.Sub("s"));
  std::string voters =
      VoterSet::Of({Voter{.id = 1, .directory_id = std::string(16, 'd'), .endpoints = {{"CONTROLLER", "h", 9}}}})
          ->Encode();
  SnapshotManifest expected;
  expected.meta = SnapshotMeta{4, 1, voters};
  auto partial = store->BeginPartial(SnapshotMeta{4, 1});  // names no voters
  ASSERT_TRUE(partial.ok());
  absl::Status sealed = store->Seal(*partial, expected);
  EXPECT_FALSE(sealed.ok());
  EXPECT_FALSE(store->Latest().has_value());
}

TEST(AppliedLog, ASnapshotRestoresTheSameEntries) {
  testing::TempDir tmp;
  AppliedLog a;
  for (Index i = 1; i <= 50; ++i) {
    // Configuration entries keep their type through the snapshot (the simulation
    // compares the voter sets every node applied).
    EntryType type = i % 7 == 0 ? EntryType::kVoters : i % 11 == 0 ? EntryType::kKraftVersion : EntryType::kData;
    ASSERT_TRUE(a.Apply(Entry{i / 10 + 1, i, "entry" + std::to_string(i), type}).ok());
  }
  std::filesystem::create_directories(tmp.Sub("snap"));
  ASSERT_TRUE(a.SaveSnapshot(Ops(), tmp.Sub("snap")).ok());
  AppliedLog b;
  ASSERT_TRUE(b.RestoreSnapshot(Ops(), tmp.Sub("snap"), {50, 6}).ok());
  EXPECT_EQ(b.Read(1, 100), a.Read(1, 100));
  AppliedLog c;
  absl::Status wrong = c.RestoreSnapshot(Ops(), tmp.Sub("snap"), {51, 6});
  EXPECT_FALSE(wrong.ok());  // the file does not end at the snapshot's index
}

}  // namespace
}  // namespace strata::raft
