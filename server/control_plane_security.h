#pragma once
// The node's side of the control plane's security, from its settings: the TLS files of
// the controllers' port (controller.listener.names mapped to SSL in
// listener.security.protocol.map; listener.name.<name>.ssl.* or ssl.*), checked at
// start, and the rules of who may call what on it (security/control_plane_authorizer.h).
// Also the WARN line a node writes at start for each port that takes unauthenticated
// callers on an address other than loopback.
// Thread-safe (free functions).

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "security/control_plane_authorizer.h"
#include "controller/metadata_store.h"
#include "security/acl.h"
#include "security/grpc_tls.h"
#include "server/server_config.h"

namespace strata::server {

// Not enabled when the controller listener is PLAINTEXT.
security::TlsFiles ControlPlaneTlsFiles(const ServerConfig& config);

// The files checked (security::CheckTlsFiles), for a node that will use them.
absl::Status CheckControlPlaneTls(const ServerConfig& config);

// For a controller's port. With an authorizer (authorizer.class.name), the Admin service
// checks each caller that is neither a broker nor a super user against the ACLs of
// store's image, at the cluster level: the Describe calls need Describe on the cluster,
// DescribeConfigs DescribeConfigs, AlterConfigs AlterConfigs, CreateTopics Create, and
// the other changes (DeleteTopics, CreatePartitions, ElectLeaders, the SCRAM and ACL
// calls) Alter. store outlives what is made.
std::unique_ptr<security::ControlPlaneAuthorizer> MakeControlPlaneAuthorizer(const ServerConfig& config,
                                                                            const controller::MetadataStore& store);

// The Admin service's ACL check of MakeControlPlaneAuthorizer (null without an
// authorizer): the caller's principal and host against store's ACLs, indexed again only
// when the image's acl_version has moved since the last call. store outlives it.
std::function<bool(const security::ControlPlaneCaller&, absl::string_view rpc)> MakeAdminAclCheck(
    const ServerConfig& config, const controller::MetadataStore& store);

// The operation on the cluster an Admin RPC needs (above).
security::AclOperation AdminRpcOperation(absl::string_view rpc);

// Whether host is a loopback address (127.0.0.0/8, ::1, localhost).
bool IsLoopback(const std::string& host);

// WARN lines for the controller port (on a controller) and the Kafka listeners (on a
// broker) that serve unauthenticated callers on an address other than loopback.
void WarnAboutUnauthenticatedListeners(const ServerConfig& config);

}  // namespace strata::server
