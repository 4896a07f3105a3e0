#pragma once
// The strata CLI's client config file (--command-config, as Kafka's tools name it; or
// $STRATA_COMMAND_CONFIG): Java properties with Kafka's client setting names, the ones
// client/client_security.h reads (security.protocol, ssl.*, sasl.*). It says how the CLI
// reaches both sides of the cluster:
//   the controllers' gRPC port: mutual TLS when security.protocol is SSL or SASL_SSL,
//     with ssl.keystore.location (the client's key and certificate chain, required) and
//     ssl.truststore.location (the CA the controllers' certificates chain to); PLAINTEXT
//     otherwise;
//   the brokers (groups, topics describe --tiers): a listener of that security.protocol,
//     with TLS and SASL (sasl.mechanism, sasl.username and sasl.password, or
//     sasl.jaas.config) as it needs.
// Any other key is an error naming it.
// Thread-safe (a free function).

#include <string>

#include "absl/status/statusor.h"
#include "client/client_security.h"
#include "security/grpc_tls.h"

namespace strata::cli {

struct CommandConfig {
  security::TlsFiles controller_tls;  // not enabled: PLAINTEXT
  client::ClientSecurity broker_security;
};

// path empty: the defaults (PLAINTEXT).
absl::StatusOr<CommandConfig> ReadCommandConfig(const std::string& path);

}  // namespace strata::cli
