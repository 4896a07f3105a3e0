#include "objectstore/s3_client.h"

#include <openssl/evp.h>

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/check.h"
#include "objectstore/s3_xml.h"
#include "objectstore/sigv4.h"
#include "storage/crc32c.h"

namespace strata::objectstore {
namespace {

constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string Md5Base64(absl::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  ABSL_CHECK_EQ(EVP_Digest(bytes.data(), bytes.size(), out, &n, EVP_md5(), nullptr), 1);
  return absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(out), n));
}

bool RetriableStatus(long status) {
  return status == 500 || status == 502 || status == 503 || status == 504 || status == 429 || status == 408;
}

// "bytes a-b/total" (a, b, total) or "bytes */total" (total only: a = b = -1).
bool ParseContentRange(absl::string_view value, int64_t* a, int64_t* b, uint64_t* total) {
  if (!absl::ConsumePrefix(&value, "bytes ")) return false;
  size_t slash = value.find('/');
  if (slash == absl::string_view::npos || !absl::SimpleAtoi(value.substr(slash + 1), total)) return false;
  absl::string_view range = value.substr(0, slash);
  if (range == "*") {
    *a = *b = -1;
    return true;
  }
  size_t dash = range.find('-');
  return dash != absl::string_view::npos && absl::SimpleAtoi(range.substr(0, dash), a) &&
         absl::SimpleAtoi(range.substr(dash + 1), b) && *a <= *b;
}

}  // namespace

std::string Crc32cBase64(absl::string_view bytes) {
  uint32_t crc = storage::Crc32c(bytes.data(), bytes.size());
  char be[4] = {static_cast<char>(crc >> 24), static_cast<char>(crc >> 16), static_cast<char>(crc >> 8),
                static_cast<char>(crc)};
  return absl::Base64Escape(absl::string_view(be, 4));
}

S3Client::S3Client(S3ClientOptions options) : options_(std::move(options)), pool_(options_.http) {
  std::string endpoint = options_.endpoint.empty() ? absl::StrCat("https://s3.", options_.region, ".amazonaws.com")
                                                   : options_.endpoint;
  size_t scheme_end = endpoint.find("://");
  ABSL_CHECK(scheme_end != std::string::npos) << "S3 endpoint without a scheme: " << endpoint;
  scheme_ = endpoint.substr(0, scheme_end);
  authority_ = std::string(absl::StripSuffix(endpoint.substr(scheme_end + 3), "/"));
  ABSL_CHECK(!options_.bucket.empty());
}

HttpRequest S3Client::Prepare(const Call& call, absl::Time now, std::chrono::milliseconds timeout) const {
  const std::string host = options_.path_style ? authority_ : absl::StrCat(options_.bucket, ".", authority_);
  std::string path = options_.path_style ? absl::StrCat("/", options_.bucket) : "";
  if (!call.key.empty() || !options_.path_style) absl::StrAppend(&path, "/", UriEncode(call.key, true));
  CanonicalInput input;
  input.method = call.method;
  input.canonical_uri = path;
  input.query = call.query;
  input.payload_hash = !call.sign_payload   ? "UNSIGNED-PAYLOAD"
                       : call.body.empty() ? kEmptySha256
                                           : Sha256Hex(call.body);
  const std::string amz_date = absl::FormatTime("%Y%m%dT%H%M%SZ", now, absl::UTCTimeZone());
  input.headers = call.headers;
  input.headers.emplace_back("host", host);
  input.headers.emplace_back("x-amz-date", amz_date);
  input.headers.emplace_back("x-amz-content-sha256", input.payload_hash);
  if (!options_.credentials.session_token.empty()) {
    input.headers.emplace_back("x-amz-security-token", options_.credentials.session_token);
  }
  HttpRequest request;
  request.method = call.method;
  std::vector<std::string> query;
  for (const auto& [name, value] : call.query) query.push_back(absl::StrCat(UriEncode(name, false), "=", UriEncode(value, false)));
  std::sort(query.begin(), query.end());
  request.url = absl::StrCat(scheme_, "://", host, path, query.empty() ? "" : "?", absl::StrJoin(query, "&"));
  request.headers = input.headers;
  request.headers.emplace_back(
      "authorization", Authorization(input, SigningKeyId{options_.credentials.access_key_id,
                                                        options_.credentials.secret_access_key},
                                     options_.region, "s3", amz_date));
  request.body = call.body;
  request.timeout = timeout;
  return request;
}

