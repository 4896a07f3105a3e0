#include "server/controller_role.h"

#include <unistd.h>

#include "base/logging.h"
#include "base/status_macros.h"
#include "server/control_plane_security.h"

namespace strata::server {

absl::StatusOr<std::unique_ptr<ControllerRole>> ControllerRole::Start(const ServerConfig& config,
                                                                      const std::string& cluster_id,
                                                                      std::function<void(const absl::Status&)> on_fatal) {
  std::unique_ptr<ControllerRole> role(new ControllerRole());
  STRATA_ASSIGN_OR_RETURN(role->store_,
                          controller::MetadataStore::Open(storage::JoinPath(config.metadata_log_dir, kMetadataImageDir)));
  std::map<raft::NodeId, std::string> peers;
  std::vector<raft::NodeId> voter_ids;
  for (const auto& [id, address] : config.voters) {
    voter_ids.push_back(id);
    if (id != config.node_id) peers[id] = address;
  }
  STRATA_RETURN_IF_ERROR(CheckControlPlaneTls(config));
  security::TlsFiles tls = ControlPlaneTlsFiles(config);
  role->transport_ = std::make_unique<raft::GrpcTransport>(peers, cluster_id, security::ChannelCredentials(tls));

  raft::RaftNodeOptions options;
  options.config.id = config.node_id;
  options.config.voters = voter_ids;
  options.tick_interval = std::chrono::milliseconds(10);
  options.config.election_ticks = std::max(2, config.election_timeout_ms / 10);
  // A heartbeat every fifth of the election timeout (60 ms at the default 300 ms): a
  // follower still hears from the leader five times before it would stand, without 200
  // gRPC calls a second from an idle leader taking the CPUs the data path needs (each
  // costs the one-at-a-time produce path a request of over 1 ms; docs/performance.md).
  // Commits do not wait for it: the leader tells the followers when one moves.
  options.config.heartbeat_ticks = std::max(1, options.config.election_ticks / 5);
  options.config.seed = static_cast<uint64_t>(config.node_id) ^ static_cast<uint64_t>(getpid()) << 16;
  options.metadata_log_dir = config.metadata_log_dir;
  options.transport = role->transport_.get();
  options.state_machine = role->store_.get();
  options.snapshot_bytes = config.snapshot_bytes;
  options.segment_bytes = config.segment_bytes;
  options.on_fatal = std::move(on_fatal);
  STRATA_ASSIGN_OR_RETURN(role->node_, raft::RaftNode::Start(options));

  controller::QuorumControllerOptions controller_options;
  controller_options.cluster_id = cluster_id;
  controller_options.voters = voter_ids;
  controller_options.voter_addresses = config.voters;
  controller_options.session_timeout = std::chrono::milliseconds(config.broker_session_timeout_ms);
  controller_options.config.default_partitions = config.num_partitions;
  controller_options.config.default_replication_factor = config.default_replication_factor;
  controller_options.config.unclean_leader_election = config.unclean_leader_election_enable;
  controller_options.config.auto_leader_rebalance = config.auto_leader_rebalance_enable;
  controller_options.config.leader_imbalance_percentage = config.leader_imbalance_per_broker_percentage;
  controller_options.leader_imbalance_check_interval =
      std::chrono::seconds(config.leader_imbalance_check_interval_seconds);
  controller_options.config.delete_topic_enable = config.delete_topic_enable;
  controller_options.config.remote_storage_system_enable = config.remote_log_storage_system_enable;
  controller_options.authorizer_enabled = !config.authorizer_class_name.empty();
  role->controller_ = std::make_unique<controller::QuorumController>(*role->node_, *role->store_, controller_options);
  role->authorizer_ = MakeControlPlaneAuthorizer(config, *role->store_);
  role->controller_service_ =
      std::make_unique<controller::ControllerGrpcService>(*role->controller_, role->authorizer_.get());
  role->admin_service_ = std::make_unique<controller::AdminGrpcService>(*role->controller_, role->authorizer_.get());
  const std::string& address = config.voters.at(config.node_id);
  STRATA_ASSIGN_OR_RETURN(
      role->server_,
      raft::RaftServer::Start(address, {role->controller_service_.get(), role->admin_service_.get()}, cluster_id,
                              {.credentials = security::ServerCredentials(tls), .authorizer = role->authorizer_.get()}));
  role->server_->Attach(role->node_.get());
  spdlog::info("controller {} listening on {} ({}), voters {}, metadata log in {}", config.node_id, address,
               tls.enabled() ? "mutual TLS" : "PLAINTEXT", voter_ids.size(), config.metadata_log_dir);
  return role;
}

ControllerRole::~ControllerRole() { (void)Stop(); }

absl::Status ControllerRole::Stop() {
  if (stopped_) return absl::OkStatus();
  stopped_ = true;
  node_->Stop();               // waiting proposals and observers return
  controller_->CancelSessionStreams();  // their calls return, so the server stops at once
  server_->Attach(nullptr);
  server_.reset();             // no call reaches the controller any more
  transport_.reset();          // its threads report to the node
  controller_.reset();         // its session thread reads the node
  return node_->Close();
}

}  // namespace strata::server
