// strata-storage format / random-uuid: give a node's directories their identity
// (storage/meta_properties.h), as Kafka's kafka-storage format does.

#include <optional>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "raft/bootstrap_voters.h"
#include "server/server_config.h"
#include "storage/meta_properties.h"
#include "tools/storage/storage_tool.h"

namespace strata::tools {
namespace {

// The initial voters format writes for this node (nullopt: none), or an error printed to
// err: a dynamic quorum's controller names exactly one of --standalone,
// --initial-controllers and --no-initial-controllers, and nobody else names any.
// --standalone's voter is made once the directory id is known (RunFormat).
absl::StatusOr<std::optional<raft::VoterSet>> BootstrapVoters(const FormatOptions& options,
                                                              const server::ServerConfig& config, std::ostream& err) {
  int named = int{options.standalone} + int{!options.initial_controllers.empty()} + int{options.no_initial_controllers};
  auto usage = [&](const std::string& why) {
    err << "strata-storage format: " << why << std::endl;
    return absl::InvalidArgumentError(why);
  };
  if (!config.controller || !config.dynamic_quorum()) {
    if (named == 0) return std::optional<raft::VoterSet>();
    return usage(!config.controller
                     ? "--standalone, --initial-controllers and --no-initial-controllers are for controllers"
                     : "--standalone, --initial-controllers and --no-initial-controllers are for a dynamic quorum "
                       "(controller.quorum.bootstrap.servers); this one is static (controller.quorum.voters)");
  }
  if (named != 1) {
    return usage("a controller of a dynamic quorum (controller.quorum.bootstrap.servers) needs one of --standalone "
                 "(the only initial voter), --initial-controllers (every initial voter) and "
                 "--no-initial-controllers (to be added later)");
  }
  if (options.initial_controllers.empty()) return std::optional<raft::VoterSet>();
  auto voters = raft::ParseInitialControllers(options.initial_controllers, config.controller_listener_names);
  if (!voters.ok()) return usage(std::string(voters.status().message()));
  const raft::Voter* self = voters->Find(config.node_id);
  if (self == nullptr) {
    return usage(absl::StrCat("--initial-controllers does not name node.id ", config.node_id,
                              " (use --no-initial-controllers for a controller added later)"));
  }
  auto [host, port] = config.ControllerAdvertised();
  const raft::Endpoint& listed = self->endpoints.front();
  if (listed.host != host || listed.port != port) {
    return usage(absl::StrCat("--initial-controllers names ", listed.host, ":", listed.port, " for node ",
                              config.node_id, ", but its controller listener ", config.controller_listener_names,
                              " is advertised as ", host, ":", port));
  }
  return std::optional<raft::VoterSet>(*std::move(voters));
}

}  // namespace

int RunFormat(const FormatOptions& options, std::ostream& out, std::ostream& err) {
  if (!storage::DecodeBase64Uuid(options.cluster_id).ok()) {
    err << "strata-storage format: --cluster-id '" << options.cluster_id
        << "' is not a cluster id; make one with: strata-storage random-uuid" << std::endl;
    return kExitUsage;
  }
  auto config = server::ServerConfig::Load(options.config, options.overrides);
  if (!config.ok()) {
    err << "strata-storage format: " << config.status().message() << std::endl;
    return kExitUsage;
  }
  auto bootstrap = BootstrapVoters(options, *config, err);
  if (!bootstrap.ok()) return kExitUsage;
  std::vector<std::string> dirs = {config->metadata_log_dir};
  for (const std::string& d : config->log_dirs) {
    if (d != config->metadata_log_dir) dirs.push_back(d);
  }
  for (const std::string& dir : dirs) {
    // An initial voter's metadata log dir has the directory id its voter key names.
    std::string directory_id;
    if (dir == config->metadata_log_dir && bootstrap->has_value()) {
      directory_id = storage::EncodeBase64Uuid((*bootstrap)->Find(config->node_id)->directory_id);
    }
    auto m = storage::FormatDirectory(*storage::FileOps::Default(), dir, options.cluster_id, config->node_id,
                                      directory_id);
    if (!m.ok()) {
      err << "strata-storage format: " << m.status().message() << std::endl;
      return kExitProblem;
    }
    out << "Formatted " << dir << " (cluster " << m->cluster_id << ", node " << m->node_id << ", directory "
        << m->directory_id << ")" << std::endl;
    if (dir != config->metadata_log_dir || !options.standalone) continue;
    // --standalone: this node alone, with the id the directory has (new or kept).
    raft::Voter self;
    self.id = config->node_id;
    self.directory_id = *storage::DecodeBase64Uuid(m->directory_id);
    auto [host, port] = config->ControllerAdvertised();
    self.endpoints.push_back({config->controller_listener_names, host, static_cast<uint16_t>(port)});
    *bootstrap = *raft::VoterSet::Of({std::move(self)});
  }
  if (bootstrap->has_value()) {
    if (absl::Status written = raft::WriteBootstrapVoters(*storage::FileOps::Default(), config->metadata_log_dir,
                                                          **bootstrap);
        !written.ok()) {
      err << "strata-storage format: " << written.message() << std::endl;
      return kExitProblem;
    }
    out << "Initial voters of the dynamic quorum: " << (*bootstrap)->DebugString() << " (in "
        << storage::JoinPath(config->metadata_log_dir, raft::kBootstrapVotersFileName) << ")" << std::endl;
  }
  return kExitOk;
}

}  // namespace strata::tools
