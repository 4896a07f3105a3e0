#include "security/jwt.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace strata::security {

struct JwkSet::Key {
  std::string alg;  // RS256 or ES256
  EVP_PKEY* pkey = nullptr;
  ~Key() { EVP_PKEY_free(pkey); }
};

namespace {

using json = nlohmann::json;

absl::Status Invalid(absl::string_view why) { return absl::UnauthenticatedError(absl::StrCat("invalid token: ", why)); }

std::optional<std::string> Base64Url(absl::string_view text) {
  std::string out;
  if (!absl::WebSafeBase64Unescape(text, &out)) return std::nullopt;
  return out;
}

// A big-endian unsigned integer as an OpenSSL BIGNUM (owned by the caller).
BIGNUM* Bn(const std::string& bytes) {
  return BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr);
}

EVP_PKEY* FromParams(const char* type, OSSL_PARAM_BLD* bld) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* pkey = nullptr;
  if (params != nullptr && ctx != nullptr && EVP_PKEY_fromdata_init(ctx) == 1) {
    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params);
  }
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return pkey;
}

EVP_PKEY* RsaKey(const std::string& n, const std::string& e) {
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  BIGNUM* bn_n = Bn(n);
  BIGNUM* bn_e = Bn(e);
  EVP_PKEY* pkey = nullptr;
  if (bld != nullptr && bn_n != nullptr && bn_e != nullptr && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e)) {
    pkey = FromParams("RSA", bld);
  }
  BN_free(bn_n);
  BN_free(bn_e);
  OSSL_PARAM_BLD_free(bld);
  return pkey;
}

EVP_PKEY* P256Key(const std::string& x, const std::string& y) {
  if (x.size() != 32 || y.size() != 32) return nullptr;
  std::string point = "\x04" + x + y;  // uncompressed
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  EVP_PKEY* pkey = nullptr;
  if (bld != nullptr && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) &&
      OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size())) {
    pkey = FromParams("EC", bld);
  }
  OSSL_PARAM_BLD_free(bld);
  return pkey;
}

// JOSE's ES256 signature (r || s, 32 bytes each) as the DER OpenSSL verifies.
std::optional<std::string> EcdsaDer(const std::string& raw) {
  if (raw.size() != 64) return std::nullopt;
  ECDSA_SIG* sig = ECDSA_SIG_new();
  BIGNUM* r = Bn(raw.substr(0, 32));
  BIGNUM* s = Bn(raw.substr(32));
  if (sig == nullptr || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig, r, s) != 1) {
    ECDSA_SIG_free(sig);
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  int n = i2d_ECDSA_SIG(sig, &der);
  std::optional<std::string> out;
  if (n > 0) out = std::string(reinterpret_cast<char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  ECDSA_SIG_free(sig);
  return out;
}

bool Verify(EVP_PKEY* key, absl::string_view signed_part, const std::string& signature) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = ctx != nullptr && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

std::optional<json> ParseJson(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

}  // namespace

absl::StatusOr<JwkSet> JwkSet::Parse(absl::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("keys") || !doc["keys"].is_array()) {
    return absl::InvalidArgumentError("the JWKS is not a JSON object with a \"keys\" array");
  }
  JwkSet set;
  for (const json& k : doc["keys"]) {
    if (!k.is_object() || !k.contains("kty") || !k["kty"].is_string()) {
      return absl::InvalidArgumentError("a JWKS key has no \"kty\"");
    }
    std::string kty = k["kty"];
    std::string kid = k.contains("kid") && k["kid"].is_string() ? k["kid"].get<std::string>() : "";
    if (k.contains("use") && k["use"].is_string() && k["use"] != "sig") continue;
    auto field = [&](const char* name) -> std::optional<std::string> {
      if (!k.contains(name) || !k[name].is_string()) return std::nullopt;
      return Base64Url(k[name].get<std::string>());
    };
    auto key = std::make_shared<Key>();
    if (kty == "RSA") {
      std::optional<std::string> n = field("n"), e = field("e");
      if (!n || !e) return absl::InvalidArgumentError(absl::StrCat("RSA key '", kid, "' lacks n or e"));
      key->alg = "RS256";
      key->pkey = RsaKey(*n, *e);
    } else if (kty == "EC") {
      if (!k.contains("crv") || k["crv"] != "P-256") continue;  // ES256 only
      std::optional<std::string> x = field("x"), y = field("y");
      if (!x || !y) return absl::InvalidArgumentError(absl::StrCat("EC key '", kid, "' lacks x or y"));
      key->alg = "ES256";
      key->pkey = P256Key(*x, *y);
    } else {
      continue;
    }
    if (key->pkey == nullptr) return absl::InvalidArgumentError(absl::StrCat("key '", kid, "' is not a valid key"));
    set.keys_[kid] = std::move(key);
  }
  return set;
}

