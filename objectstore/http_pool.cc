#include "objectstore/http_pool.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::objectstore {
namespace {

struct Transfer {
  absl::string_view upload;
  size_t uploaded = 0;
  HttpResponse* response = nullptr;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->response->body.append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  absl::string_view line(data, size * count);
  if (absl::StartsWith(line, "HTTP/")) {  // a new status line (after a 100 Continue, say)
    t->response->headers.clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon != absl::string_view::npos) {
    std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(line.substr(0, colon)));
    std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    if (name == "content-length") {
      uint64_t length = 0;
      // The body's room at once (a ranged GET of a chunk: one allocation, no regrowth).
      if (absl::SimpleAtoi(value, &length) && length <= (uint64_t{1} << 31)) t->response->body.reserve(length);
    }
    t->response->headers[std::move(name)] = std::move(value);
  }
  return size * count;
}

size_t OnRead(char* buffer, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = std::min(size * count, t->upload.size() - t->uploaded);
  std::memcpy(buffer, t->upload.data() + t->uploaded, n);
  t->uploaded += n;
  return n;
}

// curl rewinds the body when it must send it again (a redirect, an authentication retry).
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > t->upload.size()) return CURL_SEEKFUNC_FAIL;
  t->uploaded = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

}  // namespace

HttpPool::HttpPool(HttpPoolOptions options) : options_(std::move(options)) {
  ABSL_CHECK_GT(options_.max_connections, 0);
  static std::once_flag initialized;
  std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpPool::~HttpPool() {
  absl::MutexLock lock(&mu_);
  ABSL_CHECK_EQ(static_cast<int>(idle_.size()), created_) << "an exchange is running while its pool is destroyed";
  for (CURL* handle : idle_) curl_easy_cleanup(handle);
}

CURL* HttpPool::Acquire() {
  absl::MutexLock lock(&mu_);
  auto available = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !idle_.empty() || created_ < options_.max_connections;
  };
  mu_.Await(absl::Condition(&available));
  if (!idle_.empty()) {
    CURL* handle = idle_.back();
    idle_.pop_back();
    return handle;
  }
  CURL* handle = curl_easy_init();
  ABSL_CHECK(handle != nullptr) << "curl_easy_init failed";
  ++created_;
  return handle;
}

void HttpPool::Release(CURL* handle) {
  curl_easy_reset(handle);  // the options go, the live connection stays
  absl::MutexLock lock(&mu_);
  idle_.push_back(handle);
}

absl::StatusOr<HttpResponse> HttpPool::Exchange(const HttpRequest& request) {
  HttpResponse response;
  Transfer transfer;
  transfer.upload = request.body;
  transfer.response = &response;
  CURL* curl = Acquire();
  char error[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) {
    headers = curl_slist_append(headers, absl::StrCat(name, ": ", value).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
  if (request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, OnRead);
    curl_easy_setopt(curl, CURLOPT_READDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, OnSeek);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(headers);
  Release(curl);
  {
    absl::MutexLock lock(&mu_);
    ++exchanges_;
    if (rc != CURLE_OK) ++transport_errors_;
  }
  if (rc != CURLE_OK) {
    std::string what = absl::StrCat(request.method, " ", request.url, ": ", error[0] != '\0' ? error : curl_easy_strerror(rc));
    if (rc == CURLE_OPERATION_TIMEDOUT) return absl::DeadlineExceededError(what);
    return absl::UnavailableError(what);
  }
  return response;
}

HttpPool::Stats HttpPool::stats() const {
  absl::MutexLock lock(&mu_);
  Stats out;
  out.exchanges = exchanges_;
  out.transport_errors = transport_errors_;
  out.open_handles = created_;
  return out;
}

}  // namespace strata::objectstore
