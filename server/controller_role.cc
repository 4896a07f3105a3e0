#include "server/controller_role.h"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "admin.grpc.pb.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "raft/bootstrap_resolver.h"
#include "raft/bootstrap_voters.h"
#include "server/control_plane_security.h"
#include "server/quorum_bootstrap.h"

namespace strata::server {
namespace {

// How often a dynamic controller that knows no voters asks the bootstrap servers, and a
// voter checks its own endpoint in the configuration.
constexpr std::chrono::milliseconds kResolveInterval{500};
// How long a voter's update of its own endpoint may take.
constexpr std::chrono::milliseconds kUpdateTimeout{5000};

}  // namespace

absl::StatusOr<std::unique_ptr<ControllerRole>> ControllerRole::Start(const ServerConfig& config,
                                                                      const storage::MetaProperties& meta,
                                                                      std::function<void(const absl::Status&)> on_fatal) {
  const std::string& cluster_id = meta.cluster_id;
  std::unique_ptr<ControllerRole> role(new ControllerRole(config));
  STRATA_ASSIGN_OR_RETURN(role->store_,
                          controller::MetadataStore::Open(storage::JoinPath(config.metadata_log_dir, kMetadataImageDir)));
  STRATA_ASSIGN_OR_RETURN(std::optional<raft::VoterSet> bootstrap,
                          raft::ReadBootstrapVoters(*storage::FileOps::Default(), config.metadata_log_dir));
  raft::RaftNodeOptions options;
  options.config.id = config.node_id;
  std::map<raft::NodeId, std::string> peers;
  // A static quorum's voters send it too: it is their key once the quorum is upgraded
  // to a dynamic one (kraft.version 1), which the leader learns from their answers.
  STRATA_ASSIGN_OR_RETURN(options.config.directory_id, storage::DecodeBase64Uuid(meta.directory_id));
  role->directory_id_ = options.config.directory_id;
  if (config.dynamic_quorum()) {
    options.config.bootstrap = std::move(bootstrap);
  } else {
    if (bootstrap.has_value()) {
      return absl::FailedPreconditionError(absl::StrCat(
          config.metadata_log_dir, " was formatted for a dynamic quorum (", raft::kBootstrapVotersFileName,
          "), but the configuration names a static one (controller.quorum.voters); set "
          "controller.quorum.bootstrap.servers instead"));
    }
    for (const auto& [id, address] : config.voters) {
      options.config.voters.push_back(id);
      if (id != config.node_id) peers[id] = address;
    }
    // The static addresses stay peers; the configurations add those of voters added
    // once the quorum was upgraded (UpdatePeers).
    absl::MutexLock lock(&role->peers_mu_);
    role->resolved_ = peers;
  }
  STRATA_RETURN_IF_ERROR(CheckControlPlaneTls(config));
  security::TlsFiles tls = ControlPlaneTlsFiles(config);
  role->transport_ = std::make_unique<raft::GrpcTransport>(peers, cluster_id, security::ChannelCredentials(tls));
  role->authorizer_ = MakeControlPlaneAuthorizer(config, *role->store_);

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
  options.on_membership = [r = role.get()](const raft::Membership& membership) {
    absl::MutexLock lock(&r->peers_mu_);
    r->membership_ = membership;
    r->UpdatePeers();
  };
  STRATA_ASSIGN_OR_RETURN(role->node_, raft::RaftNode::Start(options));

  controller::QuorumControllerOptions controller_options;
  controller_options.cluster_id = cluster_id;
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
  controller_options.controller_listener_name = config.controller_listener_names;
  role->controller_ = std::make_unique<controller::QuorumController>(*role->node_, *role->store_, controller_options);
  role->controller_service_ =
      std::make_unique<controller::ControllerGrpcService>(*role->controller_, role->authorizer_.get());
  role->admin_service_ = std::make_unique<controller::AdminGrpcService>(*role->controller_, role->authorizer_.get());
  const std::string address = config.ControllerAddress();
  STRATA_ASSIGN_OR_RETURN(
      role->server_,
      raft::RaftServer::Start(address, {role->controller_service_.get(), role->admin_service_.get()}, cluster_id,
                              {.credentials = security::ServerCredentials(tls), .authorizer = role->authorizer_.get()}));
  role->server_->Attach(role->node_.get());
  if (config.dynamic_quorum()) {
    role->bootstrap_ = MakeQuorumResolver(config, cluster_id);
    role->resolver_ = std::thread(&ControllerRole::ResolveBootstrapServers, role.get(), cluster_id, tls);
    raft::RaftNodeStatus st = role->node_->status();
    spdlog::info("controller {} (directory {}) listening on {} ({}), a dynamic quorum: {}, metadata log in {}",
                 config.node_id, meta.directory_id, address, tls.enabled() ? "mutual TLS" : "PLAINTEXT",
                 st.configuration.empty() ? std::string("no voters known yet (asking controller.quorum.bootstrap.servers)")
                                          : absl::StrCat("voters ", st.configuration.DebugString()),
                 config.metadata_log_dir);
  } else {
    spdlog::info("controller {} listening on {} ({}), voters {}, metadata log in {}", config.node_id, address,
                 tls.enabled() ? "mutual TLS" : "PLAINTEXT", config.voters.size(), config.metadata_log_dir);
  }
  return role;
}

void ControllerRole::UpdatePeers() {
  std::vector<const raft::Voter*> seen;
  for (const auto& [id, voter] : membership_.voters.voters()) seen.push_back(&voter);
  if (membership_.learner.has_value()) seen.push_back(&*membership_.learner);
  for (const raft::Voter* v : seen) {
    for (const raft::Endpoint& e : v->endpoints) {
      if (e.name == config_.controller_listener_names) known_[v->id] = absl::StrCat(e.host, ":", e.port);
    }
  }
  // Every controller known, not only the latest configuration's voters: a leader that
  // removed itself leads until that commits, and the others must answer it.
  std::map<raft::NodeId, std::string> peers = resolved_;
  for (const auto& [id, address] : known_) peers[id] = address;
  peers.erase(config_.node_id);
  std::set<int32_t> members;
  for (const auto& [id, address] : peers) members.insert(id);
  authorizer_->SetQuorumMembers(std::move(members));
  if (peers == peers_) return;
  peers_ = peers;
  std::string list;
  for (const auto& [id, address] : peers) absl::StrAppend(&list, list.empty() ? "" : ", ", id, "@", address);
  spdlog::info("controller peers: {}", list.empty() ? "none" : list);
  transport_->SetPeers(peers);
}

void ControllerRole::ResolveBootstrapServers(std::string cluster_id, security::TlsFiles tls) {
  auto credentials = security::ChannelCredentials(tls);
  peers_mu_.Lock();
  while (!stopping_) {
    const bool resolve = membership_.voters.empty();
    peers_mu_.Unlock();
    raft::ResolvedQuorum resolved;
    if (resolve) {
      resolved = bootstrap_->Resolve(kResolveInterval);
    }
    if (!resolve) UpdateOwnEndpoint(cluster_id, credentials);
    peers_mu_.Lock();
    if (resolve) {
      for (const auto& [id, address] : resolved.addresses) resolved_[id] = address;
      UpdatePeers();
    }
    peers_mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(kResolveInterval));
  }
  peers_mu_.Unlock();
}

