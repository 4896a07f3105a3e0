// The SASL exchange of one connection (SaslAuthenticator) driven with encoded
// SaslHandshake and SaslAuthenticate requests: PLAIN and SCRAM succeed and give the
// principal; a wrong password, an unknown user, a mechanism the listener does not enable
// and a request out of turn each answer Kafka's error and close the connection; a v0
// handshake takes raw tokens; re-authentication keeps the principal (KIP-368).

#include <gtest/gtest.h>

#include "broker/network/sasl_authenticator.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/sasl.h"
#include "security/jaas_config.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_jwt.h"

#include <fstream>

#include "absl/time/clock.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using namespace std::string_literals;
using kafka::ErrorCode;

std::string HandshakeBody(const std::string& mechanism, int16_t version = 1) {
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteSaslHandshakeRequest({mechanism}, version, w);
  return body;
}

std::string AuthenticateBody(const std::string& token, int16_t version) {
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteSaslAuthenticateRequest({token}, version, w);
  return body;
}

kafka::SaslHandshakeResponse HandshakeAnswer(const ConnectionAuthenticator::Answer& a, int16_t version = 1) {
  kafka::Reader r(a.body);
  return *kafka::ReadSaslHandshakeResponse(r, version);
}

kafka::SaslAuthenticateResponse AuthenticateAnswer(const ConnectionAuthenticator::Answer& a, int16_t version) {
  kafka::Reader r(a.body);
  auto response = kafka::ReadSaslAuthenticateResponse(r, version);
  EXPECT_TRUE(response.ok()) << response.status();
  return response.value_or(kafka::SaslAuthenticateResponse{});
}

class SaslAuthenticatorTest : public ::testing::Test {
 protected:
  SaslAuthenticatorTest() {
    auto jaas = security::ParseJaasConfig(
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\" "
        "user_bob=\"bob-secret\";");
    config_->mechanisms = {"PLAIN", "SCRAM-SHA-512"};
    config_->plain_users = std::make_shared<security::PlainUsers>(*security::PlainUsers::FromJaas(*jaas));
    std::string salt = security::RandomSalt(security::ScramMechanism::kSha512);
    scram_ = security::CredentialFromSaltedPassword(
        security::ScramMechanism::kSha512, salt,
        security::SaltedPassword(security::ScramMechanism::kSha512, "carol-secret", salt, 4096), 4096);
    config_->scram_credential = [this](security::ScramMechanism m,
                                       const std::string& user) -> std::optional<security::ScramCredential> {
      if (m == security::ScramMechanism::kSha512 && user == "carol") return scram_;
      return std::nullopt;
    };
    config_->metrics = &metrics_;
  }

  std::shared_ptr<SaslServerConfig> config_ = std::make_shared<SaslServerConfig>();
  security::ScramCredential scram_;
  SaslMetrics metrics_;
};

