#include "tools/server/server_config.h"

#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

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
    size_t colon = address.rfind(':');
    int port = 0;
    if (colon == absl::string_view::npos || colon == 0 || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
        port <= 0 || port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("voter '", part, "' has no valid host:port"));
    }
    if (!voters.emplace(id, std::string(address)).second) {
      return absl::InvalidArgumentError(absl::StrCat("voter id ", id, " appears twice"));
    }
  }
  if (voters.empty()) return absl::InvalidArgumentError("no voters");
  return voters;
}

absl::StatusOr<ServerConfig> ServerConfig::Parse(const std::string& text, const std::string& file) {
  ServerConfig config;
  std::map<std::string, std::pair<std::string, int>> props;  // key -> (value, line)
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(file, " line ", line_number, ": '", line, "' is not key=value"));
    }
    std::string key(absl::StripAsciiWhitespace(line.substr(0, eq)));
    props[key] = {std::string(absl::StripAsciiWhitespace(line.substr(eq + 1))), line_number};
  }
  auto where = [&](const std::string& key) { return absl::StrCat(file, " line ", props[key].second, ": '", key, "'"); };
  for (const auto& [key, value] : props) {
    if (key != "node.id" && key != "process.roles" && key != "controller.quorum.voters" && key != "metadata.log.dir" &&
        key != "controller.quorum.election.timeout.ms") {
      return absl::InvalidArgumentError(absl::StrCat(where(key), " is not a setting strata-server knows"));
    }
  }
  for (const char* required : {"node.id", "process.roles", "controller.quorum.voters", "metadata.log.dir"}) {
    if (!props.count(required)) return absl::InvalidArgumentError(absl::StrCat(file, ": '", required, "' is required"));
  }
  if (!absl::SimpleAtoi(props["node.id"].first, &config.node_id) || config.node_id <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(where("node.id"), " must be a positive integer"));
  }
  config.process_roles = props["process.roles"].first;
  if (config.process_roles != "controller") {
    return absl::InvalidArgumentError(absl::StrCat(where("process.roles"), " = '", config.process_roles,
                                                   "': only 'controller' is supported so far"));
  }
  auto voters = ParseQuorumVoters(props["controller.quorum.voters"].first);
  if (!voters.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where("controller.quorum.voters"), ": ", voters.status().message()));
  }
  config.voters = std::move(*voters);
  if (!config.voters.count(config.node_id)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where("controller.quorum.voters"), " does not list node.id ", config.node_id));
  }
  config.metadata_log_dir = props["metadata.log.dir"].first;
  if (config.metadata_log_dir.empty()) return absl::InvalidArgumentError(absl::StrCat(where("metadata.log.dir"), " is empty"));
  if (props.count("controller.quorum.election.timeout.ms")) {
    const std::string& v = props["controller.quorum.election.timeout.ms"].first;
    if (!absl::SimpleAtoi(v, &config.election_timeout_ms) || config.election_timeout_ms < 50 ||
        config.election_timeout_ms > 600'000) {
      return absl::InvalidArgumentError(
          absl::StrCat(where("controller.quorum.election.timeout.ms"), " = '", v, "' must be 50..600000"));
    }
  }
  return config;
}

absl::StatusOr<ServerConfig> ServerConfig::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read config file ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return Parse(buffer.str(), path);
}

}  // namespace strata::server
