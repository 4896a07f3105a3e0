#pragma once
// The JSON Web Key Set OAUTHBEARER tokens are checked against (KIP-768's
// sasl.oauthbearer.jwks.endpoint.url): a file (file:///path or /path) or an HTTP(S)
// endpoint (http:// or https://, with the CA file of the listener's OAuthBearerLoginModule
// option ssl.truststore.location, as Kafka reads it, else the system's CAs). Read at
// Open (an unreachable or malformed set is an error there, at start), then by a
// background thread every refresh interval (sasl.oauthbearer.jwks.endpoint.refresh.ms)
// and soon after a token names a key id the set lacks (at most once a second), so that
// keys rotate without a restart. A failed read keeps the last good set and is logged.
// Get never waits for a read: a token whose key has just appeared may be refused once,
// as Kafka's refreshing key resolver does.
// Thread-safe.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "security/http_get.h"
#include "security/jwt.h"

namespace strata::security {

class JwksSource {
 public:
  static absl::StatusOr<std::shared_ptr<JwksSource>> Open(const std::string& url, std::chrono::milliseconds refresh,
                                                          HttpGetOptions http = {});
  ~JwksSource();  // stops the refreshing thread
  JwksSource(const JwksSource&) = delete;
  JwksSource& operator=(const JwksSource&) = delete;

  // The current set. When it lacks kid, a read is asked for (at most once a second).
  std::shared_ptr<const JwkSet> Get(const std::string& kid);
  // Reads since Open that replaced the set, and that failed (tests, metrics).
  int64_t reads() const;
  int64_t failed_reads() const;

 private:
  JwksSource(std::string url, std::chrono::milliseconds refresh, HttpGetOptions http)
      : url_(std::move(url)), refresh_(refresh), http_(std::move(http)) {}
  absl::StatusOr<std::shared_ptr<const JwkSet>> Read() const;
  void Run();

  const std::string url_;
  const std::chrono::milliseconds refresh_;
  const HttpGetOptions http_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const JwkSet> keys_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point read_at_ ABSL_GUARDED_BY(mu_);
  bool read_asked_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t reads_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_reads_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace strata::security
