#pragma once
// Signing keys for JWT tests (OAUTHBEARER): an RS256 or ES256 key made with OpenSSL, its
// public JWK (RFC 7517), and compact JWS tokens of given claims signed with it (the
// header's alg may be overridden, to make wrong tokens). Not thread-safe.

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"

namespace strata::testing {

using json = nlohmann::json;

inline std::string B64(absl::string_view bytes) { return absl::WebSafeBase64Escape(bytes); }

inline std::string BnBytes(EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key, name, &bn), 1);
  std::string out(static_cast<size_t>(BN_num_bytes(bn)), '\0');
  BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
  BN_free(bn);
  return out;
}

struct TestKey {
  EVP_PKEY* pkey = nullptr;
  std::string kid;
  std::string alg;
  ~TestKey() { EVP_PKEY_free(pkey); }

  json Jwk() const {
    if (alg == "RS256") {
      return {{"kty", "RSA"}, {"kid", kid}, {"use", "sig"}, {"n", B64(BnBytes(pkey, OSSL_PKEY_PARAM_RSA_N))},
              {"e", B64(BnBytes(pkey, OSSL_PKEY_PARAM_RSA_E))}};
    }
    unsigned char point[65];
    size_t n = 0;
    EXPECT_EQ(EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof(point), &n), 1);
    std::string p(reinterpret_cast<char*>(point), n);
    return {{"kty", "EC"}, {"kid", kid}, {"crv", "P-256"}, {"x", B64(p.substr(1, 32))}, {"y", B64(p.substr(33, 32))}};
  }

  // A compact JWS of the claims, signed with this key (header alg overridable).
  std::string Sign(const json& claims, std::string header_alg = "") const {
    json header = {{"alg", header_alg.empty() ? alg : header_alg}, {"typ", "JWT"}, {"kid", kid}};
    std::string signed_part = B64(header.dump()) + "." + B64(claims.dump());
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t len = 0;
    EXPECT_EQ(EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, pkey), 1);
    EXPECT_EQ(EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(signed_part.data()),
                             signed_part.size()), 1);
    std::string sig(len, '\0');
    EXPECT_EQ(EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                             reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()), 1);
    sig.resize(len);
    EVP_MD_CTX_free(ctx);
    if (alg == "ES256") {  // DER -> JOSE's r || s
      const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
      ECDSA_SIG* ecdsa = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
      std::string raw(64, '\0');
      BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa), reinterpret_cast<unsigned char*>(raw.data()), 32);
      BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
      ECDSA_SIG_free(ecdsa);
      sig = raw;
    }
    return signed_part + "." + B64(sig);
  }
};

inline std::unique_ptr<TestKey> Rsa(std::string kid) {
  auto k = std::make_unique<TestKey>();
  k->pkey = EVP_RSA_gen(2048);
  k->kid = std::move(kid);
  k->alg = "RS256";
  return k;
}

inline std::unique_ptr<TestKey> Ec(std::string kid) {
  auto k = std::make_unique<TestKey>();
  k->pkey = EVP_EC_gen("P-256");
  k->kid = std::move(kid);
  k->alg = "ES256";
  return k;
}

}  // namespace strata::testing