std::string S3Client::Describe(const Call& call) const {
  return absl::StrCat(call.what, " s3://", options_.bucket, "/", call.key);
}

absl::StatusOr<HttpResponse> S3Client::Send(const Call& call, const std::function<bool(const HttpResponse&)>& accept) {
  ++calls_;
  const absl::Time deadline = absl::Now() + absl::FromChrono(options_.call_timeout);
  absl::Status last;
  std::string last_answer;  // the last HTTP answer's reason (a later attempt may only time out)
  bool every_attempt_timed_out = true;
  int attempt = 0;
  for (;; ++attempt) {
    const absl::Duration remaining = deadline - absl::Now();
    if (remaining <= absl::ZeroDuration()) break;
    auto timeout = std::min(options_.attempt_timeout,
                            std::chrono::milliseconds(std::max<int64_t>(1, absl::ToInt64Milliseconds(remaining))));
    HttpRequest request = Prepare(call, options_.now ? options_.now() : absl::Now(), timeout);
    ++attempts_;
    bytes_sent_ += static_cast<int64_t>(call.body.size());
    absl::StatusOr<HttpResponse> response = pool_.Exchange(request);
    if (response.ok()) {
      bytes_received_ += static_cast<int64_t>(response->body.size());
      const long status = response->status;
      // CompleteMultipartUpload may answer 200 with an <Error> body.
      const bool error_in_ok = status == 200 && call.method == "POST" && absl::StrContains(response->body, "<Error>");
      if ((status >= 200 && status < 300 && !error_in_ok) || (accept && accept(*response))) return response;
      // An error's body (small) is read only now: a successful GET's bytes are never scanned.
      const std::optional<std::string> code = XmlText(response->body, "Code");
      const std::optional<std::string> message = XmlText(response->body, "Message");
      const std::string reason = absl::StrCat("HTTP ", status, code ? absl::StrCat(" ", *code) : "",
                                              message ? absl::StrCat(": ", *message) : "");
      // A body that arrived other than sent (BadDigest, XAmzContentChecksumMismatch: the
      // server checked x-amz-checksum-crc32c) is sent again.
      const bool retriable =
          RetriableStatus(status) || error_in_ok ||
          (code && (*code == "RequestTimeout" || *code == "SlowDown" || *code == "InternalError" ||
                    (call.method == "PUT" && (*code == "BadDigest" || *code == "XAmzContentChecksumMismatch"))));
      if (!retriable) {
        ++failures_;
        const std::string what = absl::StrCat(Describe(call), ": ", reason);
        if (status == 404) return absl::NotFoundError(what);
        if (status == 403) return absl::PermissionDeniedError(what);
        if (status == 416) return absl::OutOfRangeError(what);
        return absl::FailedPreconditionError(what);
      }
      last = absl::UnavailableError(reason);
      last_answer = reason;
      every_attempt_timed_out = false;
    } else {
      last = response.status();
      if (!absl::IsDeadlineExceeded(last)) every_attempt_timed_out = false;
    }
    // Full jitter: a random wait below the doubled backoff, within the deadline.
    const int64_t cap = std::min<int64_t>(options_.retry_backoff_max.count(),
                                          options_.retry_backoff.count() << std::min(attempt, 20));
    thread_local absl::BitGen random;
    const absl::Duration wait = absl::Milliseconds(absl::Uniform<int64_t>(random, 0, std::max<int64_t>(cap, 1)));
    if (absl::Now() + wait >= deadline) break;
    ++retries_;
    absl::SleepFor(wait);
  }
  ++failures_;
  std::string what = absl::StrCat(Describe(call), " failed after ", attempt + 1, " attempts within ",
                                  options_.call_timeout.count(), " ms: ", last.message());
  if (!last_answer.empty() && last.message() != last_answer) absl::StrAppend(&what, " (last answer: ", last_answer, ")");
  if (every_attempt_timed_out) return absl::DeadlineExceededError(what);
  return absl::UnavailableError(what);
}

