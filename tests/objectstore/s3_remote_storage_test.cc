// The remote tier on a real S3 server (MinIO on loopback): a rolled segment's objects
// come back byte for byte from any range whether it went up in one PUT or in parts, a
// byte corrupted in the store fails only the reads of its chunk, one corrupted on the
// way is read again, a failed copy leaves no object behind, deletes are idempotent, and
// every failure is the remote tier's error (Errc::kRemoteStorageError).
#include "objectstore/s3_remote_storage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "storage/errc.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "tests/storage/log_test_util.h"
#include "tests/support/s3_test_server.h"

namespace strata::objectstore {
namespace {

using namespace std::chrono_literals;
using storage::Errc;
using storage::ErrcOf;
using storage::LogSegmentData;
using storage::RemoteIndexType;
using storage::RemoteLogSegmentId;
using testing::S3TestServer;

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

class S3RemoteStorageTest : public ::testing::Test {
 protected:
  void StartServer(bool with_proxy) {
    auto server = S3TestServer::Start(with_proxy);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  std::unique_ptr<S3Client> Client(std::chrono::milliseconds call_timeout = 20s) {
    S3ClientOptions options = server_->ClientOptions();
    options.call_timeout = call_timeout;
    return std::make_unique<S3Client>(options);
  }
  std::unique_ptr<S3RemoteStorage> Remote(uint32_t chunk_bytes = 1000,
                                          std::chrono::milliseconds call_timeout = 20s) {
    S3RemoteStorageOptions options;
    options.key_prefix = "cluster-a/";
    options.chunk_bytes = chunk_bytes;
    options.part_bytes = 5 << 20;
    return std::make_unique<S3RemoteStorage>(*storage::FileOps::Default(), Client(call_timeout), options);
  }
  // A log rolled into several segments; the first segment's files.
  LogSegmentData RolledSegment() {
    storage::LogOptions options = storage::SmallLogOptions(tmp_.Sub("orders-0"));
    options.config.segment_bytes = 4096;
    auto log = storage::Log::Open(options);
    EXPECT_TRUE(log.ok()) << log.status();
    storage::AppendBatches(**log, 200, 5, "r");
    int64_t base = (*log)->segment_base_offsets().front();
    EXPECT_TRUE((*log)->Close().ok());
    LogSegmentData data;
    data.log_path = storage::SegmentFileName(options.dir, base, storage::kLogSuffix);
    data.offset_index_path = storage::SegmentFileName(options.dir, base, storage::kIndexSuffix);
    data.time_index_path = storage::SegmentFileName(options.dir, base, storage::kTimeIndexSuffix);
    data.leader_epochs = "0\n1\n0 0\n";
    return data;
  }
  // A segment whose .log takes several 5 MiB parts (its bytes need not be batches here).
  LogSegmentData LargeSegment(size_t bytes) {
    LogSegmentData data = RolledSegment();
    data.log_path = tmp_.Sub("large.log");
    std::string content(bytes, '\0');
    for (size_t i = 0; i < bytes; ++i) content[i] = static_cast<char>(i * 31 + i / 4093);
    std::ofstream(data.log_path, std::ios::binary) << content;
    return data;
  }
  RemoteLogSegmentId Id(const std::string& segment) { return {"b3JkZXJzb3JkZXJzb3JkZQ", 0, segment}; }

  testing::TempDir tmp_;
  std::unique_ptr<S3TestServer> server_;
};

TEST_F(S3RemoteStorageTest, ACopiedSegmentReadsBackByteForByteFromAnyRange) {
  StartServer(false);
  LogSegmentData data = RolledSegment();
  const std::string local = Slurp(data.log_path);
  ASSERT_GT(local.size(), 3000u);
  auto remote = Remote();
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("c2VnbWVudHNlZ21lbnRzZQ"), data).ok());
  for (auto [start, end] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, local.size()}, {0, 1}, {999, 1001}, {1000, 2000}, {1234, 2999}, {local.size() - 1, local.size()},
           {10, UINT64_MAX}, {local.size(), local.size() + 10}}) {
    auto read = remote->FetchLogSegment(Id("c2VnbWVudHNlZ21lbnRzZQ"), start, end);
    ASSERT_TRUE(read.ok()) << read.status();
    uint64_t clipped = std::min<uint64_t>(end, local.size());
    EXPECT_EQ(*read, start >= clipped ? "" : local.substr(start, clipped - start)) << start << ".." << end;
  }
  EXPECT_EQ(*remote->FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kOffset), Slurp(data.offset_index_path));
  EXPECT_EQ(*remote->FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kTimestamp), Slurp(data.time_index_path));
  EXPECT_EQ(*remote->FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kLeaderEpoch), data.leader_epochs);
  EXPECT_EQ(*remote->FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kProducerSnapshot), "");
  EXPECT_EQ(*remote->FetchIndex(Id("c2VnbWVudHNlZ21lbnRzZQ"), RemoteIndexType::kTransaction), "");
  // Six objects under the prefix and the partition, named by the copy's segment id; the
  // .log is the checksummed object of the local file.
  auto page = remote->client().ListObjectsV2("cluster-a/", "");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->objects.size(), 6u);
  for (const S3ObjectInfo& o : page->objects) {
    EXPECT_EQ(o.key.rfind("cluster-a/b3JkZXJzb3JkZXJzb3JkZQ-0/c2VnbWVudHNlZ21lbnRzZQ.", 0), 0u) << o.key;
  }
  EXPECT_EQ(*remote->client().HeadObject(remote->KeyOf(Id("c2VnbWVudHNlZ21lbnRzZQ"), ".log")),
            storage::ObjectChecksums::ObjectSize(local.size(), 1000));
  // The footer is read once per object: later reads of the .log fetch only their chunks.
  const int64_t calls = remote->client().stats().calls;
  ASSERT_TRUE(remote->FetchLogSegment(Id("c2VnbWVudHNlZ21lbnRzZQ"), 0, 10).ok());
  EXPECT_EQ(remote->client().stats().calls, calls + 1);
}

