// The S3 client against a real S3 server (MinIO on loopback, tests/support/s3_test_server.h)
// and, for faults, the fault proxy in front of it: every call the remote tier makes, both
// addressing styles, paging, multipart uploads with checksums, precise errors that are
// not retried, and the ones that are (SlowDown, 500, resets, a slow store) retried
// within the call's deadline.
#include "objectstore/s3_client.h"

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "tests/support/s3_test_server.h"

namespace strata::objectstore {
namespace {

using namespace std::chrono_literals;
using testing::S3TestServer;

class S3ClientTest : public ::testing::Test {
 protected:
  void StartServer(bool with_proxy) {
    auto server = S3TestServer::Start(with_proxy);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  S3ClientOptions Options() { return server_->ClientOptions(); }
  static std::string Bytes(size_t n, char seed) {
    std::string out(n, '\0');
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>(seed + i * 7 + i / 251);
    return out;
  }
  std::unique_ptr<S3TestServer> server_;
};

TEST_F(S3ClientTest, PutGetRangesHeadAndDelete) {
  StartServer(false);
  S3Client client(Options());
  const std::string body = Bytes(100000, 'a');
  ASSERT_TRUE(client.PutObject("p/k 1+x.bin", body).ok());
  auto whole = client.GetObject("p/k 1+x.bin");
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(*whole, body);
  auto range = client.GetRange("p/k 1+x.bin", 1000, 2000);
  ASSERT_TRUE(range.ok()) << range.status();
  EXPECT_EQ(range->bytes, body.substr(1000, 1000));
  EXPECT_EQ(range->object_size, body.size());
  auto clipped = client.GetRange("p/k 1+x.bin", 99990, 200000);
  ASSERT_TRUE(clipped.ok()) << clipped.status();
  EXPECT_EQ(clipped->bytes, body.substr(99990));
  auto past = client.GetRange("p/k 1+x.bin", 100000, 100010);
  ASSERT_TRUE(past.ok()) << past.status();
  EXPECT_EQ(past->bytes, "");
  EXPECT_EQ(past->object_size, body.size());
  auto suffix = client.GetSuffix("p/k 1+x.bin", 24);
  ASSERT_TRUE(suffix.ok()) << suffix.status();
  EXPECT_EQ(suffix->bytes, body.substr(body.size() - 24));
  auto longer = client.GetSuffix("p/k 1+x.bin", 1 << 20);
  ASSERT_TRUE(longer.ok()) << longer.status();
  EXPECT_EQ(longer->bytes, body);
  EXPECT_EQ(*client.HeadObject("p/k 1+x.bin"), body.size());

  ASSERT_TRUE(client.DeleteObject("p/k 1+x.bin").ok());
  EXPECT_TRUE(client.DeleteObject("p/k 1+x.bin").ok()) << "deleting a deleted key is no error";
  auto gone = client.GetObject("p/k 1+x.bin");
  EXPECT_TRUE(absl::IsNotFound(gone.status())) << gone.status();
  EXPECT_NE(gone.status().message().find("NoSuchKey"), std::string::npos) << gone.status();
  EXPECT_TRUE(absl::IsNotFound(client.HeadObject("p/k 1+x.bin").status()));
  EXPECT_EQ(client.stats().retries, 0);
}

TEST_F(S3ClientTest, VirtualHostedAddressing) {
  StartServer(false);
  S3ClientOptions options = Options();
  // curl resolves every *.localhost name to the loopback; MinIO serves buckets as
  // subdomains of MINIO_DOMAIN=localhost.
  options.endpoint = absl::StrCat("http://localhost:", server_->minio_endpoint().substr(server_->minio_endpoint().rfind(':') + 1));
  options.path_style = false;
  S3Client client(options);
  ASSERT_TRUE(client.PutObject("v/key", "virtual").ok());
  S3Client path_style(Options());
  EXPECT_EQ(*path_style.GetObject("v/key"), "virtual");
  auto page = client.ListObjectsV2("v/", "");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "v/key");
}

TEST_F(S3ClientTest, MultipartUploadWithChecksums) {
  StartServer(false);
  S3Client client(Options());
  const std::string first = Bytes(5 << 20, 'm');
  const std::string last = Bytes(12345, 'n');
  auto id = client.CreateMultipartUpload("mp/object");
  ASSERT_TRUE(id.ok()) << id.status();
  auto p1 = client.UploadPart("mp/object", *id, 1, first);
  ASSERT_TRUE(p1.ok()) << p1.status();
  auto p2 = client.UploadPart("mp/object", *id, 2, last);
  ASSERT_TRUE(p2.ok()) << p2.status();
  ASSERT_TRUE(client.CompleteMultipartUpload("mp/object", *id, {*p1, *p2}).ok());
  EXPECT_EQ(*client.GetObject("mp/object"), first + last);

  // An aborted upload leaves no object; aborting it again is no error.
  auto aborted = client.CreateMultipartUpload("mp/aborted");
  ASSERT_TRUE(aborted.ok());
  ASSERT_TRUE(client.UploadPart("mp/aborted", *aborted, 1, first).ok());
  ASSERT_TRUE(client.AbortMultipartUpload("mp/aborted", *aborted).ok());
  EXPECT_TRUE(client.AbortMultipartUpload("mp/aborted", *aborted).ok());
  EXPECT_TRUE(absl::IsNotFound(client.HeadObject("mp/aborted").status()));

  // A part whose checksum names other bytes is refused by the server (it checks it).
  S3CompletedPart wrong = *p2;
  wrong.crc32c = Crc32cBase64("other bytes");
  auto again = client.CreateMultipartUpload("mp/wrong");
  ASSERT_TRUE(again.ok());
  auto q1 = client.UploadPart("mp/wrong", *again, 1, first);
  ASSERT_TRUE(q1.ok());
  wrong.etag = q1->etag;
  wrong.part_number = 1;
  EXPECT_FALSE(client.CompleteMultipartUpload("mp/wrong", *again, {wrong}).ok());
}

TEST_F(S3ClientTest, ListPagesAndDeleteObjects) {
  StartServer(false);
  S3Client client(Options());
  std::set<std::string> keys;
  for (int i = 0; i < 7; ++i) {
    keys.insert(absl::StrCat("list/", i));
    ASSERT_TRUE(client.PutObject(absl::StrCat("list/", i), absl::StrCat(i)).ok());
  }
  ASSERT_TRUE(client.PutObject("other/x", "x").ok());
  std::set<std::string> listed;
  std::string token;
  int pages = 0;
  do {
    auto page = client.ListObjectsV2("list/", token, 3);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const S3ObjectInfo& o : page->objects) {
      listed.insert(o.key);
      EXPECT_EQ(o.size, 1u);
      EXPECT_LT(absl::Now() - o.last_modified, absl::Minutes(5));
    }
    token = page->next_token;
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(listed, keys);
  EXPECT_EQ(pages, 3);
  std::vector<std::string> doomed(keys.begin(), keys.end());
  doomed.push_back("list/never-there");
  ASSERT_TRUE(client.DeleteObjects(doomed).ok());
  auto after = client.ListObjectsV2("list/", "");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->objects.empty());
  EXPECT_EQ(*client.GetObject("other/x"), "x");
}

TEST_F(S3ClientTest, RefusalsAreNotRetriedAndNameTheirCause) {
  StartServer(false);
  S3ClientOptions options = Options();
  options.credentials.secret_access_key = "wrong";
  S3Client client(options);
  absl::Status s = client.PutObject("k", "v");
  EXPECT_TRUE(absl::IsPermissionDenied(s)) << s;
  EXPECT_NE(s.message().find("SignatureDoesNotMatch"), std::string::npos) << s;
  EXPECT_NE(s.message().find("s3://strata-tiered/k"), std::string::npos) << s;
  EXPECT_EQ(client.stats().attempts, 1);

  S3ClientOptions missing = Options();
  missing.bucket = "no-such-bucket";
  S3Client nowhere(missing);
  auto get = nowhere.GetObject("k");
  EXPECT_TRUE(absl::IsNotFound(get.status())) << get.status();
  EXPECT_NE(get.status().message().find("NoSuchBucket"), std::string::npos) << get.status();
}

TEST_F(S3ClientTest, SlowDownErrorsAndResetsAreRetried) {
  StartServer(true);
  S3Client client(Options());
  ASSERT_TRUE(server_->Fault(R"({"mode": "status", "status": 503, "code": "SlowDown", "count": 3, "methods": ["PUT"]})").ok());
  ASSERT_TRUE(client.PutObject("r/k", "retried").ok());
  EXPECT_EQ(client.stats().retries, 3);
  ASSERT_TRUE(server_->Fault(R"({"mode": "status", "status": 500, "code": "InternalError", "count": 2})").ok());
  EXPECT_EQ(*client.GetObject("r/k"), "retried");
  ASSERT_TRUE(server_->Fault(R"({"mode": "reset", "count": 2, "methods": ["GET"]})").ok());
  auto range = client.GetRange("r/k", 0, 3);
  ASSERT_TRUE(range.ok()) << range.status();
  EXPECT_EQ(range->bytes, "ret");
  // 3 SlowDown and 2 InternalError answers retried here; of the 2 resets curl itself
  // retries one that lands on a reused connection before any answer.
  EXPECT_GE(client.stats().retries, 6);
  EXPECT_EQ(client.stats().failures, 0);
  EXPECT_NE(server_->ProxyStats()->find("\"faults\": 7"), std::string::npos) << *server_->ProxyStats();
}

TEST_F(S3ClientTest, ASlowStoreTimesAnAttemptOutAndTheRetryAnswers) {
  StartServer(true);
  S3ClientOptions options = Options();
  options.attempt_timeout = 300ms;
  S3Client client(options);
  ASSERT_TRUE(client.PutObject("slow/k", "v").ok());
  ASSERT_TRUE(server_->Fault(R"({"mode": "delay", "ms": 2000, "count": 1, "methods": ["GET"]})").ok());
  auto got = client.GetObject("slow/k");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "v");
  EXPECT_EQ(client.stats().retries, 1);
}

