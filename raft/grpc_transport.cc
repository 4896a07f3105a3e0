#include "raft/grpc_transport.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "raft.grpc.pb.h"
#include "raft/log_entry_proto.h"
#include "raft/observer.h"
#include "raft/snapshot_transfer.h"
#include "raft/voter_set.h"
#include "security/control_plane_authorizer.h"
#include "storage/errc.h"

namespace strata::raft {
namespace {

namespace pb = strata::raft::v1;

void ToProto(const Message& m, pb::RaftMessage* out) {
  out->set_type(static_cast<pb::MessageType>(static_cast<int>(m.type)));
  out->set_from(m.from);
  out->set_to(m.to);
  out->set_term(m.term);
  out->set_index(m.index);
  out->set_log_term(m.log_term);
  out->set_commit(m.commit);
  out->set_reject(m.reject);
  out->set_reject_hint(m.reject_hint);
  out->set_to_directory(m.to_directory);
  out->set_from_directory(m.from_directory);
  out->set_voters(m.voters);
  for (const Entry& e : m.entries) EntryToProto(e, out->add_entries());
}

Message FromProto(const pb::RaftMessage& in) {
  Message m;
  m.type = static_cast<MessageType>(static_cast<int>(in.type()));
  m.from = in.from();
  m.to = in.to();
  m.term = in.term();
  m.index = in.index();
  m.log_term = in.log_term();
  m.commit = in.commit();
  m.reject = in.reject();
  m.reject_hint = in.reject_hint();
  m.to_directory = in.to_directory();
  m.from_directory = in.from_directory();
  m.voters = in.voters();
  for (const pb::LogEntry& e : in.entries()) m.entries.push_back(EntryFromProto(e));
  return m;
}

// Messages whose fields are out of range are refused rather than fed to the core.
bool Plausible(const pb::RaftMessage& m) {
  if (m.type() < pb::PRE_VOTE || m.type() > pb::SNAPSHOT) return false;
  if (m.term() < 0 || m.index() < 0 || m.log_term() < 0 || m.commit() < 0 || m.reject_hint() < 0) return false;
  if (!m.voters().empty() && !VoterSet::Decode(m.voters()).ok()) return false;
  int64_t expected = m.index() + 1;
  for (const pb::LogEntry& e : m.entries()) {
    if (e.index() != expected++ || e.term() < 0 || !PlausibleEntryType(e.type())) return false;
    if (e.type() != pb::DATA && !ValidateConfigurationEntry(EntryFromProto(e)).ok()) return false;
  }
  return true;
}

}  // namespace

struct GrpcTransport::Peer {
  std::unique_ptr<pb::RaftTransport::Stub> stub;
  // The sender threads wait on conditions over what mu guards.
  absl::Mutex mu;
  std::deque<Message> queue ABSL_GUARDED_BY(mu);
  size_t max_queued = 0;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  std::atomic<int64_t> dropped{0};
  std::string cluster_id;
  std::string address;  // host:port of its RaftServer
  std::thread sender;
  // One snapshot transfer at a time, on its own thread so heartbeats keep flowing.
  struct SnapshotJob {
    Message message;
    const SnapshotStore* store;
    std::function<void(bool)> done;
  };
  std::optional<SnapshotJob> snapshot_job ABSL_GUARDED_BY(mu);
  std::thread snapshot_sender;
  storage::FileOps* ops = storage::FileOps::Default();

  void RunSnapshots() {
    while (true) {
      SnapshotJob job;
      {
        absl::MutexLock lock(&mu);
        auto ready = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu) { return stopping || snapshot_job.has_value(); };
        mu.Await(absl::Condition(&ready));
        if (stopping) break;
        job = std::move(*snapshot_job);
        snapshot_job.reset();
      }
      job.done(Transfer(job));
    }
    std::optional<SnapshotJob> left;
    {
      absl::MutexLock lock(&mu);
      left.swap(snapshot_job);
    }
    if (left) left->done(false);
  }

  bool Transfer(const SnapshotJob& job) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(5));
    pb::InstallSnapshotResponse response;
    auto writer = stub->InstallSnapshot(&context, &response);
    SnapshotMeta meta{job.message.index, job.message.log_term};
    absl::Status sent = ForEachSnapshotChunk(*job.store, *ops, meta, [&](pb::SnapshotChunk& chunk) {
      pb::InstallSnapshotRequest request;
      request.set_cluster_id(cluster_id);
      bool last = chunk.done();
      request.mutable_chunk()->Swap(&chunk);
      if (last) ToProto(job.message, request.mutable_message());
      return writer->Write(request);
    });
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (!sent.ok() || !status.ok()) {
      spdlog::warn("snapshot {} to node {} failed: {} {}", meta.index, job.message.to, sent.ToString(),
                   status.error_message());
      return false;
    }
    return true;
  }

  void Run() {
    while (true) {
      pb::RaftBatch batch;
      batch.set_cluster_id(cluster_id);
      {
        absl::MutexLock lock(&mu);
        auto ready = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu) { return stopping || !queue.empty(); };
        mu.Await(absl::Condition(&ready));
        if (stopping) return;
        while (!queue.empty() && batch.messages_size() < 256) {
          ToProto(queue.front(), batch.add_messages());
          queue.pop_front();
        }
      }
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
      pb::DeliverResponse response;
      grpc::Status status = stub->Deliver(&context, batch, &response);
      if (!status.ok()) dropped += batch.messages_size();  // Raft retries
    }
  }
};