const JwkSet::Key* JwkSet::Find(const std::string& kid) const {
  auto it = keys_.find(kid);
  if (it != keys_.end()) return it->second.get();
  // A token without a kid may use the set's only key.
  if (kid.empty() && keys_.size() == 1) return keys_.begin()->second.get();
  return nullptr;
}

absl::StatusOr<JwtClaims> ValidateJwt(absl::string_view token, const JwkSet& keys, const JwtValidation& v,
                                      int64_t now_ms) {
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3) return Invalid("not a compact JWS (header.payload.signature)");
  std::optional<std::string> header_text = Base64Url(parts[0]);
  std::optional<std::string> payload_text = Base64Url(parts[1]);
  std::optional<std::string> signature = Base64Url(parts[2]);
  if (!header_text || !payload_text || !signature) return Invalid("a part is not base64url");
  std::optional<json> header = ParseJson(*header_text);
  std::optional<json> claims = ParseJson(*payload_text);
  if (!header || !claims) return Invalid("the header or the payload is not a JSON object");
  if (!header->contains("alg") || !(*header)["alg"].is_string()) return Invalid("the header has no alg");
  std::string alg = (*header)["alg"];
  if (alg != "RS256" && alg != "ES256") return Invalid(absl::StrCat("alg ", alg, " is not RS256 or ES256"));
  std::string kid = header->contains("kid") && (*header)["kid"].is_string() ? (*header)["kid"].get<std::string>() : "";
  const JwkSet::Key* key = keys.Find(kid);
  if (key == nullptr) return Invalid(absl::StrCat("no key '", kid, "' in the JWKS"));
  if (key->alg != alg) return Invalid(absl::StrCat("key '", kid, "' is not an ", alg, " key"));
  std::string signed_part = absl::StrCat(parts[0], ".", parts[1]);
  if (alg == "ES256") {
    std::optional<std::string> der = EcdsaDer(*signature);
    if (!der) return Invalid("an ES256 signature is 64 bytes");
    signature = der;
  }
  if (!Verify(key->pkey, signed_part, *signature)) return Invalid("the signature does not verify");

  const int64_t skew_ms = v.clock_skew_seconds * 1000;
  auto seconds = [&](const char* name) -> std::optional<int64_t> {
    if (!claims->contains(name) || !(*claims)[name].is_number()) return std::nullopt;
    return static_cast<int64_t>((*claims)[name].get<double>() * 1000);
  };
  std::optional<int64_t> exp = seconds("exp");
  if (!exp) return Invalid("no exp claim");
  if (now_ms > *exp + skew_ms) return Invalid("the token has expired");
  if (auto nbf = seconds("nbf"); nbf && now_ms + skew_ms < *nbf) return Invalid("the token is not valid yet (nbf)");
  if (auto iat = seconds("iat"); iat && now_ms + skew_ms < *iat) return Invalid("the token was issued in the future");
  if (!v.expected_issuer.empty()) {
    if (!claims->contains("iss") || (*claims)["iss"] != v.expected_issuer) return Invalid("the issuer is not the expected one");
  }
  if (!v.expected_audience.empty()) {
    std::vector<std::string> aud;
    if (claims->contains("aud") && (*claims)["aud"].is_string()) aud.push_back((*claims)["aud"]);
    if (claims->contains("aud") && (*claims)["aud"].is_array()) {
      for (const json& a : (*claims)["aud"]) {
        if (a.is_string()) aud.push_back(a);
      }
    }
    bool found = false;
    for (const std::string& a : aud) {
      for (const std::string& e : v.expected_audience) found = found || a == e;
    }
    if (!found) return Invalid("no expected audience in aud");
  }
  if (!claims->contains(v.sub_claim_name) || !(*claims)[v.sub_claim_name].is_string() ||
      (*claims)[v.sub_claim_name].get<std::string>().empty()) {
    return Invalid(absl::StrCat("no ", v.sub_claim_name, " claim"));
  }
  JwtClaims out;
  out.subject = (*claims)[v.sub_claim_name];
  out.expires_at_ms = *exp;
  if (claims->contains(v.scope_claim_name)) {
    const json& scope = (*claims)[v.scope_claim_name];
    if (scope.is_string()) {
      for (absl::string_view s : absl::StrSplit(scope.get<std::string>(), ' ', absl::SkipEmpty())) out.scope.emplace_back(s);
    } else if (scope.is_array()) {
      for (const json& s : scope) {
        if (s.is_string()) out.scope.push_back(s);
      }
    }
  }
  return out;
}

}  // namespace strata::security
