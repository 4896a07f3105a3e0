// The embedded remote tier (DirectoryRemoteStorage over checksummed objects): a rolled
// segment's files come back byte for byte from any range, a corrupted byte is caught by
// its chunk's checksum (and only reads that touch it fail), a copy that fails leaves no
// object behind a final name, deletes are idempotent, and two copies of the same
// offsets never share objects.
#include "storage/directory_remote_storage.h"
#include "storage/transaction_index.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "storage/checksummed_object.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "tests/storage/log_test_util.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

class RemoteStorageTest : public ::testing::Test {
 protected:
  // A log rolled into several segments; returns the first segment's files.
  LogSegmentData RolledSegment() {
    LogOptions options = SmallLogOptions(tmp_.Sub("orders-0"));
    options.config.segment_bytes = 4096;
    auto log = Log::Open(options);
    EXPECT_TRUE(log.ok()) << log.status();
    AppendBatches(**log, 200, 5, "r");
    EXPECT_GE((*log)->segment_count(), 3);
    int64_t base = (*log)->segment_base_offsets().front();
    EXPECT_TRUE((*log)->Close().ok());
    LogSegmentData data;
    data.log_path = SegmentFileName(options.dir, base, kLogSuffix);
    data.offset_index_path = SegmentFileName(options.dir, base, kIndexSuffix);
    data.time_index_path = SegmentFileName(options.dir, base, kTimeIndexSuffix);
    data.leader_epochs = "0\n1\n0 0\n";
    return data;
  }

  RemoteLogSegmentId Id(const std::string& segment) { return {"b3JkZXJzb3JkZXJzb3JkZQ", 0, segment}; }

  testing::TempDir tmp_;
  std::string root_ = tmp_.Sub("remote");
};

// A segment's aborted-transaction index goes with it, and reads back as the entries it
// held; a copy made before transactions existed (no object) reads as no entry.
TEST_F(RemoteStorageTest, TheAbortedIndexIsCopiedWithItsSegment) {
  LogSegmentData data = RolledSegment();
  data.txn_index_path = tmp_.Sub("00000000000000000000.txnindex");
  {
    auto index = TransactionIndex::Open(*FileOps::Default(), data.txn_index_path);
    ASSERT_TRUE(index.ok());
    ASSERT_TRUE((*index)->Append({7, 3, 9, 10}).ok());
    ASSERT_TRUE((*index)->Append({8, 12, 20, 21}).ok());
    ASSERT_TRUE((*index)->Flush().ok());
  }
  DirectoryRemoteStorage remote(*FileOps::Default(), root_);
  ASSERT_TRUE(remote.CopyLogSegmentData(Id("dHhudHhudHhudHhudHhudA"), data).ok());
  auto copied = remote.FetchIndex(Id("dHhudHhudHhudHhudHhudA"), RemoteIndexType::kTransaction);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(*TransactionIndex::Decode(*copied, "copy"), (std::vector<AbortedTxn>{{7, 3, 9, 10}, {8, 12, 20, 21}}));
  fs::remove(root_ + "/b3JkZXJzb3JkZXJzb3JkZQ-0/dHhudHhudHhudHhudHhudA.txnindex");
  EXPECT_EQ(*remote.FetchIndex(Id("dHhudHhudHhudHhudHhudA"), RemoteIndexType::kTransaction), "");
}

TEST_F(RemoteStorageTest, ACopiedSegmentReadsBackByteForByteFromAnyRange) {
  LogSegmentData data = RolledSegment();
  const std::string local = Slurp(data.log_path);
  ASSERT_GT(local.size(), 3000u);
  DirectoryRemoteStorage remote(*FileOps::Default(), root_, /*chunk_bytes=*/1000);
  ASSERT_TRUE(remote.CopyLogSegmentData(Id("c2VnbWVudHNlZ21lbnRzZQ"), data).ok());
  for (auto [start, end] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, local.size()}, {0, 1}, {999, 1001}, {1000, 2000}, {1234, 2999}, {local.size() - 1, local.size()},
           {10, UINT64_MAX}, {local.size(), local.size() + 10}}) {
    auto read = remote.FetchLogSegment(Id("c2VnbWVudHNlZ21lbnRzZQ"), start, end);
    ASSERT_TRUE(read.ok()) << read.status();
    uint64_t clipped = std::min<uint64_t>(end, local.size());
    EXPECT_EQ(*read, start >= clipped ? "" : local.substr(start, clipped - start)) << start << ".." << end;
  }
  auto index = remote.FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kOffset);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(*index, Slurp(data.offset_index_path));
  EXPECT_EQ(*remote.FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kTimestamp), Slurp(data.time_index_path));
  EXPECT_EQ(*remote.FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kLeaderEpoch), data.leader_epochs);
  EXPECT_EQ(*remote.FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kProducerSnapshot), "");
  EXPECT_EQ(*remote.FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kTransaction), "") << "no abort in it";
  // Every object sits under its partition, named by the copy's segment id; no temporaries.
  for (const auto& e : fs::directory_iterator(root_ + "/b3JkZXJzb3JkZXJzb3JkZQ-0")) {
    EXPECT_EQ(e.path().filename().string().rfind("c2VnbWVudHNlZ21lbnRzZQ.", 0), 0u) << e.path();
    EXPECT_NE(e.path().extension(), ".tmp") << e.path();
  }
}

