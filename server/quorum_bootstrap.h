#pragma once
// Where a node finds the controllers. A static quorum names them
// (controller.quorum.voters); a dynamic one (KIP-853) names some of them
// (controller.quorum.bootstrap.servers), which say who the voters are and where
// (raft/bootstrap_resolver.h).
// Thread-safe (functions of their arguments).
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "raft/bootstrap_resolver.h"
#include "server/server_config.h"

namespace strata::server {

// The resolver of a dynamic quorum's controller.quorum.bootstrap.servers (a static
// one's: the controller.quorum.voters addresses, which name the voters once the quorum
// was upgraded to kraft.version 1), over the control plane's TLS when it has any.
std::unique_ptr<raft::QuorumResolver> MakeQuorumResolver(const ServerConfig& config, const std::string& cluster_id);

// The voters as the bootstrap servers name them now, id -> "host:port" (one round of
// questions; empty when no answer names voters).
std::map<int32_t, std::string> AskBootstrapServers(const raft::QuorumResolver& resolver,
                                                   raft::ResolvedQuorum* resolved = nullptr);

// The voters, asked for until one answer names them, for up to `patience`; then
// UNAVAILABLE naming the servers.
absl::StatusOr<std::map<int32_t, std::string>> FindControllers(const raft::QuorumResolver& resolver,
                                                                std::chrono::milliseconds patience);

}  // namespace strata::server