absl::StatusOr<S3Client::Range> S3Client::GetRange(const std::string& key, uint64_t start, uint64_t end) {
  ABSL_CHECK_LT(start, end);
  Call call;
  call.method = "GET";
  call.key = key;
  call.what = "GetObject";
  call.headers.emplace_back("range", absl::StrCat("bytes=", start, "-", end - 1));
  auto response = Send(call, [](const HttpResponse& r) { return r.status == 416; });
  if (!response.ok()) return response.status();
  Range out;
  int64_t a = 0, b = 0;
  auto content_range = response->headers.find("content-range");
  if (response->status == 416) {
    if (content_range != response->headers.end() && ParseContentRange(content_range->second, &a, &b, &out.object_size)) {
      return out;  // start at or past the end
    }
    auto size = HeadObject(key);
    if (!size.ok()) return size.status();
    out.object_size = *size;
    return out;
  }
  if (response->status == 200) {  // the whole object: the server ignored the range
    out.object_size = response->body.size();
    if (start < out.object_size) out.bytes = response->body.substr(start, std::min(end, out.object_size) - start);
    return out;
  }
  if (content_range == response->headers.end() || !ParseContentRange(content_range->second, &a, &b, &out.object_size) ||
      a != static_cast<int64_t>(start) || b != static_cast<int64_t>(std::min(end, out.object_size)) - 1 ||
      response->body.size() != static_cast<uint64_t>(b - a + 1)) {
    return absl::DataLossError(absl::StrCat("GetObject s3://", options_.bucket, "/", key, " bytes ", start, "-", end - 1,
                                            ": answered ", response->body.size(), " bytes as range '",
                                            content_range == response->headers.end() ? "" : content_range->second, "'"));
  }
  out.bytes = std::move(response->body);
  return out;
}

absl::StatusOr<S3Client::Range> S3Client::GetSuffix(const std::string& key, uint64_t n) {
  ABSL_CHECK_GT(n, 0u);
  Call call;
  call.method = "GET";
  call.key = key;
  call.what = "GetObject";
  call.headers.emplace_back("range", absl::StrCat("bytes=-", n));
  auto response = Send(call);
  if (!response.ok()) return response.status();
  Range out;
  if (response->status == 200) {
    out.object_size = response->body.size();
    out.bytes = response->body.substr(response->body.size() - std::min<uint64_t>(n, response->body.size()));
    return out;
  }
  int64_t a = 0, b = 0;
  auto content_range = response->headers.find("content-range");
  if (content_range == response->headers.end() || !ParseContentRange(content_range->second, &a, &b, &out.object_size) ||
      b != static_cast<int64_t>(out.object_size) - 1 || response->body.size() != static_cast<uint64_t>(b - a + 1) ||
      response->body.size() != std::min<uint64_t>(n, out.object_size)) {
    return absl::DataLossError(absl::StrCat("GetObject s3://", options_.bucket, "/", key, " last ", n,
                                            " bytes: answered ", response->body.size(), " bytes as range '",
                                            content_range == response->headers.end() ? "" : content_range->second, "'"));
  }
  out.bytes = std::move(response->body);
  return out;
}

absl::StatusOr<std::string> S3Client::GetObject(const std::string& key) {
  Call call;
  call.method = "GET";
  call.key = key;
  call.what = "GetObject";
  auto response = Send(call);
  if (!response.ok()) return response.status();
  auto length = response->headers.find("content-length");
  uint64_t expected = 0;
  if (length != response->headers.end() && absl::SimpleAtoi(length->second, &expected) &&
      expected != response->body.size()) {
    return absl::DataLossError(absl::StrCat("GetObject s3://", options_.bucket, "/", key, ": ", response->body.size(),
                                            " bytes of ", expected));
  }
  return std::move(response->body);
}

absl::StatusOr<uint64_t> S3Client::HeadObject(const std::string& key) {
  Call call;
  call.method = "HEAD";
  call.key = key;
  call.what = "HeadObject";
  auto response = Send(call);
  if (!response.ok()) return response.status();
  uint64_t size = 0;
  auto length = response->headers.find("content-length");
  if (length == response->headers.end() || !absl::SimpleAtoi(length->second, &size)) {
    return absl::DataLossError(absl::StrCat("HeadObject s3://", options_.bucket, "/", key, ": no Content-Length"));
  }
  return size;
}

absl::Status S3Client::PutObject(const std::string& key, absl::string_view body) {
  Call call;
  call.method = "PUT";
  call.key = key;
  call.what = "PutObject";
  call.body = body;
  call.sign_payload = false;
  call.headers.emplace_back("content-type", "application/octet-stream");
  call.headers.emplace_back("x-amz-checksum-crc32c", Crc32cBase64(body));
  return Send(call).status();
}

