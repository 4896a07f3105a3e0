#pragma once
// HttpPool: HTTP/1.1 exchanges over libcurl with a bounded pool of handles. Each handle
// keeps its connection alive between exchanges (curl's own connection cache), so at most
// max_connections connections are open to the store and a caller waits for a free handle
// rather than opening more. One Exchange is one attempt: retrying is the caller's
// (S3Client), which knows what may be retried.
// HTTPS checks the server's chain and host name (against ca_file, else the system's CAs)
// unless verify_tls is off. "Expect: 100-continue" is never sent (a round trip per PUT).
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

typedef void CURL;

namespace strata::objectstore {

struct HttpPoolOptions {
  int max_connections = 32;
  std::chrono::milliseconds connect_timeout{5000};
  bool verify_tls = true;
  std::string ca_file;  // PEM CA certificates for https (empty: the system's)
};

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  absl::string_view body;  // PUT and POST: not copied, must outlive the exchange
  std::chrono::milliseconds timeout{30000};  // the whole attempt, connection included
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

// A transport failure (no HTTP answer, or an answer cut short): absl::UnavailableError,
// or DeadlineExceededError when the attempt's timeout passed; the message names the
// method, the URL and curl's reason. Any HTTP status is a response, not an error.
class HttpPool {
 public:
  explicit HttpPool(HttpPoolOptions options);
  ~HttpPool();
  HttpPool(const HttpPool&) = delete;
  HttpPool& operator=(const HttpPool&) = delete;

  absl::StatusOr<HttpResponse> Exchange(const HttpRequest& request);

  struct Stats {
    int64_t exchanges = 0;
    int64_t transport_errors = 0;
    int open_handles = 0;
  };
  Stats stats() const;

 private:
  CURL* Acquire();
  void Release(CURL* handle);

  const HttpPoolOptions options_;
  mutable absl::Mutex mu_;
  std::vector<CURL*> idle_ ABSL_GUARDED_BY(mu_);
  int created_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t exchanges_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t transport_errors_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::objectstore
