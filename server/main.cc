// strata-server --config server.properties [--override key=value ...]
// strata-server --help-config   (every setting, as docs/configuration.md)
// Runs one Strata node with the roles of process.roles: controller (a voter of the Raft
// metadata quorum and, when it leads, the active controller), broker (follows the
// metadata, registers and heartbeats, serves its partitions on the Kafka listeners and
// replicates them), or both.
// Every directory must have been formatted (strata-storage format).
// Exit codes: 0 after SIGTERM/SIGINT (clean shutdown; a broker moves its leaderships
// away first), 1 for a configuration error, 2 when startup fails (unformatted or
// foreign directories included), 70 when the metadata log or image fails at run time
// (one ERROR line says why; a node never goes on voting, leading or serving on metadata
// it cannot read or write), 71 when every log dir of a broker has failed (one ERROR line
// names them; nothing it holds can be served, its leaderships have moved).
// STRATA_MUTEX_DEADLOCK_DETECTION=abort|report|off (unset: off) sets absl's lock-order
// checking (base/deadlock_detection.h); the tests run with abort.

#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <prometheus/registry.h>

#include "base/deadlock_detection.h"
#include "base/logging.h"
#include "controller/metrics.h"
#include "raft/metrics.h"
#include "storage/meta_properties.h"
#include "server/broker_role.h"
#include "server/control_plane_security.h"
#include "server/controller_role.h"
#include "server/server_config.h"
#include "server/remote_storage_metrics.h"
#include "server/memory_metrics.h"
#include "server/metrics_listener.h"
#include "server/memory_releaser.h"
#include "server/broker_metrics.h"
#include "server/group_metrics.h"
#include "server/transaction_metrics.h"
#include "server/json_log_formatter.h"
#include "server/storage_metrics.h"

namespace {

constexpr int kExitConfig = 1;
constexpr int kExitStartup = 2;
constexpr int kExitMetadataFailure = 70;
constexpr int kExitEveryLogDirFailed = 71;

int Usage() {
  std::cerr << "usage: strata-server --config FILE [--override key=value ...]\n"
               "       strata-server --help-config" << std::endl;
  return kExitConfig;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  if (absl::Status s = SetDeadlockDetectionFromEnvironment(); !s.ok()) {
    std::cerr << "strata-server: " << s.message() << std::endl;
    return kExitConfig;
  }
  std::string config_path;
  std::vector<std::string> overrides;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help-config") {
      std::cout << server::ConfigurationReference();
      return 0;
    }
    if (arg == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (arg == "--override" && i + 1 < argc) {
      overrides.push_back(argv[++i]);
    } else {
      return Usage();
    }
  }
  if (config_path.empty()) return Usage();
  auto config = server::ServerConfig::Load(config_path, overrides);
  if (!config.ok()) {
    std::cerr << "strata-server: " << config.status().message() << std::endl;
    return kExitConfig;
  }
  if (config->log_format == "json") {
    spdlog::set_formatter(std::make_unique<server::JsonLogFormatter>(config->node_id));
  } else {
    spdlog::set_pattern(absl::StrCat("[%Y-%m-%d %H:%M:%S.%e] [node ", config->node_id, "] [%l] %v"));
  }
  // STRATA_LOG_LEVEL (trace, debug, info, warning, error): more or less than the default info.
  if (const char* level = getenv("STRATA_LOG_LEVEL"); level != nullptr && *level != '\0') {
    spdlog::set_level(spdlog::level::from_str(level));
  }

  // Every directory must belong to this node of one cluster.
  auto meta = storage::CheckFormatted(*storage::FileOps::Default(), config->metadata_log_dir, config->node_id);
  if (!meta.ok()) {
    spdlog::error("{}", meta.status().message());
    return kExitStartup;
  }
  std::vector<std::string> log_dir_ids;
  if (config->broker) {
    for (const std::string& dir : config->log_dirs) {
      auto m = storage::CheckFormatted(*storage::FileOps::Default(), dir, config->node_id, meta->cluster_id);
      if (!m.ok()) {
        spdlog::error("{}", m.status().message());
        return kExitStartup;
      }
      log_dir_ids.push_back(*storage::DecodeBase64Uuid(m->directory_id));
    }
  }