absl::StatusOr<std::string> S3Client::CreateMultipartUpload(const std::string& key) {
  Call call;
  call.method = "POST";
  call.key = key;
  call.what = "CreateMultipartUpload";
  call.query.emplace_back("uploads", "");
  call.headers.emplace_back("content-type", "application/octet-stream");
  call.headers.emplace_back("x-amz-checksum-algorithm", "CRC32C");
  auto response = Send(call);
  if (!response.ok()) return response.status();
  std::optional<std::string> id = XmlText(response->body, "UploadId");
  if (!id || id->empty()) {
    return absl::DataLossError(absl::StrCat(Describe(call), ": no UploadId in the answer"));
  }
  return *id;
}

absl::StatusOr<S3CompletedPart> S3Client::UploadPart(const std::string& key, const std::string& upload_id,
                                                     int part_number, absl::string_view body) {
  Call call;
  call.method = "PUT";
  call.key = key;
  call.what = "UploadPart";
  call.query = {{"partNumber", absl::StrCat(part_number)}, {"uploadId", upload_id}};
  call.body = body;
  call.sign_payload = false;
  S3CompletedPart part;
  part.part_number = part_number;
  part.crc32c = Crc32cBase64(body);
  call.headers.emplace_back("x-amz-checksum-crc32c", part.crc32c);
  auto response = Send(call);
  if (!response.ok()) return response.status();
  auto etag = response->headers.find("etag");
  if (etag == response->headers.end()) {
    return absl::DataLossError(absl::StrCat(Describe(call), " part ", part_number, ": no ETag in the answer"));
  }
  part.etag = etag->second;
  return part;
}

absl::Status S3Client::CompleteMultipartUpload(const std::string& key, const std::string& upload_id,
                                               const std::vector<S3CompletedPart>& parts) {
  std::string body = "<CompleteMultipartUpload>";
  for (const S3CompletedPart& p : parts) {
    absl::StrAppend(&body, "<Part><PartNumber>", p.part_number, "</PartNumber><ETag>", XmlEscape(p.etag),
                    "</ETag><ChecksumCRC32C>", p.crc32c, "</ChecksumCRC32C></Part>");
  }
  body += "</CompleteMultipartUpload>";
  Call call;
  call.method = "POST";
  call.key = key;
  call.what = "CompleteMultipartUpload";
  call.query.emplace_back("uploadId", upload_id);
  call.headers.emplace_back("content-type", "application/xml");
  call.body = body;
  return Send(call).status();
}

absl::Status S3Client::AbortMultipartUpload(const std::string& key, const std::string& upload_id) {
  Call call;
  call.method = "DELETE";
  call.key = key;
  call.what = "AbortMultipartUpload";
  call.query.emplace_back("uploadId", upload_id);
  absl::Status s = Send(call, [](const HttpResponse& r) { return r.status == 404; }).status();
  return s;
}

absl::Status S3Client::DeleteObject(const std::string& key) {
  Call call;
  call.method = "DELETE";
  call.key = key;
  call.what = "DeleteObject";
  return Send(call, [](const HttpResponse& r) { return r.status == 404; }).status();
}

absl::Status S3Client::DeleteObjects(const std::vector<std::string>& keys) {
  ABSL_CHECK_LE(keys.size(), 1000u);
  if (keys.empty()) return absl::OkStatus();
  std::string body = "<Delete><Quiet>true</Quiet>";
  for (const std::string& key : keys) absl::StrAppend(&body, "<Object><Key>", XmlEscape(key), "</Key></Object>");
  body += "</Delete>";
  Call call;
  call.method = "POST";
  call.what = "DeleteObjects";
  call.query.emplace_back("delete", "");
  call.headers.emplace_back("content-type", "application/xml");
  call.headers.emplace_back("content-md5", Md5Base64(body));
  call.body = body;
  auto response = Send(call);
  if (!response.ok()) return response.status();
  for (absl::string_view error : XmlElements(response->body, "Error")) {
    return absl::UnavailableError(absl::StrCat("DeleteObjects s3://", options_.bucket, "/",
                                               XmlText(error, "Key").value_or("?"), ": ",
                                               XmlText(error, "Code").value_or("?"), ": ",
                                               XmlText(error, "Message").value_or("")));
  }
  return absl::OkStatus();
}

