// client::KafkaConnection with a ClientSecurity against a real listener (listener.h with
// TLS and a SaslAuthenticator), as the replica fetchers, the strata CLI and strata-perf
// use it: SASL_SSL with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (requests then carry the
// user's principal); a wrong password, an unknown user, a mechanism the listener does not
// enable, a broker certificate from another CA and one that does not name the host are
// each refused by Connect with the reason, and the listener serves the next client; a
// session with a lifetime (KIP-368) is re-authenticated by Call, not cut; one thread
// sending while another receives over TLS gets every answer in order.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "broker/network/listener.h"
#include "broker/network/sasl_authenticator.h"
#include "broker/network/tls_context.h"
#include "client/kafka_connection.h"
#include "security/jaas_config.h"
#include "security/scram.h"
#include "tests/support/test_certs.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using namespace std::chrono_literals;

constexpr int16_t kMetadata = 3;  // the handler answers any request with an empty body

class KafkaConnectionSecurity : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_pem_ = certs_.Make("broker", "--broker 1");
    other_ca_broker_pem_ = certs_.Make("stranger", "--broker 1 --ca other");
    no_host_pem_ = certs_.Make("nohost", "--cn nohost");
  }

  // A SASL_SSL listener (PLAIN and both SCRAMs; alice's password is alice-secret) with
  // the keystore given.
  void Start(const std::string& keystore, int64_t max_reauth_ms = 0,
             std::vector<std::string> mechanisms = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}) {
    auto config = std::make_shared<SaslServerConfig>();
    config->mechanisms = std::move(mechanisms);
    auto jaas = security::ParseJaasConfig(
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";");
    config->plain_users = std::make_shared<security::PlainUsers>(*security::PlainUsers::FromJaas(*jaas));
    config->scram_credential = [](security::ScramMechanism m,
                                  const std::string& user) -> std::optional<security::ScramCredential> {
      if (user != "alice") return std::nullopt;
      std::string salt = "salt-of-alice";
      return security::CredentialFromSaltedPassword(m, salt, security::SaltedPassword(m, "alice-secret", salt, 4096),
                                                    4096);
    };
    config->max_reauth_ms = max_reauth_ms;
    config->metrics = &metrics_;
    ListenerOptions options;
    options.tls = TlsOptions{keystore, "", TlsOptions::ClientAuth::kNone};
    options.sasl = [config] { return std::make_unique<SaslAuthenticator>(config); };
    // Every request that reaches the handler is answered with an empty body, its
    // principal noted.
    auto server = Listener::Start(options, [this](const kafka::RequestHeader& header, absl::string_view,
                                                  ApiResponder respond) {
      {
        absl::MutexLock lock(&mu_);
        principals_.push_back(header.principal);
      }
      respond(std::optional<ApiResponse>(ApiResponse{}));
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  client::ClientSecurity Alice(const std::string& mechanism, const std::string& password = "alice-secret") const {
    client::ClientSecurity s;
    s.protocol = "SASL_SSL";
    s.truststore_pem = certs_.Ca();
    s.sasl_mechanism = mechanism;
    s.username = "alice";
    s.password = password;
    return s;
  }

  absl::StatusOr<std::unique_ptr<client::KafkaConnection>> Connect(const client::ClientSecurity& security) {
    return client::KafkaConnection::Connect("127.0.0.1", server_->port(), 5s, security);
  }

  // One request through the connection; the principal the handler saw.
  std::string PrincipalOfACall(client::KafkaConnection& c) {
    auto answer = c.Call(kMetadata, 1, std::string(4, '\0'));
    EXPECT_TRUE(answer.ok()) << answer.status();
    absl::MutexLock lock(&mu_);
    return principals_.empty() ? "" : principals_.back();
  }

  testing::TestCerts certs_;
  std::string broker_pem_, other_ca_broker_pem_, no_host_pem_;
  SaslMetrics metrics_;
  std::unique_ptr<Listener> server_;
  absl::Mutex mu_;
  std::vector<std::string> principals_ ABSL_GUARDED_BY(mu_);
};

TEST_F(KafkaConnectionSecurity, EachMechanismAuthenticatesOverTls) {
  Start(broker_pem_);
  for (const char* mechanism : {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}) {
    auto c = Connect(Alice(mechanism));
    ASSERT_TRUE(c.ok()) << mechanism << ": " << c.status();
    EXPECT_EQ(PrincipalOfACall(**c), "User:alice") << mechanism;
  }
  EXPECT_EQ(metrics_.successful.load(), 3);
}

TEST_F(KafkaConnectionSecurity, RefusedCredentialsFailConnectWithTheReasonAndOthersAreServed) {
  Start(broker_pem_);
  for (const char* mechanism : {"PLAIN", "SCRAM-SHA-512"}) {
    auto wrong = Connect(Alice(mechanism, "not-alice-secret"));
    ASSERT_FALSE(wrong.ok()) << mechanism;
    EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated) << wrong.status();
    client::ClientSecurity unknown = Alice(mechanism);
    unknown.username = "mallory";
    auto refused = Connect(unknown);
    ASSERT_FALSE(refused.ok()) << mechanism;
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated) << refused.status();
  }
  EXPECT_EQ(metrics_.failed.load(), 4);
  auto good = Connect(Alice("SCRAM-SHA-512"));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(PrincipalOfACall(**good), "User:alice");
}

