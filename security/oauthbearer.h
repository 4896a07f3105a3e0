#pragma once
// SASL OAUTHBEARER on the server (RFC 7628, KIP-255, with KIP-768's validation): the
// client's one message, "n,[a=<authzid>],\x01auth=Bearer <token>\x01[<key>=<value>\x01]*\x01",
// whose token must be a JWT that jwt.h accepts against the JWKS (an authzid, when given,
// must be the token's subject). The JWKS comes from a file, `sasl.oauthbearer.jwks.
// endpoint.url` (file:// or a path), read again every refresh interval and at once (at
// most once a second) when a token names a key id it does not hold, so that keys can
// rotate without a restart.
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "security/jwt.h"

namespace strata::security {

class JwksFile {
 public:
  // url: file:///path or /path. An unreadable or malformed file is an error here (at
  // start); later, a bad read keeps the last good set.
  static absl::StatusOr<std::shared_ptr<JwksFile>> Open(const std::string& url, std::chrono::milliseconds refresh);
  // The current set; read again when older than the refresh interval, or (at most once a
  // second) when it lacks kid.
  std::shared_ptr<const JwkSet> Get(const std::string& kid);

 private:
  JwksFile(std::string path, std::chrono::milliseconds refresh) : path_(std::move(path)), refresh_(refresh) {}
  absl::StatusOr<std::shared_ptr<const JwkSet>> Read() const;

  const std::string path_;
  const std::chrono::milliseconds refresh_;
  absl::Mutex mu_;
  std::shared_ptr<const JwkSet> keys_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point read_at_ ABSL_GUARDED_BY(mu_);
};

struct OAuthBearerIdentity {
  std::string subject;
  int64_t expires_at_ms = 0;
};

// The identity of a valid client message at now_ms; UNAUTHENTICATED with the reason
// otherwise.
absl::StatusOr<OAuthBearerIdentity> AuthenticateOAuthBearer(absl::string_view message, JwksFile& jwks,
                                                           const JwtValidation& validation, int64_t now_ms);

}  // namespace strata::security
