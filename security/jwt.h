#pragma once
// JSON Web Tokens for SASL/OAUTHBEARER (KIP-768's validation): a compact JWS (RFC 7515)
// signed with RS256 (RSASSA-PKCS1-v1_5, SHA-256) or ES256 (ECDSA P-256, SHA-256), checked
// against a JSON Web Key Set (RFC 7517: RSA keys by n and e, EC P-256 keys by x and y,
// chosen by the token's kid), then its claims: exp (required), nbf and iat within the
// clock skew, iss equal to the expected issuer and aud naming an expected audience when
// those are configured, and the subject claim (sasl.oauthbearer.sub.claim.name, default
// sub) present. alg=none and other algorithms are refused. Every failure's message says
// what failed, never the token.
// Thread-safe (immutable values and functions).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::security {

class JwkSet {
 public:
  // The keys of a JWKS document ({"keys": [...]}); keys of other kinds or curves are
  // skipped, a key that does not parse is an error.
  static absl::StatusOr<JwkSet> Parse(absl::string_view json);
  size_t size() const { return keys_.size(); }

  struct Key;  // an OpenSSL public key and its algorithm
  const Key* Find(const std::string& kid) const;

 private:
  std::map<std::string, std::shared_ptr<const Key>> keys_;  // by kid
};

struct JwtValidation {
  std::string expected_issuer;                  // empty: not checked
  std::vector<std::string> expected_audience;   // empty: not checked
  int64_t clock_skew_seconds = 30;
  std::string sub_claim_name = "sub";
  std::string scope_claim_name = "scope";
};

struct JwtClaims {
  std::string subject;
  int64_t expires_at_ms = 0;
  std::vector<std::string> scope;
};

// UNAUTHENTICATED with the reason when the token is not valid at now_ms.
absl::StatusOr<JwtClaims> ValidateJwt(absl::string_view token, const JwkSet& keys, const JwtValidation& validation,
                                      int64_t now_ms);

}  // namespace strata::security
