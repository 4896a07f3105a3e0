#include "server/quorum_bootstrap.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "raft/bootstrap_resolver.h"
#include "security/grpc_tls.h"
#include "server/control_plane_security.h"

namespace strata::server {
namespace {

constexpr std::chrono::milliseconds kAskTimeout{1000};
constexpr std::chrono::milliseconds kRetryInterval{250};
constexpr std::chrono::seconds kWarnEvery{10};

}  // namespace

std::unique_ptr<raft::QuorumResolver> MakeQuorumResolver(const ServerConfig& config, const std::string& cluster_id) {
  std::vector<std::string> servers = config.bootstrap_servers;
  if (!config.dynamic_quorum()) {
    for (const auto& [id, address] : config.voters) servers.push_back(address);
  }
  return std::make_unique<raft::QuorumResolver>(std::move(servers), config.controller_listener_names, cluster_id,
                                                security::ChannelCredentials(ControlPlaneTlsFiles(config)));
}

std::map<int32_t, std::string> AskBootstrapServers(const raft::QuorumResolver& resolver,
                                                   raft::ResolvedQuorum* resolved) {
  raft::ResolvedQuorum q = resolver.Resolve(kAskTimeout);
  std::map<int32_t, std::string> controllers;
  for (raft::NodeId id : q.voters) {
    auto it = q.addresses.find(id);
    if (it != q.addresses.end()) controllers[id] = it->second;
  }
  if (resolved != nullptr) *resolved = std::move(q);
  return controllers;
}

absl::StatusOr<std::map<int32_t, std::string>> FindControllers(const raft::QuorumResolver& resolver,
                                                                std::chrono::milliseconds patience) {
  const auto start = std::chrono::steady_clock::now();
  auto warned = start;
  const std::string servers = absl::StrJoin(resolver.servers(), ",");
  while (true) {
    raft::ResolvedQuorum q;
    std::map<int32_t, std::string> controllers = AskBootstrapServers(resolver, &q);
    if (!controllers.empty()) {
      spdlog::info("controller.quorum.bootstrap.servers ({}) name the voters {}", servers,
                   absl::StrJoin(controllers, ", ", absl::PairFormatter("@")));
      return controllers;
    }
    std::string why = q.answered == 0 ? "none answered"
                                      : absl::StrCat(q.answered, " answered, but none knows the voters yet");
    auto now = std::chrono::steady_clock::now();
    if (now - start >= patience) {
      return absl::UnavailableError(absl::StrCat("cannot find the controllers: controller.quorum.bootstrap.servers (",
                                                 servers, "): ", why));
    }
    if (now - warned >= kWarnEvery) {
      warned = now;
      spdlog::warn("waiting for the controllers: controller.quorum.bootstrap.servers ({}): {}", servers, why);
    }
    std::this_thread::sleep_for(kRetryInterval);
  }
}

}  // namespace strata::server
