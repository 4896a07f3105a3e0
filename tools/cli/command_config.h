#pragma once
// The strata CLI's client config file (--command-config, as Kafka's tools name it; or
// $STRATA_COMMAND_CONFIG): Java properties with Kafka's client setting names. Read:
// security.protocol (PLAINTEXT or SSL: mutual TLS to the controllers),
// ssl.keystore.location (PEM: the client's private key and certificate chain),
// ssl.truststore.location (PEM: the CA the controllers' certificates chain to),
// ssl.keystore.type and ssl.truststore.type (PEM). Any other key is an error naming it.
// Thread-safe (a free function).

#include <string>

#include "absl/status/statusor.h"
#include "security/grpc_tls.h"

namespace strata::cli {

struct CommandConfig {
  security::TlsFiles controller_tls;  // not enabled: PLAINTEXT
};

// path empty: the defaults (PLAINTEXT).
absl::StatusOr<CommandConfig> ReadCommandConfig(const std::string& path);

}  // namespace strata::cli
