#include "server/listener_security.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "security/jaas_config.h"
#include "security/principal_mapping.h"

namespace strata::server {

absl::StatusOr<ListenerSecurity> MakeListenerSecurity(const ServerConfig& config, const Listener& l,
                                                      const controller::MetadataStore& store) {
  ListenerSecurity out;
  const std::string& protocol = l.security_protocol;
  if (protocol == "SSL" || protocol == "SASL_SSL") {
    broker::TlsOptions tls;
    tls.keystore_pem = config.ListenerSetting(l.name, "ssl.keystore.location", config.ssl_keystore_location);
    tls.truststore_pem = config.ListenerSetting(l.name, "ssl.truststore.location", config.ssl_truststore_location);
    const std::string& client_auth = config.ListenerSetting(l.name, "ssl.client.auth", config.ssl_client_auth);
    tls.client_auth = client_auth == "required"    ? broker::TlsOptions::ClientAuth::kRequired
                      : client_auth == "requested" ? broker::TlsOptions::ClientAuth::kRequested
                                                   : broker::TlsOptions::ClientAuth::kNone;
    out.tls = tls;
  }
  if (protocol == "SSL") {
    auto mapper = security::PrincipalMapper::Parse(
        config.ListenerSetting(l.name, "ssl.principal.mapping.rules", config.ssl_principal_mapping_rules));
    if (!mapper.ok()) return mapper.status();
    out.tls_principal = [mapper = *std::move(mapper)](const std::string& subject) { return mapper.Map(subject); };
  }
  if (protocol != "SASL_PLAINTEXT" && protocol != "SASL_SSL") return out;

  auto sasl = std::make_shared<broker::SaslServerConfig>();
  sasl->listener = l.name;
  sasl->mechanisms = config.SaslEnabledMechanisms(l.name);
  for (const std::string& m : sasl->mechanisms) {
    if (m != "PLAIN") continue;
    auto jaas = security::ParseJaasConfig(config.ListenerSetting(l.name, "plain.sasl.jaas.config", ""));
    if (!jaas.ok()) return jaas.status();
    auto users = security::PlainUsers::FromJaas(*jaas);
    if (!users.ok()) return users.status();
    sasl->plain_users = std::make_shared<security::PlainUsers>(*std::move(users));
  }
  for (const std::string& m : sasl->mechanisms) {
    if (m != "OAUTHBEARER") continue;
    // An https JWKS endpoint is checked against the CA of the OAuthBearerLoginModule's
    // ssl.truststore.location option, as Kafka reads it (else the system's CAs).
    security::HttpGetOptions http;
    const std::string oauth_jaas = config.ListenerSetting(l.name, "oauthbearer.sasl.jaas.config", "");
    if (!oauth_jaas.empty()) {
      auto jaas = security::ParseJaasConfig(oauth_jaas);
      if (!jaas.ok()) return jaas.status();
      if (auto type = jaas->options.find("ssl.truststore.type"); type != jaas->options.end() && type->second != "PEM") {
        return absl::InvalidArgumentError(absl::StrCat("listener ", l.name,
                                                       ": oauthbearer.sasl.jaas.config's ssl.truststore.type must be PEM"));
      }
      if (auto ca = jaas->options.find("ssl.truststore.location"); ca != jaas->options.end()) http.ca_file = ca->second;
    }
    auto jwks = security::JwksSource::Open(config.sasl_oauthbearer_jwks_endpoint_url,
                                           std::chrono::milliseconds(config.sasl_oauthbearer_jwks_endpoint_refresh_ms),
                                           http);
    if (!jwks.ok()) return jwks.status();
    sasl->oauth_jwks = *std::move(jwks);
    sasl->oauth_validation = security::JwtValidation{
        .expected_issuer = config.sasl_oauthbearer_expected_issuer,
        .expected_audience = config.sasl_oauthbearer_expected_audience,
        .clock_skew_seconds = config.sasl_oauthbearer_clock_skew_seconds,
        .sub_claim_name = config.sasl_oauthbearer_sub_claim_name,
        .scope_claim_name = config.sasl_oauthbearer_scope_claim_name};
  }
  sasl->scram_credential = [&store](security::ScramMechanism m,
                                    const std::string& user) -> std::optional<security::ScramCredential> {
    return store.WithImage([&](const controller::MetadataImage& image) -> std::optional<security::ScramCredential> {
      const auto* c = image.security().FindScramCredential(user, static_cast<int32_t>(m));
      if (c == nullptr) return std::nullopt;
      return security::ScramCredential{c->salt(), c->stored_key(), c->server_key(), c->iterations()};
    });
  };
  int64_t reauth_ms = config.connections_max_reauth_ms;
  const std::string& per_listener = config.ListenerSetting(l.name, "connections.max.reauth.ms", "");
  if (!per_listener.empty()) reauth_ms = std::stoll(per_listener);  // checked when the config was read
  sasl->max_reauth_ms = reauth_ms;
  out.sasl_metrics = std::make_shared<broker::SaslMetrics>();
  sasl->metrics = out.sasl_metrics.get();
  out.sasl = [sasl, metrics = out.sasl_metrics]() -> std::unique_ptr<broker::ConnectionAuthenticator> {
    return std::make_unique<broker::SaslAuthenticator>(sasl);
  };
  return out;
}

}  // namespace strata::server