absl::StatusOr<S3ListPage> S3Client::ListObjectsV2(const std::string& prefix, const std::string& continuation_token,
                                                   int max_keys) {
  Call call;
  call.method = "GET";
  call.what = "ListObjectsV2";
  call.query = {{"list-type", "2"}, {"prefix", prefix}, {"max-keys", absl::StrCat(max_keys)}};
  if (!continuation_token.empty()) call.query.emplace_back("continuation-token", continuation_token);
  auto response = Send(call);
  if (!response.ok()) return response.status();
  S3ListPage page;
  for (absl::string_view contents : XmlElements(response->body, "Contents")) {
    S3ObjectInfo info;
    info.key = XmlText(contents, "Key").value_or("");
    std::string size = XmlText(contents, "Size").value_or("");
    std::string modified = XmlText(contents, "LastModified").value_or("");
    std::string error;
    if (info.key.empty() || !absl::SimpleAtoi(size, &info.size) ||
        !absl::ParseTime(absl::RFC3339_full, modified, &info.last_modified, &error)) {
      return absl::DataLossError(absl::StrCat("ListObjectsV2 s3://", options_.bucket, "/", prefix,
                                              ": an entry without a key, size or time: ", contents));
    }
    page.objects.push_back(std::move(info));
  }
  if (XmlText(response->body, "IsTruncated").value_or("false") == "true") {
    page.next_token = XmlText(response->body, "NextContinuationToken").value_or("");
    if (page.next_token.empty()) {
      return absl::DataLossError(absl::StrCat("ListObjectsV2 s3://", options_.bucket, "/", prefix,
                                              ": truncated without a continuation token"));
    }
  }
  return page;
}

absl::StatusOr<S3UploadsPage> S3Client::ListMultipartUploads(const std::string& prefix,
                                                             const std::string& key_marker,
                                                             const std::string& upload_id_marker) {
  Call call;
  call.method = "GET";
  call.what = "ListMultipartUploads";
  call.query = {{"uploads", ""}, {"prefix", prefix}};
  if (!key_marker.empty()) call.query.emplace_back("key-marker", key_marker);
  if (!upload_id_marker.empty()) call.query.emplace_back("upload-id-marker", upload_id_marker);
  auto response = Send(call);
  if (!response.ok()) return response.status();
  S3UploadsPage page;
  for (absl::string_view upload : XmlElements(response->body, "Upload")) {
    S3UploadInfo info;
    info.key = XmlText(upload, "Key").value_or("");
    info.upload_id = XmlText(upload, "UploadId").value_or("");
    std::string error;
    if (info.key.empty() || info.upload_id.empty() ||
        !absl::ParseTime(absl::RFC3339_full, XmlText(upload, "Initiated").value_or(""), &info.initiated, &error)) {
      return absl::DataLossError(absl::StrCat("ListMultipartUploads s3://", options_.bucket, "/", prefix,
                                              ": an upload without a key, id or time: ", upload));
    }
    page.uploads.push_back(std::move(info));
  }
  if (XmlText(response->body, "IsTruncated").value_or("false") == "true") {
    page.next_key_marker = XmlText(response->body, "NextKeyMarker").value_or("");
    page.next_upload_id_marker = XmlText(response->body, "NextUploadIdMarker").value_or("");
    if (page.next_key_marker.empty() && page.next_upload_id_marker.empty()) {
      return absl::DataLossError(absl::StrCat("ListMultipartUploads s3://", options_.bucket, "/", prefix,
                                              ": truncated without markers"));
    }
  }
  return page;
}

absl::Status S3Client::CreateBucket() {
  std::string body;
  if (options_.region != "us-east-1") {
    body = absl::StrCat("<CreateBucketConfiguration><LocationConstraint>", XmlEscape(options_.region),
                        "</LocationConstraint></CreateBucketConfiguration>");
  }
  Call call;
  call.method = "PUT";
  call.what = "CreateBucket";
  call.body = body;
  return Send(call, [](const HttpResponse& r) {
           return r.status == 409 && XmlText(r.body, "Code").value_or("") == "BucketAlreadyOwnedByYou";
         })
      .status();
}

S3ClientStats S3Client::stats() const {
  S3ClientStats out;
  out.calls = calls_;
  out.attempts = attempts_;
  out.retries = retries_;
  out.failures = failures_;
  out.bytes_sent = bytes_sent_;
  out.bytes_received = bytes_received_;
  return out;
}

}  // namespace strata::objectstore