GrpcTransport::GrpcTransport(std::map<NodeId, std::string> peers, std::string cluster_id,
                             std::shared_ptr<grpc::ChannelCredentials> credentials, size_t max_queued_per_peer)
    : cluster_id_(std::move(cluster_id)),
      credentials_(credentials != nullptr ? std::move(credentials) : grpc::InsecureChannelCredentials()),
      max_queued_per_peer_(max_queued_per_peer) {
  SetPeers(peers);
}

std::shared_ptr<GrpcTransport::Peer> GrpcTransport::StartPeer(const std::string& address) {
  auto peer = std::make_shared<Peer>();
  peer->address = address;
  peer->cluster_id = cluster_id_;
  grpc::ChannelArguments args;
  // A peer that restarts must be reachable again within an election timeout, not after
  // gRPC's default 20 s minimum connect backoff.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 200);
  peer->stub = pb::RaftTransport::NewStub(grpc::CreateCustomChannel(address, credentials_, args));
  peer->max_queued = max_queued_per_peer_;
  Peer* raw = peer.get();
  peer->sender = std::thread([raw] { raw->Run(); });
  peer->snapshot_sender = std::thread([raw] { raw->RunSnapshots(); });
  return peer;
}

void GrpcTransport::SetPeers(const std::map<NodeId, std::string>& peers) {
  absl::MutexLock lock(&mu_);
  for (auto it = peers_.begin(); it != peers_.end();) {
    auto wanted = peers.find(it->first);
    if (wanted != peers.end() && wanted->second == it->second->address) {
      ++it;
      continue;
    }
    std::shared_ptr<Peer> peer = it->second;
    {
      absl::MutexLock peer_lock(&peer->mu);
      peer->stopping = true;
    }
    dropped_by_stopped_ += peer->dropped.load();
    reapers_.emplace_back([peer] {
      peer->sender.join();
      peer->snapshot_sender.join();
    });
    it = peers_.erase(it);
  }
  for (const auto& [id, address] : peers) {
    if (peers_.count(id) != 0) continue;
    peers_[id] = StartPeer(address);
  }
}

std::shared_ptr<GrpcTransport::Peer> GrpcTransport::FindPeer(NodeId id) const {
  absl::MutexLock lock(&mu_);
  auto it = peers_.find(id);
  return it == peers_.end() ? nullptr : it->second;
}

GrpcTransport::~GrpcTransport() {
  SetPeers({});  // every peer stops
  std::vector<std::thread> reapers;
  {
    absl::MutexLock lock(&mu_);
    reapers.swap(reapers_);
  }
  for (std::thread& t : reapers) t.join();
}

void GrpcTransport::SendSnapshot(const Message& message, const SnapshotStore& store, std::function<void(bool)> done) {
  std::shared_ptr<Peer> found = FindPeer(message.to);
  if (found == nullptr) {
    done(false);
    return;
  }
  Peer& peer = *found;
  {
    absl::MutexLock lock(&peer.mu);
    if (!peer.stopping && !peer.snapshot_job.has_value()) {
      peer.snapshot_job = Peer::SnapshotJob{message, &store, std::move(done)};
      done = nullptr;
    }
  }
  if (done) {
    done(false);  // one at a time: the leader sends it again later
    return;
  }
}

void GrpcTransport::Send(const Message& message) {
  std::shared_ptr<Peer> found = FindPeer(message.to);
  if (found == nullptr) return;
  Peer& peer = *found;
  {
    absl::MutexLock lock(&peer.mu);
    if (peer.queue.size() >= peer.max_queued) {
      ++peer.dropped;
      return;
    }
    peer.queue.push_back(message);
  }
}

int64_t GrpcTransport::dropped() const {
  absl::MutexLock lock(&mu_);
  int64_t total = dropped_by_stopped_;
  for (const auto& [id, peer] : peers_) total += peer->dropped.load();
  return total;
}