TEST_F(S3RemoteStorageTest, ALargeSegmentGoesUpInPartsAndReadsBack) {
  StartServer(false);
  LogSegmentData data = LargeSegment((12 << 20) + 12345);
  const std::string local = Slurp(data.log_path);
  auto remote = Remote(/*chunk_bytes=*/1 << 20);
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("bGFyZ2VsYXJnZWxhcmdlbA"), data).ok());
  EXPECT_EQ(*remote->client().HeadObject(remote->KeyOf(Id("bGFyZ2VsYXJnZWxhcmdlbA"), ".log")),
            storage::ObjectChecksums::ObjectSize(local.size(), 1 << 20));
  for (auto [start, end] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, local.size()}, {(5 << 20) - 10, (5 << 20) + 10}, {(12 << 20) + 1, UINT64_MAX}}) {
    auto read = remote->FetchLogSegment(Id("bGFyZ2VsYXJnZWxhcmdlbA"), start, end);
    ASSERT_TRUE(read.ok()) << read.status();
    uint64_t clipped = std::min<uint64_t>(end, local.size());
    EXPECT_TRUE(*read == local.substr(start, clipped - start)) << start << ".." << end;
  }
}

TEST_F(S3RemoteStorageTest, AByteCorruptedInTheStoreFailsOnlyTheReadsOfItsChunk) {
  StartServer(false);
  LogSegmentData data = RolledSegment();
  const std::string local = Slurp(data.log_path);
  auto remote = Remote();
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("Y29ycnVwdGNvcnJ1cHRjbw"), data).ok());
  const std::string key = remote->KeyOf(Id("Y29ycnVwdGNvcnJ1cHRjbw"), ".log");
  std::string object = *remote->client().GetObject(key);
  object[1500] ^= 0x20;
  ASSERT_TRUE(remote->client().PutObject(key, object).ok());
  auto fresh = Remote();
  auto bad = fresh->FetchLogSegment(Id("Y29ycnVwdGNvcnJ1cHRjbw"), 1400, 1600);
  EXPECT_EQ(ErrcOf(bad.status()), Errc::kRemoteStorageError);
  EXPECT_NE(bad.status().message().find("chunk 1 (bytes 1000 to 2000) fails its checksum"), absl::string_view::npos)
      << bad.status();
  auto good = fresh->FetchLogSegment(Id("Y29ycnVwdGNvcnJ1cHRjbw"), 0, 1000);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(*good, local.substr(0, 1000));
  // A cut index object fails its read, never returning its bytes.
  const std::string index_key = fresh->KeyOf(Id("Y29ycnVwdGNvcnJ1cHRjbw"), ".index");
  std::string index = *fresh->client().GetObject(index_key);
  ASSERT_TRUE(fresh->client().PutObject(index_key, index.substr(0, index.size() - 1)).ok());
  EXPECT_EQ(ErrcOf(fresh->FetchIndex(Id("Y29ycnVwdGNvcnJ1cHRjbw"), RemoteIndexType::kOffset).status()),
            Errc::kRemoteStorageError);
}

