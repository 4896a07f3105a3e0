#pragma once
// S3Client: the S3 API calls the remote tier needs, on one bucket, signed with SigV4 and
// sent through an HttpPool. Every call is retried with exponential backoff and full
// jitter (a random wait in [0, min(backoff_max, backoff * 2^attempt))) while the call's
// deadline (call_timeout) allows, on what may pass: transport errors (refused, reset,
// cut short, timed out), HTTP 500, 502, 503 (SlowDown), 504, 429, 408 and S3's
// RequestTimeout. Anything else is an answer: absl::NotFoundError for NoSuchKey /
// NoSuchBucket / NoSuchUpload, PermissionDeniedError for 403, FailedPreconditionError
// for other 4xx — each message names the call, the bucket and key, S3's code and message.
// A call that ran out of attempts is UnavailableError (DeadlineExceededError when the
// last attempt timed out) with the last reason.
// Request bodies carry x-amz-checksum-crc32c, which the server checks; payloads are
// signed as UNSIGNED-PAYLOAD (the checksum is the integrity check), other calls' small
// bodies by their SHA-256. Ranged GETs check that the answer is the range asked for.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "objectstore/credentials.h"
#include "objectstore/http_pool.h"

namespace strata::objectstore {

struct S3ClientOptions {
  // scheme://host[:port] (no path); empty: https://s3.<region>.amazonaws.com
  std::string endpoint;
  std::string region = "us-east-1";
  std::string bucket;
  // true: http://host/bucket/key; false: http://bucket.host/key (virtual-hosted, AWS's).
  bool path_style = false;
  Credentials credentials;
  HttpPoolOptions http;
  std::chrono::milliseconds attempt_timeout{30000};  // rsm.config.storage.s3.api.call.attempt.timeout
  std::chrono::milliseconds call_timeout{120000};    // rsm.config.storage.s3.api.call.timeout
  std::chrono::milliseconds retry_backoff{100};
  std::chrono::milliseconds retry_backoff_max{10000};
  std::function<absl::Time()> now;  // the signing clock (null: the system's)
};

struct S3ObjectInfo {
  std::string key;
  uint64_t size = 0;
  absl::Time last_modified;
};

struct S3ListPage {
  std::vector<S3ObjectInfo> objects;
  std::string next_token;  // empty: the last page
};

struct S3CompletedPart {
  int part_number = 0;
  std::string etag;
  std::string crc32c;  // base64, as sent
};

struct S3UploadInfo {
  std::string key;
  std::string upload_id;
  absl::Time initiated;
};

struct S3UploadsPage {
  std::vector<S3UploadInfo> uploads;
  std::string next_key_marker;        // both empty: the last page
  std::string next_upload_id_marker;
};

struct S3ClientStats {
  int64_t calls = 0;
  int64_t attempts = 0;  // calls plus their retries
  int64_t retries = 0;
  int64_t failures = 0;  // calls that ended in an error (an answer or out of attempts)
  int64_t bytes_sent = 0;
  int64_t bytes_received = 0;
};

class S3Client {
 public:
  explicit S3Client(S3ClientOptions options);

  // Bytes [start, end) of key, end clipped to its size; object_size is the whole size.
  // start at or past the end: empty bytes (no error).
  struct Range {
    std::string bytes;
    uint64_t object_size = 0;
  };
  absl::StatusOr<Range> GetRange(const std::string& key, uint64_t start, uint64_t end);
  // The last n bytes of key (all of it when shorter).
  absl::StatusOr<Range> GetSuffix(const std::string& key, uint64_t n);
  absl::StatusOr<std::string> GetObject(const std::string& key);
  absl::StatusOr<uint64_t> HeadObject(const std::string& key);  // the size
  absl::Status PutObject(const std::string& key, absl::string_view body);

  absl::StatusOr<std::string> CreateMultipartUpload(const std::string& key);  // the upload id
  absl::StatusOr<S3CompletedPart> UploadPart(const std::string& key, const std::string& upload_id, int part_number,
                                             absl::string_view body);
  absl::Status CompleteMultipartUpload(const std::string& key, const std::string& upload_id,
                                       const std::vector<S3CompletedPart>& parts);
  absl::Status AbortMultipartUpload(const std::string& key, const std::string& upload_id);

  // Deleting a key that is not there is no error (S3's own answer).
  absl::Status DeleteObject(const std::string& key);
  // At most 1000 keys a call; an error names the first key the store refused.
  absl::Status DeleteObjects(const std::vector<std::string>& keys);
  absl::StatusOr<S3ListPage> ListObjectsV2(const std::string& prefix, const std::string& continuation_token,
                                           int max_keys = 1000);
  // Multipart uploads begun under prefix and neither completed nor aborted.
  absl::StatusOr<S3UploadsPage> ListMultipartUploads(const std::string& prefix, const std::string& key_marker,
                                                     const std::string& upload_id_marker);
  // Creates the bucket; one that exists and is ours is no error (tests, strata-cluster).
  absl::Status CreateBucket();

  S3ClientStats stats() const;
  const S3ClientOptions& options() const { return options_; }

  // Parts of the call, public for tests.
  struct Call {
    std::string method;
    std::string key;  // empty: the bucket itself
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::pair<std::string, std::string>> headers;  // besides host and x-amz-*
    absl::string_view body;
    bool sign_payload = true;  // false: UNSIGNED-PAYLOAD
    const char* what = "";     // the call's name in errors
  };
  // The request for one attempt of call, signed at now.
  HttpRequest Prepare(const Call& call, absl::Time now, std::chrono::milliseconds timeout) const;

 private:
  // Sends call until it is answered with a success (2xx, or an answer accepted) or can no
  // longer be retried.
  absl::StatusOr<HttpResponse> Send(const Call& call, const std::function<bool(const HttpResponse&)>& accept = nullptr);
  std::string Describe(const Call& call) const;

  const S3ClientOptions options_;
  std::string scheme_;     // http or https
  std::string authority_;  // host[:port] of the endpoint
  HttpPool pool_;

  std::atomic<int64_t> calls_{0};
  std::atomic<int64_t> attempts_{0};
  std::atomic<int64_t> retries_{0};
  std::atomic<int64_t> failures_{0};
  std::atomic<int64_t> bytes_sent_{0};
  std::atomic<int64_t> bytes_received_{0};
};

// base64 of the CRC32C of bytes, big-endian (x-amz-checksum-crc32c's form).
std::string Crc32cBase64(absl::string_view bytes);

}  // namespace strata::objectstore