  // Block the stop signals in every thread; main waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto on_fatal = [](const absl::Status&) {
    spdlog::default_logger()->flush();
    std::_Exit(kExitMetadataFailure);  // the ERROR line is already out
  };
  server::WarnAboutUnauthenticatedListeners(*config);
  std::unique_ptr<server::ControllerRole> controller_role;
  if (config->controller) {
    auto started = server::ControllerRole::Start(*config, *meta, on_fatal);
    if (!started.ok()) {
      spdlog::error("cannot start the controller: {}", started.status().ToString());
      return kExitStartup;
    }
    controller_role = std::move(*started);
  }
  std::unique_ptr<server::BrokerRole> broker_role;
  if (config->broker) {
    auto started = server::BrokerRole::Start(*config, meta->cluster_id, log_dir_ids,
                                             controller_role ? &controller_role->store() : nullptr, on_fatal, [] {
                                               spdlog::default_logger()->flush();
                                               std::_Exit(kExitEveryLogDirFailed);
                                             });
    if (!started.ok()) {
      spdlog::error("cannot start the broker: {}", started.status().ToString());
      return kExitStartup;
    }
    broker_role = std::move(*started);
  }

  server::MemoryReleaser memory_releaser(absl::Milliseconds(config->memory_release_interval_ms));
  std::unique_ptr<server::MetricsListener> metrics;
  std::shared_ptr<raft::RaftMetrics> raft_metrics;
  std::shared_ptr<controller::MetadataMetrics> metadata_metrics;
  std::shared_ptr<server::StorageMetrics> storage_metrics;
  std::shared_ptr<server::RemoteStorageMetrics> remote_storage_metrics;
  std::vector<std::shared_ptr<prometheus::Collectable>> coordinator_metrics;  // groups, transactions
  std::shared_ptr<server::BrokerMetrics> broker_metrics;
  std::shared_ptr<server::MemoryMetrics> memory_metrics;
  if (!config->metrics_listener.empty()) {
    absl::StatusOr<std::unique_ptr<server::MetricsListener>> listening =
        server::MetricsListener::Start(config->metrics_listener);
    if (!listening.ok()) {
      spdlog::error("{}", listening.status().message());
      return kExitStartup;
    }
    metrics = std::move(*listening);
    if (controller_role) {
      raft_metrics = std::make_shared<raft::RaftMetrics>(controller_role->node());
      metrics->Register(raft_metrics);
    }
    metadata_metrics = std::make_shared<controller::MetadataMetrics>(
        controller_role ? controller_role->store() : broker_role->store());
    metrics->Register(metadata_metrics);
    memory_metrics = std::make_shared<server::MemoryMetrics>(&memory_releaser);
    metrics->Register(memory_metrics);
    if (broker_role) {
      storage_metrics = std::make_shared<server::StorageMetrics>(broker_role->logs());
      metrics->Register(storage_metrics);
      coordinator_metrics = {std::make_shared<server::GroupMetrics>(broker_role->group_coordinator()),
                             std::make_shared<server::TransactionMetrics>(broker_role->transaction_coordinator(),
                                                                    broker_role->txn_verifier())};
      for (const auto& c : coordinator_metrics) metrics->Register(c);
      broker_metrics = std::make_shared<server::BrokerMetrics>(*broker_role);
      metrics->Register(broker_metrics);
      if (broker_role->remote_log_manager() != nullptr) {
        remote_storage_metrics = std::make_shared<server::RemoteStorageMetrics>(*broker_role);
        metrics->Register(remote_storage_metrics);
      }
    }
    spdlog::info("metrics on http://{}/metrics", config->metrics_listener);
  }
  spdlog::info("node {} of cluster {} running as {}", config->node_id, meta->cluster_id, config->process_roles);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("signal {}: shutting down", signal_number);
  if (metrics) metrics->Stop();  // before the roles its collectables read
  if (broker_role) broker_role->Stop(std::chrono::milliseconds(config->broker_session_timeout_ms));
  broker_role.reset();
  if (controller_role) {
    absl::Status closed = controller_role->Stop();
    if (!closed.ok()) {
      spdlog::error("unclean shutdown of the metadata log: {}", closed.ToString());
      return kExitStartup;
    }
  }
  return 0;
}
