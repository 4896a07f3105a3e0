// The client config a KafkaConnection is made from (client/client_security.h): Kafka's
// Java names and librdkafka's give the same settings; each mistake is refused with the
// setting (or the line) named and no password in the message.

#include "client/client_security.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace strata::client {
namespace {

class ClientConfig : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    const std::string path = dir_.Sub("client.properties");
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }
  std::string Ca() {
    const std::string path = dir_.Sub("ca.pem");
    std::ofstream(path, std::ios::trunc) << "";
    return path;
  }
  testing::TempDir dir_;
};

TEST_F(ClientConfig, JavaAndLibrdkafkaNamesGiveTheSameSettings) {
  const std::string ca = Ca();
  auto java = ReadClientConfig(Write(
      "# Kafka's tools\nsecurity.protocol=SASL_SSL\nssl.truststore.type=PEM\nssl.truststore.location=" + ca +
      "\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
      "required username=\"admin\" password=\"s3cret\";\n"));
  ASSERT_TRUE(java.ok()) << java.status();
  auto librdkafka = ReadClientConfig(Write("security.protocol=SASL_SSL\nssl.ca.location=" + ca +
                                           "\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=admin\n"
                                           "sasl.password=s3cret\nssl.endpoint.identification.algorithm=https\n"));
  ASSERT_TRUE(librdkafka.ok()) << librdkafka.status();
  for (const ClientSecurity* s : {&*java, &*librdkafka}) {
    EXPECT_TRUE(s->tls());
    EXPECT_TRUE(s->sasl());
    EXPECT_EQ(s->truststore_pem, ca);
    EXPECT_EQ(s->sasl_mechanism, "SCRAM-SHA-512");
    EXPECT_EQ(s->username, "admin");
    EXPECT_EQ(s->password, "s3cret");
    EXPECT_TRUE(s->verify_hostname);
  }
  auto unchecked = ReadClientConfig(Write("security.protocol=SSL\nssl.ca.location=" + ca +
                                          "\nssl.endpoint.identification.algorithm=\n"));
  ASSERT_TRUE(unchecked.ok()) << unchecked.status();
  EXPECT_FALSE(unchecked->verify_hostname);
  EXPECT_FALSE(unchecked->sasl());
}

TEST_F(ClientConfig, EachMistakeIsNamed) {
  const std::string ca = Ca();
  struct Case {
    std::string text;
    std::string words;
  } cases[] = {
      {"security.protocol=SSL\n", "needs ssl.truststore.location"},
      {"security.protocol=SSL\nssl.truststore.location=/no/such/ca.pem\n", "/no/such/ca.pem cannot be read"},
      {"security.protocol=TLS\n", "security.protocol=TLS is not PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"},
      {"security.protocol=SASL_PLAINTEXT\nsasl.username=u\nsasl.password=p\n", "sasl.mechanism 'GSSAPI'"},
      {"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.password=p\n", "needs a username"},
      {"security.protocol=SSL\nssl.truststore.location=" + ca + "\nssl.truststore.type=JKS\n",
       "ssl.truststore.type must be PEM"},
      {"ssl.endpoint.identification.algorithm=http\n", "'http' is not https or empty"},
      {"security.protocol=PLAINTEXT\nbootstrap.server=x:1\n", "line 2: 'bootstrap.server' is not a setting"},
      {"security.protocol\n", "line 1: not key=value"},
      {"sasl.jaas.config=ScramLoginModule required password=\"s3cret\n", "sasl.jaas.config"},
  };
  for (const auto& c : cases) {
    auto parsed = ReadClientConfig(Write(c.text));
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << parsed.status();
    EXPECT_NE(parsed.status().message().find(c.words), absl::string_view::npos) << parsed.status();
    EXPECT_EQ(parsed.status().message().find("s3cret"), absl::string_view::npos) << parsed.status();
  }
  EXPECT_EQ(ReadClientConfig(dir_.Sub("missing.properties")).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace strata::client