TEST_F(KafkaConnectionSecurity, AMechanismTheListenerDoesNotEnableIsNamed) {
  Start(broker_pem_, 0, {"PLAIN"});
  auto c = Connect(Alice("SCRAM-SHA-256"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition) << c.status();
  EXPECT_NE(c.status().message().find("does not enable SASL mechanism SCRAM-SHA-256 (it enables PLAIN)"),
            std::string::npos)
      << c.status();
  client::ClientSecurity oauth = Alice("PLAIN");
  oauth.sasl_mechanism = "OAUTHBEARER";  // not one a strata client speaks: refused before connecting
  EXPECT_EQ(Connect(oauth).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(KafkaConnectionSecurity, ABrokerCertificateFromAnotherCaIsRefused) {
  Start(other_ca_broker_pem_);
  auto c = Connect(Alice("PLAIN"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable) << c.status();
  EXPECT_NE(c.status().message().find("TLS handshake"), std::string::npos) << c.status();
  EXPECT_EQ(metrics_.successful.load() + metrics_.failed.load(), 0);  // no credential went out
}

TEST_F(KafkaConnectionSecurity, ACertificateThatDoesNotNameTheHostIsRefusedUnlessTheCheckIsOff) {
  Start(no_host_pem_);
  auto c = Connect(Alice("PLAIN"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable) << c.status();
  EXPECT_NE(c.status().message().find("mismatch"), std::string::npos) << c.status();
  client::ClientSecurity unchecked = Alice("PLAIN");
  unchecked.verify_hostname = false;  // ssl.endpoint.identification.algorithm=
  auto d = Connect(unchecked);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(PrincipalOfACall(**d), "User:alice");
}

// A keystore replaced on the running listener (a broker's dynamic
// listener.name.<l>.ssl.keystore.location): the connections made after it get the new
// certificate, one made before keeps working over the old; a file that does not load
// changes nothing.
TEST_F(KafkaConnectionSecurity, AReloadedKeystoreServesTheConnectionsAfterItAndTheOpenOnesKeepTheirs) {
  Start(broker_pem_);
  auto before = Connect(Alice("PLAIN"));
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(server_->ReloadTls(TlsOptions{other_ca_broker_pem_, "", TlsOptions::ClientAuth::kNone}).ok());
  auto after = Connect(Alice("PLAIN"));
  ASSERT_FALSE(after.ok()) << "the new certificate is another CA's";
  EXPECT_NE(after.status().message().find("TLS handshake"), std::string::npos) << after.status();
  EXPECT_EQ(PrincipalOfACall(**before), "User:alice") << "the open connection keeps its certificate";
  absl::Status missing = server_->ReloadTls(TlsOptions{certs_.dir() + "/none.pem", "", TlsOptions::ClientAuth::kNone});
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("ssl.keystore.location"), std::string::npos) << missing;
  EXPECT_FALSE(Connect(Alice("PLAIN")).ok()) << "a file that does not load changes nothing";
  ASSERT_TRUE(server_->ReloadTls(TlsOptions{broker_pem_, "", TlsOptions::ClientAuth::kNone}).ok());
  auto again = Connect(Alice("PLAIN"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrincipalOfACall(**again), "User:alice");
}

TEST(ListenerTlsKey, NamesAListenersKeystoreOrTruststore) {
  auto key = ParseListenerTlsKey("listener.name.sasl_ssl.ssl.keystore.location");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->listener, "sasl_ssl");
  EXPECT_EQ(key->setting, "ssl.keystore.location");
  key = ParseListenerTlsKey("listener.name.external.ssl.truststore.location");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->setting, "ssl.truststore.location");
  for (const char* other : {"ssl.keystore.location", "listener.name..ssl.keystore.location",
                            "listener.name.a.b.ssl.keystore.location", "listener.name.ssl.ssl.keystore.type",
                            "log.retention.ms"}) {
    EXPECT_FALSE(ParseListenerTlsKey(other).has_value()) << other;
  }
  EXPECT_TRUE(CheckTlsFile("ssl.truststore.location", "/nonexistent").message().find("ssl.truststore.location") !=
              std::string::npos);
}

TEST_F(KafkaConnectionSecurity, CallReauthenticatesBeforeTheSessionEnds) {
  Start(broker_pem_, /*max_reauth_ms=*/300);
  auto c = Connect(Alice("SCRAM-SHA-256"));
  ASSERT_TRUE(c.ok()) << c.status();
  // Calls for well past three session lifetimes: each one answered on this connection.
  const auto until = std::chrono::steady_clock::now() + 1200ms;
  int calls = 0;
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_EQ(PrincipalOfACall(**c), "User:alice") << "call " << calls;
    ++calls;
    std::this_thread::sleep_for(20ms);  // paces the calls; nothing waits on another thread
  }
  EXPECT_GE(metrics_.reauthenticated.load(), 3);
}

TEST_F(KafkaConnectionSecurity, OneThreadSendsWhileAnotherReceivesOverTls) {
  Start(broker_pem_);
  auto c = Connect(Alice("PLAIN"));
  ASSERT_TRUE(c.ok()) << c.status();
  constexpr int kRequests = 2000;
  std::atomic<int> received{0};
  std::thread reader([&] {
    for (int i = 0; i < kRequests;) {
      auto answer = (*c)->Receive();
      if (answer.status().code() == absl::StatusCode::kFailedPrecondition) {  // ahead of the sender
        std::this_thread::yield();
        continue;
      }
      if (!answer.ok()) {
        ADD_FAILURE() << "response " << i << ": " << answer.status();
        return;
      }
      ++received;
      ++i;
    }
  });
  for (int i = 0; i < kRequests; ++i) {
    auto sent = (*c)->Send(kMetadata, 1, std::string(100 + i % 3000, 'x'));
    ASSERT_TRUE(sent.ok()) << sent.status();
  }
  reader.join();
  EXPECT_EQ(received.load(), kRequests);
}

}  // namespace
}  // namespace strata::broker
