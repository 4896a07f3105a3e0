#pragma once
// How a KafkaConnection reaches a broker: Kafka's security.protocol (PLAINTEXT, SSL,
// SASL_PLAINTEXT, SASL_SSL), the TLS files, the SASL mechanism and credentials, as a
// broker's inter-broker client, the strata CLI and strata-perf configure them. The
// client-config reader takes Kafka's client setting names (Java's, and librdkafka's
// where they differ), so that the file a Kafka tool reads works here too:
//   security.protocol          PLAINTEXT (default), SSL, SASL_PLAINTEXT, SASL_SSL
//   ssl.truststore.location    PEM: the CA certificates a broker's chain must reach
//     (librdkafka: ssl.ca.location)
//   ssl.keystore.location      PEM: the client's key and certificate chain, for a broker
//     that asks for one (optional)
//   ssl.keystore.type, ssl.truststore.type   PEM only
//   ssl.endpoint.identification.algorithm    https (default): the broker's certificate
//     must name the host connected to; empty (librdkafka: none) skips that check
//   sasl.mechanism             PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
//   sasl.username, sasl.password   (librdkafka), or
//   sasl.jaas.config           a PlainLoginModule or ScramLoginModule entry with the
//     username and password options (Java)
// Thread-safe (values and functions).

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"

namespace strata::client {

struct ClientSecurity {
  std::string protocol = "PLAINTEXT";  // security.protocol
  // SSL and SASL_SSL.
  std::string truststore_pem;
  std::string keystore_pem;  // empty: no client certificate
  bool verify_hostname = true;
  // SASL_PLAINTEXT and SASL_SSL.
  std::string sasl_mechanism;
  std::string username;
  std::string password;

  bool tls() const { return protocol == "SSL" || protocol == "SASL_SSL"; }
  bool sasl() const { return protocol == "SASL_PLAINTEXT" || protocol == "SASL_SSL"; }
};

// Checks that the settings fit together: a known protocol, a truststore for TLS (its
// file readable), a supported mechanism and a username for SASL. INVALID_ARGUMENT
// naming the setting (never a password).
absl::Status ValidateClientSecurity(const ClientSecurity& security);

// The client settings above out of a client config's key=value pairs. `used` (if not
// null) gets the keys read, so that a caller can refuse the ones nobody reads.
absl::StatusOr<ClientSecurity> ClientSecurityFromProperties(const std::map<std::string, std::string>& properties,
                                                            std::set<std::string>* used = nullptr);

// A client config file (Java properties: key=value lines, # and ! comments), as Kafka's
// tools take with --command-config: its settings, any key other than the ones above an
// error naming its line. NOT_FOUND when the file cannot be read.
absl::StatusOr<ClientSecurity> ReadClientConfig(const std::string& path);

}  // namespace strata::client
