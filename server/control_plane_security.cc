#include "server/control_plane_security.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "security/standard_authorizer.h"

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

security::AclOperation AdminRpcOperation(absl::string_view rpc) {
  using Op = security::AclOperation;
  if (rpc == "DescribeConfigs") return Op::kDescribeConfigs;
  if (rpc == "AlterConfigs") return Op::kAlterConfigs;
  if (rpc == "CreateTopics") return Op::kCreate;
  if (rpc == "UpdateRaftVoter") return Op::kClusterAction;  // as Kafka's controller checks it
  if (absl::StartsWith(rpc, "Describe") || absl::StartsWith(rpc, "List")) return Op::kDescribe;
  return Op::kAlter;
}

std::function<bool(const security::ControlPlaneCaller&, absl::string_view rpc)> MakeAdminAclCheck(
    const ServerConfig& config, const controller::MetadataStore& store) {
  if (config.authorizer_class_name.empty()) return nullptr;
  security::StandardAuthorizer::Options ao{.super_users = config.super_users,
                                           .allow_everyone_if_no_acl_found = config.allow_everyone_if_no_acl_found,
                                           .log_allowed = config.authorizer_log_allowed};
  // The ACLs are indexed again only when the image's acl_version moved since the last
  // Admin call that looked (under `mutex`; checks run on the index in place).
  struct AdminAcls {
    explicit AdminAcls(security::StandardAuthorizer::Options o) : authorizer(std::move(o)) {}
    security::StandardAuthorizer authorizer;
    absl::Mutex mutex;
    int64_t version ABSL_GUARDED_BY(mutex) = -1;
  };
  auto acls = std::make_shared<AdminAcls>(ao);
  return [acls, &store](const security::ControlPlaneCaller& caller, absl::string_view rpc) {
    {
      absl::MutexLock lock(&acls->mutex);
      using Versioned = std::pair<int64_t, std::vector<security::AclBinding>>;
      auto changed = store.WithImage(
          [seen = acls->version](const controller::MetadataImage& image) -> std::optional<Versioned> {
            if (image.security().acl_version() == seen) return std::nullopt;
            return Versioned{image.security().acl_version(), image.security().AclBindings()};
          });
      if (changed) {
        acls->version = changed->first;
        acls->authorizer.SetAcls(changed->second);
      }
    }
    std::string host = caller.host;
    // gRPC names a peer "ipv4:127.0.0.1:port" or "ipv6:[::1]:port"; the ACL's host is
    // the address.
    if (absl::StartsWith(host, "ipv4:")) host = host.substr(5, host.rfind(':') - 5);
    if (absl::StartsWith(host, "ipv6:[")) host = host.substr(6, host.rfind(']') - 6);
    return acls->authorizer.Check(caller.principal, host, AdminRpcOperation(rpc), security::ResourceType::kCluster,
                                  security::kClusterResourceName, rpc);
  };
}

std::unique_ptr<security::ControlPlaneAuthorizer> MakeControlPlaneAuthorizer(const ServerConfig& config,
                                                                            const controller::MetadataStore& store) {
  security::ControlPlaneAuthorizer::Options o;
  o.secure = ControlPlaneTlsFiles(config).enabled();
  for (const auto& [id, address] : config.voters) o.voters.insert(id);
  o.dynamic_quorum = config.dynamic_quorum();  // ControllerRole keeps its members current
  const std::string& rules = config.ListenerSetting(config.controller_listener_names, "ssl.principal.mapping.rules",
                                                    config.ssl_principal_mapping_rules);
  // Checked when the config was read.
  o.mapper = security::PrincipalMapper::Parse(rules).value_or(security::PrincipalMapper());
  o.super_users = config.super_users;
  o.admin_acl = MakeAdminAclCheck(config, store);
  return std::make_unique<security::ControlPlaneAuthorizer>(std::move(o));
}

bool IsLoopback(const std::string& host) {
  return absl::StartsWith(host, "127.") || host == "localhost" || host == "::1" || host == "[::1]";
}

void WarnAboutUnauthenticatedListeners(const ServerConfig& config) {
  if (config.controller && !ControlPlaneTlsFiles(config).enabled()) {
    const std::string address = config.ControllerAddress();
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
