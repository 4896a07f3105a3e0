#pragma once
// The security of one Kafka listener, from the settings: TLS (SSL and SASL_SSL: the
// keystore, the truststore, ssl.client.auth), the principal of a TLS client certificate
// (ssl.principal.mapping.rules; SSL listeners without SASL), and SASL (SASL_PLAINTEXT and
// SASL_SSL: sasl.enabled.mechanisms, the PLAIN users of the listener's
// plain.sasl.jaas.config, SCRAM credentials from the metadata image,
// connections.max.reauth.ms). Every setting is listener.name.<name>.<setting> first.
// Thread-safe (what it makes is).

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "broker/network/listener.h"
#include "broker/network/sasl_authenticator.h"
#include "controller/metadata_store.h"
#include "server/server_config.h"

namespace strata::server {

struct ListenerSecurity {
  std::optional<broker::TlsOptions> tls;
  std::function<std::optional<std::string>(const std::string& subject)> tls_principal;
  std::function<std::unique_ptr<broker::ConnectionAuthenticator>()> sasl;
  // The listener's authentication counts (SASL listeners; null otherwise).
  std::shared_ptr<broker::SaslMetrics> sasl_metrics;
};

// store outlives what is made (SCRAM credentials are looked up in its image).
absl::StatusOr<ListenerSecurity> MakeListenerSecurity(const ServerConfig& config, const Listener& listener,
                                                      const controller::MetadataStore& store);

}  // namespace strata::server
