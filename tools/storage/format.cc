// strata-storage format / random-uuid: give a node's directories their identity
// (storage/meta_properties.h), as Kafka's kafka-storage format does.

#include <ostream>

#include "storage/meta_properties.h"
#include "server/server_config.h"
#include "tools/storage/storage_tool.h"

namespace strata::tools {

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
  std::vector<std::string> dirs = {config->metadata_log_dir};
  for (const std::string& d : config->log_dirs) {
    if (d != config->metadata_log_dir) dirs.push_back(d);
  }
  for (const std::string& dir : dirs) {
    auto m = storage::FormatDirectory(*storage::FileOps::Default(), dir, options.cluster_id, config->node_id);
    if (!m.ok()) {
      err << "strata-storage format: " << m.status().message() << std::endl;
      return kExitProblem;
    }
    out << "Formatted " << dir << " (cluster " << m->cluster_id << ", node " << m->node_id << ", directory "
        << m->directory_id << ")" << std::endl;
  }
  return kExitOk;
}

}  // namespace strata::tools