TEST_F(SaslAuthenticatorTest, PlainAuthenticatesOverEveryVersion) {
  for (int16_t version : {0, 1, 2}) {
    SaslAuthenticator a(config_);
    EXPECT_FALSE(a.authenticated());
    auto handshake = a.Handshake(1, HandshakeBody("PLAIN"));
    EXPECT_FALSE(handshake.close);
    EXPECT_EQ(HandshakeAnswer(handshake).error_code, 0);
    EXPECT_EQ(HandshakeAnswer(handshake).mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-512"}));
    auto answer = a.Authenticate(version, AuthenticateBody("\0alice\0alice-secret"s, version));
    EXPECT_FALSE(answer.close);
    EXPECT_EQ(AuthenticateAnswer(answer, version).error_code, 0);
    EXPECT_EQ(AuthenticateAnswer(answer, version).session_lifetime_ms, 0);
    EXPECT_TRUE(a.authenticated());
    EXPECT_EQ(a.principal(), "User:alice");
    EXPECT_EQ(a.session_expiry(), std::chrono::steady_clock::time_point::max());
  }
  EXPECT_EQ(metrics_.successful, 3);
}

TEST_F(SaslAuthenticatorTest, AV0HandshakeTakesRawTokens) {
  SaslAuthenticator a(config_);
  auto handshake = a.Handshake(0, HandshakeBody("PLAIN", 0));
  EXPECT_EQ(HandshakeAnswer(handshake, 0).error_code, 0);
  EXPECT_TRUE(a.expects_raw_token());
  auto answer = a.RawToken("\0bob\0bob-secret"s);
  EXPECT_FALSE(answer.close);
  EXPECT_TRUE(answer.respond);
  EXPECT_TRUE(a.authenticated());
  EXPECT_EQ(a.principal(), "User:bob");
  SaslAuthenticator wrong(config_);
  wrong.Handshake(0, HandshakeBody("PLAIN", 0));
  auto refused = wrong.RawToken("\0bob\0nope"s);
  EXPECT_TRUE(refused.close);
  EXPECT_FALSE(refused.respond) << "a failed v0 exchange closes without an answer, as Kafka's";
  EXPECT_FALSE(wrong.authenticated());
}

TEST_F(SaslAuthenticatorTest, ScramAuthenticatesWithTheCredentialFromTheImage) {
  SaslAuthenticator a(config_);
  a.Handshake(1, HandshakeBody("SCRAM-SHA-512"));
  security::ScramClient client(security::ScramMechanism::kSha512, "carol", "carol-secret");
  auto first = AuthenticateAnswer(a.Authenticate(2, AuthenticateBody(client.FirstMessage(), 2)), 2);
  ASSERT_EQ(first.error_code, 0);
  EXPECT_FALSE(a.authenticated());
  auto last = AuthenticateAnswer(a.Authenticate(2, AuthenticateBody(*client.FinalMessage(first.auth_bytes), 2)), 2);
  ASSERT_EQ(last.error_code, 0);
  EXPECT_TRUE(client.Verify(last.auth_bytes).ok());
  EXPECT_TRUE(a.authenticated());
  EXPECT_EQ(a.principal(), "User:carol");
}

TEST_F(SaslAuthenticatorTest, FailuresAnswerKafkasErrorsAndClose) {
  {  // a wrong password
    SaslAuthenticator a(config_);
    a.Handshake(1, HandshakeBody("PLAIN"));
    auto answer = a.Authenticate(1, AuthenticateBody("\0alice\0wrong"s, 1));
    EXPECT_TRUE(answer.close);
    auto response = AuthenticateAnswer(answer, 1);
    EXPECT_EQ(response.error_code, static_cast<int16_t>(ErrorCode::kSaslAuthenticationFailed));
    EXPECT_EQ(response.error_message.value_or(""), "Authentication failed: Invalid username or password");
    EXPECT_FALSE(a.authenticated());
  }
  {  // a SCRAM user the image does not know
    SaslAuthenticator a(config_);
    a.Handshake(1, HandshakeBody("SCRAM-SHA-512"));
    security::ScramClient client(security::ScramMechanism::kSha512, "mallory", "x");
    auto answer = a.Authenticate(1, AuthenticateBody(client.FirstMessage(), 1));
    EXPECT_TRUE(answer.close);
    EXPECT_EQ(AuthenticateAnswer(answer, 1).error_code, static_cast<int16_t>(ErrorCode::kSaslAuthenticationFailed));
    EXPECT_EQ(AuthenticateAnswer(answer, 1).error_message.value_or("").find("mallory"), std::string::npos);
  }
  {  // a mechanism the listener does not enable
    SaslAuthenticator a(config_);
    auto answer = a.Handshake(1, HandshakeBody("SCRAM-SHA-256"));
    EXPECT_TRUE(answer.close);
    EXPECT_EQ(HandshakeAnswer(answer).error_code, static_cast<int16_t>(ErrorCode::kUnsupportedSaslMechanism));
    EXPECT_EQ(HandshakeAnswer(answer).mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-512"}));
  }
  {  // SaslAuthenticate before any handshake
    SaslAuthenticator a(config_);
    auto answer = a.Authenticate(1, AuthenticateBody("\0alice\0alice-secret"s, 1));
    EXPECT_TRUE(answer.close);
    EXPECT_EQ(AuthenticateAnswer(answer, 1).error_code, static_cast<int16_t>(ErrorCode::kIllegalSaslState));
    EXPECT_FALSE(a.authenticated());
  }
  {  // a request that does not parse
    SaslAuthenticator a(config_);
    auto answer = a.Handshake(1, "\x7f");
    EXPECT_TRUE(answer.close);
    EXPECT_FALSE(answer.respond);
  }
  EXPECT_EQ(metrics_.failed, 3);
  EXPECT_EQ(metrics_.successful, 0);
}

TEST_F(SaslAuthenticatorTest, ReauthenticationKeepsThePrincipalAndRenewsTheSession) {
  config_->max_reauth_ms = 60'000;
  SaslAuthenticator a(config_);
  a.Handshake(1, HandshakeBody("PLAIN"));
  auto answer = AuthenticateAnswer(a.Authenticate(1, AuthenticateBody("\0alice\0alice-secret"s, 1)), 1);
  EXPECT_GT(answer.session_lifetime_ms, 59'000);
  EXPECT_LE(answer.session_lifetime_ms, 60'000);
  auto first_expiry = a.session_expiry();
  EXPECT_LT(first_expiry, std::chrono::steady_clock::now() + std::chrono::milliseconds(60'001));
  // Again, as the same user: the session is renewed.
  EXPECT_EQ(HandshakeAnswer(a.Handshake(1, HandshakeBody("PLAIN"))).error_code, 0);
  EXPECT_FALSE(a.authenticated()) << "mid re-authentication";
  EXPECT_EQ(AuthenticateAnswer(a.Authenticate(1, AuthenticateBody("\0alice\0alice-secret"s, 1)), 1).error_code, 0);
  EXPECT_TRUE(a.authenticated());
  EXPECT_GT(a.session_expiry(), first_expiry);
  EXPECT_EQ(metrics_.reauthenticated, 1);
  // As another user: refused, and the connection closes.
  a.Handshake(1, HandshakeBody("PLAIN"));
  auto other = a.Authenticate(1, AuthenticateBody("\0bob\0bob-secret"s, 1));
  EXPECT_TRUE(other.close);
  EXPECT_EQ(AuthenticateAnswer(other, 1).error_code, static_cast<int16_t>(ErrorCode::kSaslAuthenticationFailed));
  EXPECT_EQ(a.principal(), "User:alice");
}

// OAUTHBEARER: a token signed by a key of the JWKS file authenticates as its subject, and
// with connections.max.reauth.ms the session ends no later than the token; a token of
// another key, an expired one and a malformed message fail and close.
TEST_F(SaslAuthenticatorTest, OAuthBearerTokensOfTheJwksAuthenticateUntilTheyExpire) {
  testing::TempDir tmp;
  auto key = testing::Rsa("k1");
  auto rogue = testing::Rsa("k1");
  {
    std::ofstream out(tmp.Sub("jwks.json"));
    out << nlohmann::json{{"keys", {key->Jwk()}}}.dump();
  }
  auto jwks = security::JwksSource::Open("file://" + tmp.Sub("jwks.json"), std::chrono::hours(1));
  ASSERT_TRUE(jwks.ok()) << jwks.status();
  config_->mechanisms = {"OAUTHBEARER"};
  config_->oauth_jwks = *jwks;
  config_->oauth_validation.expected_audience = {"kafka"};
  config_->max_reauth_ms = 3'600'000;
  const int64_t now_s = absl::ToUnixSeconds(absl::Now());
  auto message = [](const std::string& token) { return "n,,\x01" "auth=Bearer " + token + "\x01\x01"; };
  nlohmann::json claims = {{"sub", "dave"}, {"aud", "kafka"}, {"exp", now_s + 120}};
  {
    SaslAuthenticator a(config_);
    a.Handshake(1, HandshakeBody("OAUTHBEARER"));
    auto answer = AuthenticateAnswer(a.Authenticate(1, AuthenticateBody(message(key->Sign(claims)), 1)), 1);
    EXPECT_EQ(answer.error_code, 0) << answer.error_message.value_or("");
    EXPECT_TRUE(a.authenticated());
    EXPECT_EQ(a.principal(), "User:dave");
    // The token's two minutes, not the hour of connections.max.reauth.ms.
    EXPECT_LE(answer.session_lifetime_ms, 120'000);
    EXPECT_GT(answer.session_lifetime_ms, 100'000);
  }
  nlohmann::json expired = claims;
  expired["exp"] = now_s - 600;
  for (const std::string& bad : {message(rogue->Sign(claims)), message(key->Sign(expired)),
                                 std::string("n,,auth=Bearer x"), message("a.b.c")}) {
    SaslAuthenticator a(config_);
    a.Handshake(1, HandshakeBody("OAUTHBEARER"));
    auto answer = a.Authenticate(1, AuthenticateBody(bad, 1));
    EXPECT_TRUE(answer.close);
    EXPECT_EQ(AuthenticateAnswer(answer, 1).error_code, static_cast<int16_t>(ErrorCode::kSaslAuthenticationFailed));
    EXPECT_FALSE(a.authenticated());
  }
}

}  // namespace
}  // namespace strata::broker
