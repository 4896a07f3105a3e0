#include "server/control_plane_security.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"

namespace strata::server {

security::TlsFiles ControlPlaneTlsFiles(const ServerConfig& config) {
  if (config.ControllerSecurityProtocol() != "SSL") return {};
  const std::string& name = config.controller_listener_names;
  return security::TlsFiles{
      .keystore = config.ListenerSetting(name, "ssl.keystore.location", config.ssl_keystore_location),
      .truststore = config.ListenerSetting(name, "ssl.truststore.location", config.ssl_truststore_location)};
}

absl::Status CheckControlPlaneTls(const ServerConfig& config) {
  security::TlsFiles files = ControlPlaneTlsFiles(config);
  if (!files.enabled()) return absl::OkStatus();
  absl::Status s = security::CheckTlsFiles(files);
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("the controller listener ", config.controller_listener_names, ": ",
                                             s.message()));
}

std::unique_ptr<security::ControlPlaneAuthorizer> MakeControlPlaneAuthorizer(const ServerConfig& config) {
  security::ControlPlaneAuthorizer::Options o;
  o.secure = ControlPlaneTlsFiles(config).enabled();
  for (const auto& [id, address] : config.voters) o.voters.insert(id);
  const std::string& rules = config.ListenerSetting(config.controller_listener_names, "ssl.principal.mapping.rules",
                                                    config.ssl_principal_mapping_rules);
  // Checked when the config was read.
  o.mapper = security::PrincipalMapper::Parse(rules).value_or(security::PrincipalMapper());
  o.super_users = config.super_users;
  return std::make_unique<security::ControlPlaneAuthorizer>(std::move(o));
}

bool IsLoopback(const std::string& host) {
  return absl::StartsWith(host, "127.") || host == "localhost" || host == "::1" || host == "[::1]";
}

void WarnAboutUnauthenticatedListeners(const ServerConfig& config) {
  if (config.controller && !ControlPlaneTlsFiles(config).enabled()) {
    const std::string& address = config.voters.at(config.node_id);
    std::string host = address.substr(0, address.rfind(':'));
    if (!IsLoopback(host)) {
      spdlog::warn("the controller port {} ({}) is PLAINTEXT on {}, not loopback: whoever reaches it can read and "
                   "change the cluster's metadata (map {} to SSL in listener.security.protocol.map)",
                   address, config.controller_listener_names, host, config.controller_listener_names);
    }
  }
  if (!config.broker) return;
  for (const Listener& l : config.listeners) {
    bool authenticated = l.security_protocol == "SSL" &&
                         config.ListenerSetting(l.name, "ssl.client.auth", config.ssl_client_auth) == "required";
    if (!authenticated && !IsLoopback(l.host)) {
      spdlog::warn("the Kafka listener {} ({}) takes unauthenticated clients on {}, not loopback", l.name,
                   l.security_protocol, l.host.empty() ? "every address" : l.host);
    }
  }
}

}  // namespace strata::server
