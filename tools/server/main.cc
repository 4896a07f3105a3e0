// strata-server --config server.properties
// Runs one Strata node. Today: a controller, a voter of the Raft metadata quorum
// (process.roles=controller). Exit codes: 0 after SIGTERM/SIGINT (clean shutdown),
// 1 for a configuration error, 2 when startup fails, 70 when the metadata log fails
// at run time (one ERROR line says why; a node never goes on voting or leading on a
// log it cannot read or write).

#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "base/logging.h"
#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include "controller/controller_service.h"
#include "controller/metadata_store.h"
#include "controller/quorum_controller.h"
#include "raft/grpc_transport.h"
#include "raft/metrics.h"
#include "raft/raft_node.h"
#include "raft/state_machine.h"
#include "tools/server/server_config.h"

int main(int argc, char** argv) {
  using namespace strata;
  std::string config_path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else {
      std::cerr << "usage: strata-server --config FILE" << std::endl;
      return 1;
    }
  }
  if (config_path.empty()) {
    std::cerr << "usage: strata-server --config FILE" << std::endl;
    return 1;
  }
  auto config = server::ServerConfig::Load(config_path);
  if (!config.ok()) {
    std::cerr << "strata-server: " << config.status().message() << std::endl;
    return 1;
  }
  spdlog::set_pattern(absl::StrCat("[%Y-%m-%d %H:%M:%S.%e] [node ", config->node_id, "] [%l] %v"));

  // Block the stop signals in every thread; main waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const std::string& own_address = config->voters.at(config->node_id);
  std::map<raft::NodeId, std::string> peers;
  std::vector<raft::NodeId> voter_ids;
  for (const auto& [id, address] : config->voters) {
    voter_ids.push_back(id);
    if (id != config->node_id) peers[id] = address;
  }
  auto transport = std::make_unique<raft::GrpcTransport>(peers);
  // The metadata image: applied records in memory and in RocksDB.
  std::string image_dir = config->metadata_log_dir + "/metadata-image";
  auto store = controller::MetadataStore::Open(image_dir);
  if (!store.ok()) {
    spdlog::error("cannot open the metadata image in {}: {}", image_dir, store.status().ToString());
    return 2;
  }

  raft::RaftNodeOptions options;
  options.config.id = config->node_id;
  options.config.voters = voter_ids;
  options.tick_interval = std::chrono::milliseconds(10);
  options.config.election_ticks = std::max(2, config->election_timeout_ms / 10);
  options.config.seed = static_cast<uint64_t>(config->node_id) ^ static_cast<uint64_t>(getpid()) << 16;
  options.metadata_log_dir = config->metadata_log_dir;
  options.transport = transport.get();
  options.state_machine = store->get();
  options.snapshot_bytes = config->snapshot_bytes;
  options.segment_bytes = config->segment_bytes;
  options.on_fatal = [](const absl::Status&) {
    spdlog::default_logger()->flush();
    std::_Exit(70);  // the ERROR line is already out
  };
  auto node = raft::RaftNode::Start(options);
  if (!node.ok()) {
    spdlog::error("cannot start the Raft node on {}: {}", config->metadata_log_dir, node.status().ToString());
    return 2;
  }
  controller::QuorumControllerOptions controller_options;
  controller_options.voters = voter_ids;
  controller_options.session_timeout = std::chrono::milliseconds(config->broker_session_timeout_ms);
  controller_options.config.default_partitions = config->num_partitions;
  controller_options.config.default_replication_factor = config->default_replication_factor;
  controller_options.config.unclean_leader_election = config->unclean_leader_election_enable;
  controller_options.config.delete_topic_enable = config->delete_topic_enable;
  controller::QuorumController quorum_controller(**node, **store, controller_options);
  controller::ControllerGrpcService controller_service(quorum_controller);
  controller::AdminGrpcService admin_service(quorum_controller);
  auto rpc_server = raft::RaftServer::Start(own_address, {&controller_service, &admin_service});
  if (!rpc_server.ok()) {
    spdlog::error("cannot listen on {}: {}", own_address, rpc_server.status().ToString());
    return 2;
  }
  (*rpc_server)->Attach(node->get());
  std::unique_ptr<prometheus::Exposer> exposer;
  auto metrics = std::make_shared<raft::RaftMetrics>(**node);
  if (!config->metrics_listener.empty()) {
    try {
      exposer = std::make_unique<prometheus::Exposer>(config->metrics_listener);
    } catch (const std::exception& e) {
      spdlog::error("cannot serve metrics on {}: {}", config->metrics_listener, e.what());
      return 2;
    }
    exposer->RegisterCollectable(metrics);
    spdlog::info("metrics on http://{}/metrics", config->metrics_listener);
  }
  spdlog::info("controller {} listening on {}, voters {}, metadata log in {}", config->node_id, own_address,
               voter_ids.size(), config->metadata_log_dir);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("signal {}: shutting down", signal_number);
  // The node stops taking part first (waiting proposals and observers return), then
  // the server lets go of it, then the transport's threads end, then the log closes.
  exposer.reset();
  (*node)->Stop();
  (*rpc_server)->Attach(nullptr);
  transport.reset();
  absl::Status closed = (*node)->Close();
  if (!closed.ok()) {
    spdlog::error("unclean shutdown of the metadata log: {}", closed.ToString());
    return 2;
  }
  return 0;
}