class RaftServer::Service final : public pb::RaftTransport::Service {
 public:
  Service(std::string cluster_id, const security::ControlPlaneAuthorizer* authorizer)
      : cluster_id_(std::move(cluster_id)), authorizer_(authorizer) {}

  // Holds the attached node for the length of a call; Attach waits for holders to go.
  class NodeRef {
   public:
    explicit NodeRef(Service& s) : s_(s) {
      absl::MutexLock lock(&s_.mu_);
      node_ = s_.node_;
      if (node_) ++s_.users_;
    }
    ~NodeRef() {
      if (!node_) return;
      absl::MutexLock lock(&s_.mu_);
      --s_.users_;  // Attach waits for users_ == 0
    }
    RaftNode* get() const { return node_; }
    RaftNode* operator->() const { return node_; }
    explicit operator bool() const { return node_ != nullptr; }

   private:
    Service& s_;
    RaftNode* node_;
  };

  grpc::Status InstallSnapshot(grpc::ServerContext* context, grpc::ServerReader<pb::InstallSnapshotRequest>* reader,
                               pb::InstallSnapshotResponse*) override {
    if (grpc::Status allowed = RequireVoter(*context, "InstallSnapshot", kAnyVoter); !allowed.ok()) return allowed;
    NodeRef node(*this);
    if (!node) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
    SnapshotReceiver receiver(node->snapshots());
    pb::InstallSnapshotRequest request;
    while (reader->Read(&request)) {
      if (grpc::Status ours = CheckCluster(request.cluster_id()); !ours.ok()) return ours;
      absl::Status accepted = receiver.Accept(request.chunk());
      if (!accepted.ok()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(accepted.message()));
      if (receiver.sealed()) {
        if (!request.has_message() || !Plausible(request.message()) || request.message().type() != pb::SNAPSHOT ||
            request.message().to() != node->id() ||
            request.message().index() != receiver.meta().index || request.message().log_term() != receiver.meta().term) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the last snapshot chunk lacks its SNAPSHOT message");
        }
        if (grpc::Status allowed = RequireVoter(*context, "InstallSnapshot", request.message().from()); !allowed.ok()) {
          return allowed;
        }
        node->Receive(FromProto(request.message()));
        return grpc::Status::OK;
      }
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "the snapshot stream ended early");
  }

  grpc::Status Observe(grpc::ServerContext* context, const pb::ObserveRequest* request,
                       grpc::ServerWriter<pb::ObserveResponse>* writer) override {
    if (authorizer_ != nullptr) {
      if (grpc::Status allowed = authorizer_->RequireBroker(*context, "Observe", -1); !allowed.ok()) return allowed;
    }
    if (grpc::Status ours = CheckCluster(request->cluster_id()); !ours.ok()) return ours;
    Index next = std::max<Index>(request->from_index(), 1);
    while (!context->IsCancelled()) {
      NodeRef node(*this);
      if (!node) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
      auto entries = node->ReadCommitted(next, 1 << 20);
      if (!entries.ok() && storage::ErrcOf(entries.status()) == storage::Errc::kOffsetOutOfRange) {
        // Compacted away: the latest snapshot first, then the entries after it.
        auto latest = node->snapshots().Latest();
        if (!latest || latest->index < next) {
          return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(entries.status().message()));
        }
        absl::Status sent = ForEachSnapshotChunk(node->snapshots(), *storage::FileOps::Default(), *latest,
                                                 [&](pb::SnapshotChunk& chunk) {
                                                   pb::ObserveResponse response;
                                                   response.mutable_snapshot_chunk()->Swap(&chunk);
                                                   RaftNodeStatus st = node->status();
                                                   response.set_commit_index(st.commit);
                                                   response.set_leader_id(st.leader);
                                                   return writer->Write(response);
                                                 });
        if (!sent.ok()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(sent.message()));
        next = latest->index + 1;
        continue;
      }
      if (!entries.ok()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(entries.status().message()));
      pb::ObserveResponse response;
      if (entries->empty()) {
        // Nothing new: wait for the commit to move (a keep-alive goes out meanwhile).
        response.set_commit_index(node->WaitForCommit(next - 1, kObserveKeepAliveInterval));
        if (response.commit_index() >= next) continue;
        response.set_leader_id(node->status().leader);
      } else {
        for (const Entry& e : *entries) EntryToProto(e, response.add_entries());
        next = entries->back().index + 1;
        RaftNodeStatus st = node->status();
        response.set_commit_index(st.commit);
        response.set_leader_id(st.leader);
      }
      if (!writer->Write(response)) break;
    }
    return grpc::Status::OK;
  }

  grpc::Status Deliver(grpc::ServerContext* context, const pb::RaftBatch* batch, pb::DeliverResponse*) override {
    std::optional<int32_t> checked_from;  // a batch's messages come from one node
    for (const pb::RaftMessage& m : batch->messages()) {
      if (checked_from == m.from()) continue;
      if (grpc::Status allowed = RequireVoter(*context, "Deliver", m.from()); !allowed.ok()) return allowed;
      checked_from = m.from();
    }
    if (grpc::Status ours = CheckCluster(batch->cluster_id()); !ours.ok()) return ours;
    for (const pb::RaftMessage& m : batch->messages()) {
      if (!Plausible(m)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "malformed Raft message");
    }
    NodeRef node(*this);
    if (!node) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
    for (const pb::RaftMessage& m : batch->messages()) {
      if (m.type() == pb::SNAPSHOT) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "SNAPSHOT goes through InstallSnapshot");
      if (m.to() != node->id()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            absl::StrCat("a message to node ", m.to(), " reached node ", node->id()));
      }
    }
    for (const pb::RaftMessage& m : batch->messages()) node->Receive(FromProto(m));
    return grpc::Status::OK;
  }

  grpc::Status DescribeQuorum(grpc::ServerContext* context, const pb::DescribeQuorumRequest* request,
                              pb::DescribeQuorumResponse* response) override {
    if (authorizer_ != nullptr) {
      if (grpc::Status allowed = authorizer_->RequireQuorumReader(*context, "DescribeQuorum"); !allowed.ok()) {
        return allowed;
      }
    }
    if (!request->cluster_id().empty()) {
      if (grpc::Status ours = CheckCluster(request->cluster_id()); !ours.ok()) return ours;
    }
    NodeRef node(*this);
    if (!node) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
    RaftNodeStatus st = node->status();
    response->set_node_id(node->id());
    response->set_leader_id(st.leader);
    response->set_term(st.term);
    response->set_role(RoleName(st.role));
    response->set_commit_index(st.commit);
    response->set_applied_index(st.applied);
    response->set_elections(st.elections);
    response->set_kraft_version(st.kraft_version);
    for (const auto& [id, voter] : st.configuration.voters()) {
      pb::QuorumVoter* v = response->add_voters();
      v->set_id(id);
      v->set_directory_id(voter.directory_id);
      for (const Endpoint& e : voter.endpoints) {
        pb::QuorumEndpoint* out = v->add_endpoints();
        out->set_name(e.name);
        out->set_host(e.host);
        out->set_port(e.port);
      }
    }
    return grpc::Status::OK;
  }

  void Attach(RaftNode* node) {
    absl::MutexLock lock(&mu_);
    node_ = node;
    auto idle = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return users_ == 0 || node_ != nullptr; };
    mu_.Await(absl::Condition(&idle));
  }

 private:
  static constexpr int32_t kAnyVoter = -1;

  // Whether the caller may send Raft messages from node `from` (kAnyVoter: from some voter).
  grpc::Status RequireVoter(const grpc::ServerContext& context, const char* rpc, int32_t from) const {
    if (authorizer_ == nullptr) return grpc::Status::OK;
    return authorizer_->RequireVoter(context, rpc, from);
  }

  // FAILED_PRECONDITION for a call from another cluster (said once in the log: its
  // sender retries every few ms).
  grpc::Status CheckCluster(const std::string& theirs) {
    if (theirs == cluster_id_) return grpc::Status::OK;
    std::string what = absl::StrCat("a Raft call from cluster '", theirs, "' reached a node of cluster '",
                                    cluster_id_, "': refused");
    if (!said_foreign_cluster_.exchange(true)) spdlog::warn("{}", what);
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, what);
  }

  const std::string cluster_id_;
  const security::ControlPlaneAuthorizer* const authorizer_;
  std::atomic<bool> said_foreign_cluster_{false};
  absl::Mutex mu_;
  int users_ ABSL_GUARDED_BY(mu_) = 0;
  RaftNode* node_ ABSL_GUARDED_BY(mu_) = nullptr;
};

absl::StatusOr<std::unique_ptr<RaftServer>> RaftServer::Start(const std::string& address,
                                                              const std::vector<grpc::Service*>& extra_services,
                                                              std::string cluster_id, RaftServerSecurity security) {
  std::unique_ptr<RaftServer> server(new RaftServer());
  server->service_ = std::make_unique<Service>(std::move(cluster_id), security.authorizer);
  grpc::ServerBuilder builder;
  if (security.credentials == nullptr) security.credentials = grpc::InsecureServerCredentials();
  builder.AddListeningPort(address, security.credentials, &server->port_);
  builder.RegisterService(server->service_.get());
  for (grpc::Service* s : extra_services) builder.RegisterService(s);
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", address));
  }
  return server;
}

RaftServer::~RaftServer() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

void RaftServer::Attach(RaftNode* node) { service_->Attach(node); }

}  // namespace strata::raft