TEST_F(S3RemoteStorageTest, ABodyCorruptedOnTheWayIsReadAgain) {
  StartServer(true);
  LogSegmentData data = RolledSegment();
  const std::string local = Slurp(data.log_path);
  auto remote = Remote();
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("d2F5d2F5d2F5d2F5d2F5dw"), data).ok());
  ASSERT_TRUE(remote->FetchLogSegment(Id("d2F5d2F5d2F5d2F5d2F5dw"), 0, 1).ok());  // the footer, cached
  ASSERT_TRUE(server_->Fault(R"({"mode": "corrupt", "count": 1, "methods": ["GET"]})").ok());
  auto once = remote->FetchLogSegment(Id("d2F5d2F5d2F5d2F5d2F5dw"), 0, 3000);
  ASSERT_TRUE(once.ok()) << once.status();
  EXPECT_EQ(*once, local.substr(0, 3000));
  ASSERT_TRUE(server_->Fault(R"({"mode": "corrupt", "count": -1, "methods": ["GET"]})").ok());
  auto always = remote->FetchLogSegment(Id("d2F5d2F5d2F5d2F5d2F5dw"), 0, 3000);
  EXPECT_EQ(ErrcOf(always.status()), Errc::kRemoteStorageError);
  EXPECT_NE(always.status().message().find("fails its checksum"), absl::string_view::npos) << always.status();
  // An index object too: read again once, refused when corrupt every time.
  ASSERT_TRUE(server_->Fault(R"({"mode": "clear"})").ok());
  auto index = remote->FetchIndex(Id("d2F5d2F5d2F5d2F5d2F5dw"), RemoteIndexType::kOffset);
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_FALSE(index->empty());
  ASSERT_TRUE(server_->Fault(R"({"mode": "corrupt", "count": 1, "methods": ["GET"]})").ok());
  auto index_once = remote->FetchIndex(Id("d2F5d2F5d2F5d2F5d2F5dw"), RemoteIndexType::kOffset);
  ASSERT_TRUE(index_once.ok()) << index_once.status();
  EXPECT_EQ(*index_once, *index);
  ASSERT_TRUE(server_->Fault(R"({"mode": "corrupt", "count": -1, "methods": ["GET"]})").ok());
  EXPECT_EQ(ErrcOf(remote->FetchIndex(Id("d2F5d2F5d2F5d2F5d2F5dw"), RemoteIndexType::kOffset).status()),
            Errc::kRemoteStorageError);
}

TEST_F(S3RemoteStorageTest, AFailedCopyLeavesNoObjectAndARetrySucceeds) {
  StartServer(true);
  LogSegmentData data = LargeSegment((11 << 20) + 7);
  auto remote = Remote(1 << 20);
  // A part is refused (not retriable): the upload is aborted, nothing is left.
  ASSERT_TRUE(server_->Fault(R"({"mode": "status", "status": 400, "code": "InvalidRequest", "count": 1, "methods": ["PUT"]})").ok());
  absl::Status failed = remote->CopyLogSegmentData(Id("cmV0cnlyZXRyeXJldHJ5cg"), data);
  EXPECT_EQ(ErrcOf(failed), Errc::kRemoteStorageError) << failed;
  EXPECT_NE(failed.message().find("InvalidRequest"), std::string::npos) << failed;
  auto page = remote->client().ListObjectsV2("cluster-a/", "");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->objects.empty());
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("cmV0cnlyZXRyeXJldHJ5cg"), data).ok());
  EXPECT_EQ(*remote->FetchLogSegment(Id("cmV0cnlyZXRyeXJldHJ5cg"), 0, UINT64_MAX), Slurp(data.log_path));
}

TEST_F(S3RemoteStorageTest, DeletesAreIdempotentAndTheStoreDownIsTheRemoteTiersError) {
  StartServer(false);
  LogSegmentData data = RolledSegment();
  auto remote = Remote(1000, 1500ms);
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("Zmlyc3RmaXJzdGZpcnN0Zg"), data).ok());
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("c2Vjb25kc2Vjb25kc2Vjbw"), data).ok());
  ASSERT_TRUE(remote->FetchLogSegment(Id("Zmlyc3RmaXJzdGZpcnN0Zg"), 0, 10).ok());
  ASSERT_TRUE(remote->DeleteLogSegmentData(Id("Zmlyc3RmaXJzdGZpcnN0Zg")).ok());
  ASSERT_TRUE(remote->DeleteLogSegmentData(Id("Zmlyc3RmaXJzdGZpcnN0Zg")).ok()) << "a retried delete";
  auto gone = remote->FetchLogSegment(Id("Zmlyc3RmaXJzdGZpcnN0Zg"), 0, 10);
  EXPECT_EQ(ErrcOf(gone.status()), Errc::kRemoteStorageError) << gone.status();
  auto kept = remote->FetchLogSegment(Id("c2Vjb25kc2Vjb25kc2Vjbw"), 0, UINT64_MAX);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, Slurp(data.log_path));
  EXPECT_EQ(ErrcOf(remote->CopyLogSegmentData({"../etc", 0, "x"}, data)), Errc::kInvalidArgument);

  server_->StopMinio();
  auto down = remote->FetchIndex(Id("c2Vjb25kc2Vjb25kc2Vjbw"), RemoteIndexType::kOffset);
  EXPECT_EQ(ErrcOf(down.status()), Errc::kRemoteStorageError) << down.status();
  EXPECT_EQ(ErrcOf(remote->CopyLogSegmentData(Id("dGhpcmR0aGlyZHRoaXJkdA"), data)), Errc::kRemoteStorageError);
}

