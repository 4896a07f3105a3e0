// JWT validation for OAUTHBEARER: tokens signed here with OpenSSL (RS256 and ES256 keys
// made for the test, published as a JWKS) are accepted with their subject and expiry;
// every way a token can be wrong is refused: another key, a changed payload, alg none or
// HS256, expired, not yet valid, the wrong issuer or audience, no subject, no exp, a
// kid the JWKS lacks, garbage.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "security/jwt.h"
#include "tests/support/test_jwt.h"

namespace strata::security {
namespace {

using json = nlohmann::json;
using testing::B64;
using testing::Ec;
using testing::Rsa;
using testing::TestKey;

constexpr int64_t kNowMs = 1'800'000'000'000;

json Claims(std::string sub = "alice") {
  return {{"sub", sub}, {"iss", "https://issuer.test"}, {"aud", {"kafka", "other"}}, {"iat", kNowMs / 1000 - 10},
          {"exp", kNowMs / 1000 + 600}, {"scope", "produce consume"}};
}

class Jwt : public ::testing::Test {
 protected:
  void SetUp() override {
    json jwks = {{"keys", {rsa_->Jwk(), ec_->Jwk(), {{"kty", "oct"}, {"kid", "shared"}, {"k", "c2VjcmV0"}}}}};
    auto parsed = JwkSet::Parse(jwks.dump());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    keys_ = *std::move(parsed);
    validation_.expected_issuer = "https://issuer.test";
    validation_.expected_audience = {"kafka"};
  }
  absl::StatusOr<JwtClaims> Validate(const std::string& token, int64_t now = kNowMs) {
    return ValidateJwt(token, keys_, validation_, now);
  }
  std::unique_ptr<TestKey> rsa_ = Rsa("rsa-1");
  std::unique_ptr<TestKey> ec_ = Ec("ec-1");
  JwkSet keys_;
  JwtValidation validation_;
};

TEST_F(Jwt, RS256AndES256TokensOfTheJwksAreAccepted) {
  EXPECT_EQ(keys_.size(), 2u) << "the oct key is not one OAUTHBEARER verifies";
  for (const TestKey* key : {rsa_.get(), ec_.get()}) {
    auto claims = Validate(key->Sign(Claims()));
    ASSERT_TRUE(claims.ok()) << key->alg << ": " << claims.status();
    EXPECT_EQ(claims->subject, "alice");
    EXPECT_EQ(claims->expires_at_ms, (kNowMs / 1000 + 600) * 1000);
    EXPECT_EQ(claims->scope, (std::vector<std::string>{"produce", "consume"}));
  }
  // Within the clock skew of exp.
  EXPECT_TRUE(Validate(rsa_->Sign(Claims()), (kNowMs / 1000 + 620) * 1000).ok());
}

TEST_F(Jwt, EveryWrongTokenIsRefused) {
  auto other = Rsa("rsa-1");  // same kid, another key
  std::string good = rsa_->Sign(Claims());
  std::string changed = good;
  changed[good.find('.') + 5] ^= 1;  // a payload byte
  json expired = Claims();
  expired["exp"] = kNowMs / 1000 - 60;
  json not_yet = Claims();
  not_yet["nbf"] = kNowMs / 1000 + 120;
  json wrong_issuer = Claims();
  wrong_issuer["iss"] = "https://evil.test";
  json wrong_audience = Claims();
  wrong_audience["aud"] = "elsewhere";
  json no_subject = Claims();
  no_subject.erase("sub");
  json no_exp = Claims();
  no_exp.erase("exp");
  auto unknown_kid = Rsa("rsa-2");
  json none_header = {{"alg", "none"}};
  std::string alg_none = B64(none_header.dump()) + "." + B64(Claims().dump()) + ".";
  struct Case {
    const char* what;
    std::string token;
  } cases[] = {
      {"another key with the same kid", other->Sign(Claims())},
      {"a changed payload", changed},
      {"alg none", alg_none},
      {"HS256", rsa_->Sign(Claims(), "HS256")},
      {"an RS256 key named as ES256", rsa_->Sign(Claims(), "ES256")},
      {"expired", rsa_->Sign(expired)},
      {"not yet valid", ec_->Sign(not_yet)},
      {"the wrong issuer", ec_->Sign(wrong_issuer)},
      {"the wrong audience", rsa_->Sign(wrong_audience)},
      {"no subject", rsa_->Sign(no_subject)},
      {"no exp", rsa_->Sign(no_exp)},
      {"a kid the JWKS lacks", unknown_kid->Sign(Claims())},
      {"garbage", "not.a.jwt"},
      {"two parts", "abc.def"},
  };
  for (const Case& c : cases) {
    auto claims = Validate(c.token);
    EXPECT_FALSE(claims.ok()) << c.what;
    if (!claims.ok()) {
      EXPECT_EQ(claims.status().code(), absl::StatusCode::kUnauthenticated) << c.what;
      EXPECT_EQ(claims.status().message().find(c.token), std::string::npos) << c.what << ": the token leaked";
    }
  }
}

TEST(JwkSet, MalformedSetsAreRefused) {
  for (const char* bad : {"", "[]", "{\"keys\": 3}", "{\"keys\": [{\"kid\": \"x\"}]}",
                          "{\"keys\": [{\"kty\": \"RSA\", \"kid\": \"x\", \"n\": \"AQAB\"}]}",
                          "{\"keys\": [{\"kty\": \"EC\", \"crv\": \"P-256\", \"kid\": \"x\", \"x\": \"AA\", \"y\": \"AA\"}]}"}) {
    EXPECT_FALSE(JwkSet::Parse(bad).ok()) << bad;
  }
  EXPECT_EQ(JwkSet::Parse("{\"keys\": []}")->size(), 0u);
}

}  // namespace
}  // namespace strata::security