void ControllerRole::UpdateOwnEndpoint(const std::string& cluster_id,
                                       const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  raft::RaftNodeStatus st = node_->status();
  const raft::Voter* me = st.configuration.Find(config_.node_id);
  if (me == nullptr || me->directory_id != directory_id_) return;
  auto [host, port] = config_.ControllerAdvertised();
  const raft::Endpoint want{config_.controller_listener_names, host, static_cast<uint16_t>(port)};
  raft::Voter updated = *me;
  auto listed = std::find_if(updated.endpoints.begin(), updated.endpoints.end(),
                             [&](const raft::Endpoint& e) { return e.name == want.name; });
  if (listed != updated.endpoints.end() && *listed == want) return;  // current
  const std::string before =
      listed == updated.endpoints.end() ? std::string("none") : absl::StrCat(listed->host, ":", listed->port);
  if (listed != updated.endpoints.end()) {
    *listed = want;
  } else {
    updated.endpoints.push_back(want);
  }
  std::string outcome;
  if (st.leader == config_.node_id) {
    raft::VoterChange change;
    change.kind = raft::VoterChange::Kind::kUpdate;
    change.voter = updated;
    raft::VoterChangeResult result = node_->ChangeVoters(change, kUpdateTimeout);
    outcome = result.ok() ? "done" : result.message;
  } else {
    // The leader, or while none is known every peer in turn: the leader sends to the
    // endpoint in the configuration, so a voter that moved hears from no leader until
    // the update commits; a peer that does not lead refuses (NOT_CONTROLLER).
    std::vector<std::pair<raft::NodeId, std::string>> targets;
    {
      absl::MutexLock lock(&peers_mu_);
      for (const auto& [id, address] : peers_) {
        if (st.leader == raft::kNoNode || id == st.leader) targets.emplace_back(id, address);
      }
    }
    admin::v1::UpdateRaftVoterRequest request;
    request.set_cluster_id(cluster_id);
    request.set_voter_id(config_.node_id);
    request.set_voter_directory_id(directory_id_);
    for (const raft::Endpoint& e : updated.endpoints) {
      admin::v1::RaftVoterEndpoint* out = request.add_listeners();
      out->set_name(e.name);
      out->set_host(e.host);
      out->set_port(e.port);
    }
    request.set_min_kraft_version(updated.min_kraft_version);
    request.set_max_kraft_version(updated.max_kraft_version);
    request.set_timeout_ms(static_cast<int32_t>(kUpdateTimeout.count()));
    for (const auto& [id, address] : targets) {
      std::shared_ptr<grpc::Channel>& channel = update_channels_[address];
      if (channel == nullptr) channel = grpc::CreateChannel(address, credentials);
      auto stub = admin::v1::AdminService::NewStub(channel);
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + kUpdateTimeout + std::chrono::seconds(1));
      admin::v1::RaftVoterChangeResponse response;
      grpc::Status status = stub->UpdateRaftVoter(&context, request, &response);
      absl::StrAppend(&outcome, outcome.empty() ? "" : "; ", "controller ", id, ": ",
                      !status.ok()                 ? status.error_message()
                      : response.error_code() != 0 ? response.error_message()
                                                   : "done");
      if (status.ok() && response.error_code() == 0) break;
    }
    if (targets.empty()) outcome = "no controller to ask";
  }
  if (outcome == last_update_outcome_) return;  // a retry every kResolveInterval: said once
  last_update_outcome_ = outcome;
  spdlog::info("UpdateRaftVoter of controller {} ({} -> {}:{}): {}", config_.node_id, before, want.host, want.port,
               outcome);
}

ControllerRole::~ControllerRole() { (void)Stop(); }

absl::Status ControllerRole::Stop() {
  if (stopped_) return absl::OkStatus();
  stopped_ = true;
  {
    absl::MutexLock lock(&peers_mu_);
    stopping_ = true;
  }
  if (resolver_.joinable()) resolver_.join();
  // A Start that failed part of the way (a port taken, a metadata log that does not open)
  // leaves the later parts null.
  if (node_ == nullptr) return absl::OkStatus();
  node_->Stop();               // waiting proposals and observers return
  // Session streams' calls return, so that the server stops at once.
  if (controller_ != nullptr) controller_->CancelSessionStreams();
  if (server_ != nullptr) server_->Attach(nullptr);
  server_.reset();             // no call reaches the controller any more
  transport_.reset();          // its threads report to the node
  controller_.reset();         // its session thread reads the node
  return node_->Close();
}

}  // namespace strata::server
