// SCRAM (RFC 5802/7677) against RFC 7677's SCRAM-SHA-256 example and between our own
// client and server for both mechanisms, with every way a client-final can be wrong;
// PLAIN; and the sasl.jaas.config parser.

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "security/jaas_config.h"
#include "security/sasl_plain.h"
#include "security/scram.h"

namespace strata::security {
namespace {

// RFC 7677 section 3: user "user", password "pencil".
TEST(Scram, TheRfc7677ExampleGoesThroughOurServerAndClient) {
  const std::string salt = [] {
    std::string s;
    EXPECT_TRUE(absl::Base64Unescape("W22ZaJ0SNY7soEsUEjb6gQ==", &s));
    return s;
  }();
  ScramCredential credential = CredentialFromSaltedPassword(
      ScramMechanism::kSha256, salt, SaltedPassword(ScramMechanism::kSha256, "pencil", salt, 4096), 4096);
  ScramServer server(
      ScramMechanism::kSha256, [&](const std::string& user) -> std::optional<ScramCredential> {
        if (user == "user") return credential;
        return std::nullopt;
      },
      [] { return std::string("%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"); });
  ScramClient client(ScramMechanism::kSha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
  std::string first = client.FirstMessage();
  EXPECT_EQ(first, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  auto server_first = server.Step(first);
  ASSERT_TRUE(server_first.ok()) << server_first.status();
  EXPECT_EQ(*server_first, "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  auto client_final = client.FinalMessage(*server_first);
  ASSERT_TRUE(client_final.ok());
  EXPECT_EQ(*client_final,
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  auto server_final = server.Step(*client_final);
  ASSERT_TRUE(server_final.ok()) << server_final.status();
  EXPECT_EQ(*server_final, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_TRUE(server.complete());
  EXPECT_EQ(server.username(), "user");
  EXPECT_TRUE(client.Verify(*server_final).ok());
  EXPECT_FALSE(client.Verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G5=").ok());
}

class ScramExchange : public ::testing::TestWithParam<ScramMechanism> {
 protected:
  ScramServer Server() {
    return ScramServer(GetParam(), [this](const std::string& user) -> std::optional<ScramCredential> {
      if (user != "alice=,bob") return std::nullopt;  // a name with both escaped characters
      return credential_;
    });
  }
  // The client-final of a right password, taken apart so that a case can spoil one part.
  std::string salt_ = RandomSalt(GetParam());
  ScramCredential credential_ =
      CredentialFromSaltedPassword(GetParam(), salt_, SaltedPassword(GetParam(), "secret", salt_, 4096), 4096);
};

TEST_P(ScramExchange, TheRightPasswordAuthenticatesAndEveryWrongOneFailsAlike) {
  {
    ScramServer server = Server();
    ScramClient client(GetParam(), "alice=,bob", "secret");
    auto server_first = server.Step(client.FirstMessage());
    ASSERT_TRUE(server_first.ok()) << server_first.status();
    auto server_final = server.Step(*client.FinalMessage(*server_first));
    ASSERT_TRUE(server_final.ok()) << server_final.status();
    EXPECT_TRUE(client.Verify(*server_final).ok());
    EXPECT_EQ(server.username(), "alice=,bob");
  }
  std::string failure_message;
  auto expect_failure = [&](absl::StatusOr<std::string> step, const char* what) {
    ASSERT_FALSE(step.ok()) << what;
    if (failure_message.empty()) failure_message = std::string(step.status().message());
    EXPECT_EQ(step.status().message(), failure_message) << what << ": one message for every failure";
    EXPECT_EQ(step.status().message().find("alice"), std::string::npos);
  };
  {
    ScramServer server = Server();
    ScramClient client(GetParam(), "alice=,bob", "wrong");
    auto server_first = server.Step(client.FirstMessage());
    ASSERT_TRUE(server_first.ok());
    expect_failure(server.Step(*client.FinalMessage(*server_first)), "a wrong password");
    EXPECT_FALSE(server.Step("anything").ok()) << "a failed exchange stays failed";
  }
  {
    ScramServer server = Server();
    ScramClient client(GetParam(), "mallory", "secret");
    expect_failure(server.Step(client.FirstMessage()), "an unknown user");
  }
  {
    ScramServer server = Server();
    ScramClient client(GetParam(), "alice=,bob", "secret");
    auto server_first = server.Step(client.FirstMessage());
    std::string final_message = *client.FinalMessage(*server_first);
    std::string other_nonce = final_message;
    other_nonce.replace(other_nonce.find(",r=") + 3, 4, "XXXX");
    expect_failure(server.Step(other_nonce), "another nonce");
  }
  for (const char* malformed : {"", "n,,", "p=tls-unique,,n=alice,r=x", "n,,r=x,n=alice", "n,a=eve,n=alice=2C,r=x",
                                "n,,n=al=ice,r=x", "n,,n=alice,r=x,tokenauth=true"}) {
    ScramServer server = Server();
    expect_failure(server.Step(malformed), malformed);
  }
}

INSTANTIATE_TEST_SUITE_P(BothMechanisms, ScramExchange,
                         ::testing::Values(ScramMechanism::kSha256, ScramMechanism::kSha512));

TEST(Scram, MechanismNamesAndNumbersAreKafkas) {
  EXPECT_EQ(ScramMechanismNamed("SCRAM-SHA-256"), ScramMechanism::kSha256);
  EXPECT_EQ(ScramMechanismNamed("SCRAM-SHA-512"), ScramMechanism::kSha512);
  EXPECT_EQ(ScramMechanismNamed("SCRAM-SHA-1"), std::nullopt);
  EXPECT_EQ(static_cast<int>(ScramMechanism::kSha256), 1);
  EXPECT_EQ(static_cast<int>(ScramMechanism::kSha512), 2);
  EXPECT_EQ(RandomSalt(ScramMechanism::kSha512).size(), 64u);
  EXPECT_NE(RandomSalt(ScramMechanism::kSha256), RandomSalt(ScramMechanism::kSha256));
}

TEST(Jaas, KafkasJaasEntriesParse) {
  auto plain = ParseJaasConfig(
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
      "password=\"admin secret\" user_admin=\"admin secret\" user_alice=\"a\\\"b\";");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
  EXPECT_EQ(plain->flag, "required");
  EXPECT_EQ(plain->options.at("password"), "admin secret");
  EXPECT_EQ(plain->options.at("user_alice"), "a\"b");
  auto bare = ParseJaasConfig("org.apache.kafka.common.security.scram.ScramLoginModule required username=u password=p ;");
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ(bare->options.at("username"), "u");
  for (const char* bad : {"", "Module", "Module required", "Module required a=\"b\"", "Module maybe a=b;",
                          "Module required a=\"b;", "Module required =b;", "Module required a=b; Other required;"}) {
    auto parsed = ParseJaasConfig(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) EXPECT_EQ(parsed.status().message().find("secret"), std::string::npos);
  }
}

TEST(Plain, UsersFromTheJaasEntryAuthenticateAndNothingElseDoes) {
  auto jaas = ParseJaasConfig(
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"pw\" "
      "user_admin=\"pw\" user_alice=\"alice-secret\";");
  ASSERT_TRUE(jaas.ok());
  auto users = PlainUsers::FromJaas(*jaas);
  ASSERT_TRUE(users.ok());
  EXPECT_EQ(users->size(), 2u);
  using namespace std::string_literals;
  EXPECT_EQ(users->Authenticate("\0alice\0alice-secret"s).value_or(""), "alice");
  EXPECT_EQ(users->Authenticate("alice\0alice\0alice-secret"s).value_or(""), "alice");
  for (const std::string& bad : {"\0alice\0wrong"s, "\0mallory\0alice-secret"s, "admin\0alice\0alice-secret"s,
                                 "\0alice"s, "\0\0"s, "\0mallory\0"s, "alice-secret"s}) {
    auto result = users->Authenticate(bad);
    EXPECT_FALSE(result.ok());
    if (!result.ok()) EXPECT_EQ(result.status().message(), "Authentication failed: Invalid username or password");
  }
  JaasConfig other = *jaas;
  other.login_module = "org.apache.kafka.common.security.scram.ScramLoginModule";
  EXPECT_FALSE(PlainUsers::FromJaas(other).ok());
}

}  // namespace
}  // namespace strata::security
