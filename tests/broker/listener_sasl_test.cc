// A SASL listener over real sockets (listener.h with SaslAuthenticator): before
// authentication only ApiVersions and the exchange are served and any other request
// closes the connection; a failed authentication answers SASL_AUTHENTICATION_FAILED and
// closes; once authenticated, requests carry the principal; a v0 handshake's raw tokens
// are answered without a header; a request after the session expired closes the
// connection; other connections are served throughout.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "absl/synchronization/mutex.h"
#include "broker/network/listener.h"
#include "broker/network/sasl_authenticator.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/sasl.h"
#include "security/jaas_config.h"
#include "tests/support/kafka_test_client.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using namespace std::chrono_literals;
using namespace std::string_literals;
using Client = testing::KafkaTestClient;

constexpr int16_t kMetadata = 3, kApiVersions = 18, kSaslHandshake = 17, kSaslAuthenticate = 36;

class ListenerSasl : public ::testing::Test {
 protected:
  void Start(int64_t max_reauth_ms = 0) {
    auto config = std::make_shared<SaslServerConfig>();
    config->mechanisms = {"PLAIN"};
    auto jaas = security::ParseJaasConfig(
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";");
    config->plain_users = std::make_shared<security::PlainUsers>(*security::PlainUsers::FromJaas(*jaas));
    config->max_reauth_ms = max_reauth_ms;
    config->metrics = &metrics_;
    ListenerOptions options;
    options.sasl = [config] { return std::make_unique<SaslAuthenticator>(config); };
    // Every request that reaches the handler is answered with an empty body, its
    // principal noted.
    auto server = Listener::Start(options, [this](const kafka::RequestHeader& header, absl::string_view,
                                                  ApiResponder respond) {
      {
        absl::MutexLock lock(&mu_);
        handled_.push_back(std::to_string(header.api_key) + " " + header.principal);
      }
      respond(std::optional<ApiResponse>(ApiResponse{}));
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  static std::string Handshake(int16_t version) {
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteSaslHandshakeRequest({"PLAIN"}, version, w);
    return Client::Frame(kSaslHandshake, version, 1, body);
  }
  static std::string Authenticate(const std::string& token) {
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteSaslAuthenticateRequest({token}, 1, w);
    return Client::Frame(kSaslAuthenticate, 1, 2, body);
  }
  // The error code of a SaslAuthenticate v1 answer (-100: no answer).
  static int16_t AuthenticateError(Client& c) {
    auto frame = c.ReadFrame();
    if (!frame) return -100;
    kafka::Reader r(*frame);
    r.Int32("correlation_id");
    auto response = kafka::ReadSaslAuthenticateResponse(r, 1);
    return response.ok() ? response->error_code : -100;
  }
  // Handshake v1 and PLAIN as alice (or with a wrong password).
  static int16_t LogIn(Client& c, const std::string& password = "alice-secret") {
    c.SendRaw(Handshake(1));
    if (!c.ReadFrame()) return -100;
    c.SendRaw(Authenticate("\0alice\0"s + password));
    return AuthenticateError(c);
  }
  std::vector<std::string> handled() {
    absl::MutexLock lock(&mu_);
    return handled_;
  }

  SaslMetrics metrics_;
  std::unique_ptr<Listener> server_;
  absl::Mutex mu_;
  std::vector<std::string> handled_ ABSL_GUARDED_BY(mu_);
};

TEST_F(ListenerSasl, OnlyApiVersionsAndTheExchangeAreServedBeforeAuthentication) {
  Start();
  Client early(server_->port());
  early.SendRaw(Client::Frame(kMetadata, 1, 1, std::string("\0\0\0\0", 4)));
  EXPECT_TRUE(early.Closed());

  Client c(server_->port());
  c.SendRaw(Client::Frame(kApiVersions, 0, 7, ""));
  ASSERT_TRUE(c.ReadFrame().has_value());
  EXPECT_EQ(LogIn(c), 0);
  c.SendRaw(Client::Frame(kMetadata, 1, 9, std::string("\0\0\0\0", 4)));
  ASSERT_TRUE(c.ReadFrame().has_value());
  EXPECT_EQ(handled(), (std::vector<std::string>{"18 User:ANONYMOUS", "3 User:alice"}));
  EXPECT_EQ(metrics_.successful, 1);
}

TEST_F(ListenerSasl, AFailedAuthenticationIsAnsweredThenClosedAndOthersAreServed) {
  Start();
  Client bad(server_->port());
  EXPECT_EQ(LogIn(bad, "wrong"), static_cast<int16_t>(kafka::ErrorCode::kSaslAuthenticationFailed));
  EXPECT_TRUE(bad.Closed());
  EXPECT_EQ(metrics_.failed, 1);
  EXPECT_EQ(server_->connections_closed_on_error(), 0) << "a client's failure is not the server's";
  Client good(server_->port());
  EXPECT_EQ(LogIn(good), 0);
  EXPECT_TRUE(handled().empty());
}

TEST_F(ListenerSasl, AV0HandshakeExchangesRawTokens) {
  Start();
  Client c(server_->port());
  c.SendRaw(Handshake(0));
  ASSERT_TRUE(c.ReadFrame().has_value());
  std::string token = "\0alice\0alice-secret"s;
  std::string raw;
  kafka::Writer(&raw).Int32(static_cast<int32_t>(token.size()));
  c.SendRaw(raw + token);
  auto answer = c.ReadFrame();  // a size-prefixed token without a header: PLAIN's is empty
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(*answer, "");
  c.SendRaw(Client::Frame(kMetadata, 1, 9, std::string("\0\0\0\0", 4)));
  ASSERT_TRUE(c.ReadFrame().has_value());
  EXPECT_EQ(handled(), (std::vector<std::string>{"3 User:alice"}));
}

TEST_F(ListenerSasl, ARequestAfterTheSessionExpiredClosesTheConnection) {
  Start(/*max_reauth_ms=*/50);
  Client c(server_->port());
  ASSERT_EQ(LogIn(c), 0);
  auto authenticated_at = std::chrono::steady_clock::now();
  // The session's end is a point in time: wait for the clock to pass it.
  ASSERT_TRUE(testing::WaitUntil([&] { return std::chrono::steady_clock::now() > authenticated_at + 60ms; }, 5s));
  c.SendRaw(Client::Frame(kMetadata, 1, 9, std::string("\0\0\0\0", 4)));
  EXPECT_TRUE(c.Closed());
  EXPECT_TRUE(handled().empty());
  // Re-authenticating in time keeps the connection.
  Client d(server_->port());
  ASSERT_EQ(LogIn(d), 0);
  ASSERT_EQ(LogIn(d), 0);
  d.SendRaw(Client::Frame(kMetadata, 1, 9, std::string("\0\0\0\0", 4)));
  EXPECT_TRUE(d.ReadFrame().has_value());
  EXPECT_EQ(metrics_.reauthenticated, 1);
}

}  // namespace
}  // namespace strata::broker
