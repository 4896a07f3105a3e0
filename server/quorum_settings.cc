// The quorum's settings of a ServerConfig (server_config.h: CheckQuorumSettings,
// ParseQuorumVoters, ParseBootstrapServers, ControllerAddress): controller.quorum.voters
// or controller.quorum.bootstrap.servers, and the controller listener.

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/check.h"
#include "base/host_port.h"
#include "server/server_config.h"

namespace strata::server {

absl::StatusOr<std::map<int32_t, std::string>> ParseQuorumVoters(const std::string& text) {
  std::map<int32_t, std::string> voters;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    std::vector<absl::string_view> id_address = absl::StrSplit(part, absl::MaxSplits('@', 1));
    int32_t id = 0;
    if (id_address.size() != 2 || !absl::SimpleAtoi(id_address[0], &id) || id <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("voter '", part, "' is not <id>@<host>:<port>"));
    }
    absl::string_view address = id_address[1];
    if (!ParseHostPort(address).ok()) {
      return absl::InvalidArgumentError(absl::StrCat("voter '", part, "' has no valid host:port"));
    }
    if (!voters.emplace(id, std::string(address)).second) {
      return absl::InvalidArgumentError(absl::StrCat("voter id ", id, " appears twice"));
    }
  }
  if (voters.empty()) return absl::InvalidArgumentError("no voters");
  return voters;
}

absl::StatusOr<std::vector<std::string>> ParseBootstrapServers(const std::string& text) {
  std::vector<std::string> servers;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    if (!ParseHostPort(part).ok()) return absl::InvalidArgumentError(absl::StrCat("'", part, "' is not <host>:<port>"));
    if (std::find(servers.begin(), servers.end(), part) != servers.end()) {
      return absl::InvalidArgumentError(absl::StrCat("'", part, "' appears twice"));
    }
    servers.emplace_back(part);
  }
  if (servers.empty()) return absl::InvalidArgumentError("no servers");
  return servers;
}

absl::Status CheckQuorumSettings(ServerConfig& config, const std::string& file,
                                    const std::function<std::string(const std::string&)>& where) {
  const std::string& name = config.controller_listener_names;
  for (auto it = config.listeners.begin(); it != config.listeners.end(); ++it) {
    if (it->name != name) continue;
    Listener l = *it;
    config.listeners.erase(it);
    l.security_protocol = config.ControllerSecurityProtocol();
    l.advertised_host = l.host;
    l.advertised_port = l.port;
    for (auto a = config.advertised_listeners.begin(); a != config.advertised_listeners.end(); ++a) {
      if (a->name != name) continue;
      l.advertised_host = a->host;
      l.advertised_port = a->port;
      config.advertised_listeners.erase(a);
      break;
    }
    config.controller_listener = std::move(l);
    break;
  }
  if (!config.controller) {
    if (config.controller_listener.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(where("listeners"), ": ", name,
                              " is the controller listener (controller.listener.names), but this node is no controller"));
    }
    return absl::OkStatus();
  }
  if (config.dynamic_quorum()) {
    if (!config.controller_listener.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ": a controller of a dynamic quorum (controller.quorum.bootstrap.servers) listens "
                              "on the listener named by controller.listener.names; add ", name,
                              "://host:port to 'listeners'"));
    }
    if (config.controller_listener->port == 0) {
      return absl::InvalidArgumentError(absl::StrCat(where("listeners"), ": the controller listener ", name,
                              " needs a fixed port (the voters' endpoints name it)"));
    }
    return absl::OkStatus();
  }
  auto own = config.voters.find(config.node_id);
  if (own == config.voters.end()) {
    return absl::InvalidArgumentError(absl::StrCat(where("controller.quorum.voters"), " does not list node.id ", config.node_id));
  }
  if (config.controller_listener.has_value()) {
    std::string listed = absl::StrCat(config.controller_listener->host, ":", config.controller_listener->port);
    if (listed != own->second) {
      return absl::InvalidArgumentError(absl::StrCat(where("listeners"), ": the controller listener ", name, " is ", listed,
                              ", but controller.quorum.voters names ", own->second, " for node ", config.node_id));
    }
  }
  return absl::OkStatus();
}

std::string ServerConfig::ControllerAddress() const {
  ABSL_CHECK(controller);
  if (!dynamic_quorum()) return voters.at(node_id);
  ABSL_CHECK(controller_listener.has_value());
  return absl::StrCat(controller_listener->host, ":", controller_listener->port);
}

std::pair<std::string, int32_t> ServerConfig::ControllerAdvertised() const {
  ABSL_CHECK(controller);
  if (controller_listener.has_value()) return {controller_listener->advertised_host, controller_listener->advertised_port};
  absl::StatusOr<HostPort> address = ParseHostPort(voters.at(node_id));
  ABSL_CHECK_OK(address.status());  // ParseQuorumVoters checked it
  return {address->host, address->port};
}

}  // namespace strata::server
