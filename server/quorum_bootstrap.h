#pragma once
// Where a node finds the controllers. A static quorum names them
// (controller.quorum.voters); a dynamic one (KIP-853) names some of them
// (controller.quorum.bootstrap.servers), which say who the voters are and where
// (raft/bootstrap_resolver.h).
// Thread-safe (stateless function).
#include <chrono>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "raft/bootstrap_resolver.h"
#include "server/server_config.h"

namespace strata::server {

// A dynamic quorum's voters as the bootstrap servers name them now, id -> "host:port"
// (one round of questions; empty when no answer names voters).
std::map<int32_t, std::string> AskBootstrapServers(const ServerConfig& config, const std::string& cluster_id,
                                                   raft::ResolvedQuorum* resolved = nullptr);

// The controllers, id -> "host:port". A dynamic quorum's are asked for until one answer
// names voters, for up to `patience`; then UNAVAILABLE naming the servers.
absl::StatusOr<std::map<int32_t, std::string>> FindControllers(const ServerConfig& config,
                                                                const std::string& cluster_id,
                                                                std::chrono::milliseconds patience);

}  // namespace strata::server