TEST_F(S3ClientTest, AStoreThatKeepsFailingEndsTheCallAtItsDeadline) {
  StartServer(true);
  S3ClientOptions options = Options();
  options.call_timeout = 1500ms;
  S3Client client(options);
  ASSERT_TRUE(server_->Fault(R"({"mode": "status", "status": 503, "code": "SlowDown", "count": -1})").ok());
  auto start = absl::Now();
  auto got = client.GetObject("any");
  EXPECT_TRUE(absl::IsUnavailable(got.status())) << got.status();
  EXPECT_NE(got.status().message().find("SlowDown"), std::string::npos) << got.status();
  EXPECT_NE(got.status().message().find("attempts"), std::string::npos) << got.status();
  EXPECT_GT(client.stats().retries, 1);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));

  // The store gone altogether: connection refused, retried, then Unavailable.
  ASSERT_TRUE(server_->Fault(R"({"mode": "clear"})").ok());
  server_->StopMinio();
  S3ClientOptions direct = Options();
  direct.endpoint = server_->minio_endpoint();
  direct.call_timeout = 1s;
  S3Client refused(direct);
  absl::Status s = refused.PutObject("k", "v");
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  ASSERT_TRUE(server_->StartMinio().ok());
  EXPECT_TRUE(refused.PutObject("k", "v").ok());
}

}  // namespace
}  // namespace strata::objectstore