TEST_F(S3RemoteStorageTest, ListingShowsObjectsAndUnfinishedUploadsAndDeletingRemovesBoth) {
  StartServer(false);
  LogSegmentData data = RolledSegment();
  auto remote = Remote();
  ASSERT_TRUE(remote->CopyLogSegmentData(Id("bGlzdGxpc3RsaXN0bGlzdA"), data).ok());
  // An upload a crashed copy left behind: listed under its key (MinIO lists uploads by
  // exact key only; AWS by any prefix).
  const std::string left_key = remote->KeyOf(Id("bGVmdGxlZnRsZWZ0bGVmdA"), ".log");
  auto upload = remote->client().CreateMultipartUpload(left_key);
  ASSERT_TRUE(upload.ok()) << upload.status();
  std::vector<storage::RemoteObject> uploads;
  ASSERT_TRUE(remote->ListObjects(left_key.substr(std::string("cluster-a/").size()),
                                  [&](const storage::RemoteObject& o) { uploads.push_back(o); }).ok());
  ASSERT_EQ(uploads.size(), 1u);
  EXPECT_EQ(uploads[0].name, "b3JkZXJzb3JkZXJzb3JkZQ-0/bGVmdGxlZnRsZWZ0bGVmdA.log#upload=" + *upload);
  std::vector<storage::RemoteObject> listed;
  ASSERT_TRUE(remote->ListObjects("", [&](const storage::RemoteObject& o) { listed.push_back(o); }).ok());
  ASSERT_GE(listed.size(), 6u);
  std::vector<std::string> names;
  for (const storage::RemoteObject& o : listed) {
    names.push_back(o.name);
    EXPECT_EQ(o.name.rfind("b3JkZXJzb3JkZXJzb3JkZQ-0/", 0), 0u) << o.name << " (without the key prefix)";
    EXPECT_LT(absl::Now() - o.modified, absl::Minutes(5)) << o.name;
  }
  names.push_back(uploads[0].name);
  // One topic's prefix lists only it.
  int other = 0;
  ASSERT_TRUE(remote->ListObjects("b3JkZXJzb3JkZXJzb3JkZR-", [&](const storage::RemoteObject&) { ++other; }).ok());
  EXPECT_EQ(other, 0);
  ASSERT_TRUE(remote->DeleteObjects(names).ok());
  listed.clear();
  ASSERT_TRUE(remote->ListObjects("", [&](const storage::RemoteObject& o) { listed.push_back(o); }).ok());
  EXPECT_TRUE(listed.empty()) << listed.size() << " left, e.g. " << listed[0].name;
  uploads.clear();
  ASSERT_TRUE(remote->ListObjects(left_key.substr(std::string("cluster-a/").size()),
                                  [&](const storage::RemoteObject& o) { uploads.push_back(o); }).ok());
  EXPECT_TRUE(uploads.empty()) << "the upload was not aborted";
  EXPECT_EQ(ErrcOf(remote->DeleteObjects({"../x"})), Errc::kInvalidArgument);
}

TEST_F(S3RemoteStorageTest, DeletingACopyAbortsTheUploadsACrashedCopyOfItLeft) {
  StartServer(false);
  auto remote = Remote();
  const std::string key = remote->KeyOf(Id("Y3Jhc2hjcmFzaGNyYXNoYw"), ".log");
  auto upload = remote->client().CreateMultipartUpload(key);
  ASSERT_TRUE(upload.ok()) << upload.status();
  ASSERT_TRUE(remote->client().UploadPart(key, *upload, 1, std::string(5 << 20, 'x')).ok());
  auto before = remote->client().ListMultipartUploads(key, "", "");
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->uploads.size(), 1u);
  ASSERT_TRUE(remote->DeleteLogSegmentData(Id("Y3Jhc2hjcmFzaGNyYXNoYw")).ok());
  auto after = remote->client().ListMultipartUploads(key, "", "");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->uploads.empty());
}

}  // namespace
}  // namespace strata::objectstore
