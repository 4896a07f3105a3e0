#include "security/oauthbearer.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace strata::security {
namespace {

absl::Status Failed(absl::string_view why) { return absl::UnauthenticatedError(why); }

// The kid of a token's header, without validating anything ("" when none).
std::string KidOf(absl::string_view token) {
  std::string header;
  size_t dot = token.find('.');
  if (dot == absl::string_view::npos || !absl::WebSafeBase64Unescape(token.substr(0, dot), &header)) return "";
  nlohmann::json j = nlohmann::json::parse(header, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("kid") || !j["kid"].is_string()) return "";
  return j["kid"].get<std::string>();
}

}  // namespace

absl::StatusOr<OAuthBearerIdentity> AuthenticateOAuthBearer(absl::string_view message, JwksSource& jwks,
                                                           const JwtValidation& validation, int64_t now_ms) {
  // gs2-header "n,," or "n,a=<authzid>,", then key=value pairs each ended by \x01, and a
  // final \x01.
  if (!absl::ConsumePrefix(&message, "n,")) return Failed("invalid OAUTHBEARER message: no gs2 header");
  size_t comma = message.find(',');
  if (comma == absl::string_view::npos) return Failed("invalid OAUTHBEARER message: no gs2 header");
  absl::string_view authzid = message.substr(0, comma);
  message.remove_prefix(comma + 1);
  if (!absl::ConsumePrefix(&message, "\x01") || !absl::ConsumeSuffix(&message, "\x01\x01")) {
    return Failed("invalid OAUTHBEARER message: not \\x01-separated");
  }
  std::string token;
  for (absl::string_view kv : absl::StrSplit(message, '\x01')) {
    absl::string_view value = kv;
    if (absl::ConsumePrefix(&value, "auth=")) {
      if (!absl::ConsumePrefix(&value, "Bearer ") && !absl::ConsumePrefix(&value, "bearer ")) {
        return Failed("invalid OAUTHBEARER message: auth is not a Bearer token");
      }
      token = std::string(absl::StripAsciiWhitespace(value));
    }
  }
  if (token.empty()) return Failed("invalid OAUTHBEARER message: no auth=Bearer token");
  std::shared_ptr<const JwkSet> keys = jwks.Get(KidOf(token));
  absl::StatusOr<JwtClaims> claims = ValidateJwt(token, *keys, validation, now_ms);
  if (!claims.ok()) return claims.status();
  if (!authzid.empty() && authzid != absl::StrCat("a=", claims->subject)) {
    return Failed("the authorization id is not the token's subject");
  }
  return OAuthBearerIdentity{claims->subject, claims->expires_at_ms};
}

}  // namespace strata::security