TEST_F(RemoteStorageTest, ACorruptedByteFailsOnlyTheReadsOfItsChunkNamingIt) {
  LogSegmentData data = RolledSegment();
  const std::string local = Slurp(data.log_path);
  DirectoryRemoteStorage remote(*FileOps::Default(), root_, /*chunk_bytes=*/1000);
  ASSERT_TRUE(remote.CopyLogSegmentData(Id("Y29ycnVwdGNvcnJ1cHRjbw"), data).ok());
  {
    std::fstream f(remote.PathOf(Id("Y29ycnVwdGNvcnJ1cHRjbw"), ".log"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1500);
    f.put(static_cast<char>(local[1500] ^ 0x20));
  }
  auto bad = remote.FetchLogSegment(Id("Y29ycnVwdGNvcnJ1cHRjbw"), 1400, 1600);
  EXPECT_EQ(ErrcOf(bad.status()), Errc::kRemoteStorageError);
  EXPECT_NE(bad.status().message().find("chunk 1 (bytes 1000 to 2000) fails its checksum"), absl::string_view::npos)
      << bad.status();
  // Other chunks still read, byte for byte.
  auto good = remote.FetchLogSegment(Id("Y29ycnVwdGNvcnJ1cHRjbw"), 0, 1000);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(*good, local.substr(0, 1000));
  // A damaged footer fails every read of that object, never returning its bytes.
  const std::string index = remote.PathOf(Id("Y29ycnVwdGNvcnJ1cHRjbw"), ".index");
  fs::resize_file(index, fs::file_size(index) - 1);
  auto cut = remote.FetchIndex(Id("Y29ycnVwdGNvcnJ1cHRjbw"), RemoteIndexType::kOffset);
  EXPECT_EQ(ErrcOf(cut.status()), Errc::kRemoteStorageError) << cut.status();
}

TEST_F(RemoteStorageTest, AFailedCopyLeavesNoObjectAndARetrySucceeds) {
  LogSegmentData data = RolledSegment();
  FaultInjectingFileOps ops;
  DirectoryRemoteStorage remote(ops, root_, /*chunk_bytes=*/1000);
  // The remote volume fills up while the time index is written.
  ops.AddRule({.path_substring = ".timeindex.tmp", .op = FaultOp::kWrite, .error = ENOSPC, .remaining = 1});
  absl::Status failed = remote.CopyLogSegmentData(Id("cmV0cnlyZXRyeXJldHJ5cg"), data);
  EXPECT_EQ(ErrcOf(failed), Errc::kRemoteStorageError) << failed;
  EXPECT_FALSE(fs::exists(remote.PathOf(Id("cmV0cnlyZXRyeXJldHJ5cg"), ".timeindex")));
  EXPECT_FALSE(fs::exists(remote.PathOf(Id("cmV0cnlyZXRyeXJldHJ5cg"), ".timeindex.tmp")));
  ASSERT_TRUE(remote.CopyLogSegmentData(Id("cmV0cnlyZXRyeXJldHJ5cg"), data).ok());
  EXPECT_EQ(*remote.FetchIndex(Id("cmV0cnlyZXRyeXJldHJ5cg"), RemoteIndexType::kTimestamp), Slurp(data.time_index_path));
}

TEST_F(RemoteStorageTest, DeletesAreIdempotentAndCopiesOfTheSameOffsetsAreSeparate) {
  LogSegmentData data = RolledSegment();
  DirectoryRemoteStorage remote(*FileOps::Default(), root_);
  // Two leaders copy the same segment under their own ids; deleting one keeps the other.
  ASSERT_TRUE(remote.CopyLogSegmentData(Id("Zmlyc3RmaXJzdGZpcnN0Zg"), data).ok());
  ASSERT_TRUE(remote.CopyLogSegmentData(Id("c2Vjb25kc2Vjb25kc2Vjbw"), data).ok());
  ASSERT_TRUE(remote.DeleteLogSegmentData(Id("Zmlyc3RmaXJzdGZpcnN0Zg")).ok());
  ASSERT_TRUE(remote.DeleteLogSegmentData(Id("Zmlyc3RmaXJzdGZpcnN0Zg")).ok()) << "a retried delete";
  auto gone = remote.FetchLogSegment(Id("Zmlyc3RmaXJzdGZpcnN0Zg"), 0, 10);
  EXPECT_EQ(ErrcOf(gone.status()), Errc::kRemoteStorageError);
  auto kept = remote.FetchLogSegment(Id("c2Vjb25kc2Vjb25kc2Vjbw"), 0, UINT64_MAX);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, Slurp(data.log_path));
  // A path-like id is refused rather than written outside the root.
  EXPECT_EQ(ErrcOf(remote.CopyLogSegmentData({"../etc", 0, "x"}, data)), Errc::kInvalidArgument);
}

}  // namespace
}  // namespace strata::storage
