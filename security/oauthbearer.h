#pragma once
// SASL OAUTHBEARER on the server (RFC 7628, KIP-255, with KIP-768's validation): the
// client's one message, "n,[a=<authzid>],\x01auth=Bearer <token>\x01[<key>=<value>\x01]*\x01",
// whose token must be a JWT that jwt.h accepts against the JWKS (an authzid, when given,
// must be the token's subject). The keys come from a JwksSource (jwks_source.h).
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "security/jwks_source.h"
#include "security/jwt.h"

namespace strata::security {

struct OAuthBearerIdentity {
  std::string subject;
  int64_t expires_at_ms = 0;
};

// The identity of a valid client message at now_ms; UNAUTHENTICATED with the reason
// otherwise.
absl::StatusOr<OAuthBearerIdentity> AuthenticateOAuthBearer(absl::string_view message, JwksSource& jwks,
                                                           const JwtValidation& validation, int64_t now_ms);

}  // namespace strata::security
