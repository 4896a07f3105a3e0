#include "raft/grpc_transport.h"

#include <grpcpp/grpcpp.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "raft.grpc.pb.h"

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
  for (const Entry& e : m.entries) {
    pb::LogEntry* entry = out->add_entries();
    entry->set_term(e.term);
    entry->set_index(e.index);
    entry->set_data(e.data);
  }
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
  for (const pb::LogEntry& e : in.entries()) m.entries.push_back(Entry{e.term(), e.index(), e.data()});
  return m;
}

// Messages whose fields are out of range are refused rather than fed to the core.
bool Plausible(const pb::RaftMessage& m) {
  if (m.type() < pb::PRE_VOTE || m.type() > pb::HEARTBEAT_RESPONSE) return false;
  if (m.term() < 0 || m.index() < 0 || m.log_term() < 0 || m.commit() < 0 || m.reject_hint() < 0) return false;
  int64_t expected = m.index() + 1;
  for (const pb::LogEntry& e : m.entries()) {
    if (e.index() != expected++ || e.term() < 0) return false;
  }
  return true;
}

}  // namespace

struct GrpcTransport::Peer {
  std::unique_ptr<pb::RaftTransport::Stub> stub;
  std::mutex mu;
  std::condition_variable wake;
  std::deque<Message> queue;
  size_t max_queued = 0;
  bool stopping = false;
  std::atomic<int64_t> dropped{0};
  std::thread sender;

  void Run() {
    while (true) {
      pb::RaftBatch batch;
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [&] { return stopping || !queue.empty(); });
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

GrpcTransport::GrpcTransport(std::map<NodeId, std::string> peers, size_t max_queued_per_peer) {
  for (const auto& [id, address] : peers) {
    auto peer = std::make_unique<Peer>();
    grpc::ChannelArguments args;
    // A peer that restarts must be reachable again within an election timeout, not after
    // gRPC's default 20 s minimum connect backoff.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 200);
    peer->stub = pb::RaftTransport::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
    peer->max_queued = max_queued_per_peer;
    Peer* raw = peer.get();
    peer->sender = std::thread([raw] { raw->Run(); });
    peers_[id] = std::move(peer);
  }
}

GrpcTransport::~GrpcTransport() {
  for (auto& [id, peer] : peers_) {
    {
      std::lock_guard<std::mutex> lock(peer->mu);
      peer->stopping = true;
    }
    peer->wake.notify_all();
  }
  for (auto& [id, peer] : peers_) peer->sender.join();
}

void GrpcTransport::Send(const Message& message) {
  auto it = peers_.find(message.to);
  if (it == peers_.end()) return;
  Peer& peer = *it->second;
  {
    std::lock_guard<std::mutex> lock(peer.mu);
    if (peer.queue.size() >= peer.max_queued) {
      ++peer.dropped;
      return;
    }
    peer.queue.push_back(message);
  }
  peer.wake.notify_one();
}

int64_t GrpcTransport::dropped() const {
  int64_t total = 0;
  for (const auto& [id, peer] : peers_) total += peer->dropped.load();
  return total;
}

class RaftServer::Service final : public pb::RaftTransport::Service {
 public:
  grpc::Status Deliver(grpc::ServerContext*, const pb::RaftBatch* batch, pb::DeliverResponse*) override {
    for (const pb::RaftMessage& m : batch->messages()) {
      if (!Plausible(m)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "malformed Raft message");
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (node_ == nullptr) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
    for (const pb::RaftMessage& m : batch->messages()) node_->Receive(FromProto(m));
    return grpc::Status::OK;
  }

  grpc::Status Propose(grpc::ServerContext*, const pb::ProposeRequest* request, pb::ProposeResponse* response) override {
    RaftNode* node = Node();
    if (node == nullptr) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
    int timeout_ms = request->timeout_ms() > 0 ? std::min(request->timeout_ms(), 60'000) : 5'000;
    auto index = node->Propose(request->data(), std::chrono::milliseconds(timeout_ms));
    if (index.ok()) {
      response->set_index(*index);
      return grpc::Status::OK;
    }
    response->set_message(std::string(index.status().message()));
    switch (index.status().code()) {
      case absl::StatusCode::kFailedPrecondition:
        response->set_error(pb::NOT_LEADER);
        response->set_leader_id(node->status().leader);
        break;
      case absl::StatusCode::kDeadlineExceeded:
        response->set_error(pb::TIMEOUT);
        break;
      default:
        response->set_error(pb::UNAVAILABLE);
    }
    return grpc::Status::OK;
  }

  grpc::Status DescribeQuorum(grpc::ServerContext*, const pb::DescribeQuorumRequest*,
                              pb::DescribeQuorumResponse* response) override {
    RaftNode* node = Node();
    if (node == nullptr) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no Raft node attached");
    RaftNodeStatus st = node->status();
    response->set_node_id(node->id());
    response->set_leader_id(st.leader);
    response->set_term(st.term);
    response->set_role(RoleName(st.role));
    response->set_commit_index(st.commit);
    response->set_applied_index(st.applied);
    response->set_elections(st.elections);
    return grpc::Status::OK;
  }

  grpc::Status ReadCommitted(grpc::ServerContext*, const pb::ReadCommittedRequest* request,
                             pb::ReadCommittedResponse* response) override {
    const AppliedLog* log;
    {
      std::lock_guard<std::mutex> lock(mu_);
      log = state_machine_;
    }
    if (log == nullptr) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no state machine attached");
    size_t max = request->max_entries() > 0 ? std::min(request->max_entries(), 10'000) : 1'000;
    for (const Entry& e : log->Read(request->from_index(), max)) {
      pb::LogEntry* out = response->add_entries();
      out->set_term(e.term);
      out->set_index(e.index);
      out->set_data(e.data);
    }
    return grpc::Status::OK;
  }

  void Attach(RaftNode* node, const AppliedLog* state_machine) {
    std::lock_guard<std::mutex> lock(mu_);
    node_ = node;
    state_machine_ = state_machine;
  }

 private:
  RaftNode* Node() {
    std::lock_guard<std::mutex> lock(mu_);
    return node_;
  }
  std::mutex mu_;
  RaftNode* node_ = nullptr;
  const AppliedLog* state_machine_ = nullptr;
};

absl::StatusOr<std::unique_ptr<RaftServer>> RaftServer::Start(const std::string& address) {
  std::unique_ptr<RaftServer> server(new RaftServer());
  server->service_ = std::make_unique<Service>();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &server->port_);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", address));
  }
  return server;
}

RaftServer::~RaftServer() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

void RaftServer::Attach(RaftNode* node, const AppliedLog* state_machine) { service_->Attach(node, state_machine); }

}  // namespace strata::raft
