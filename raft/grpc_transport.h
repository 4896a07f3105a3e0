#pragma once
// The gRPC side of the Raft transport. GrpcTransport sends a node's messages to its
// peers (proto/raft.proto, RaftTransport.Deliver): one sender thread per peer batches
// what is queued and drops it when the peer is unreachable (Raft retries); the queue
// per peer is bounded. RaftServer receives batches and hands each message to a node,
// after checking that they come from its cluster and are addressed to that node.
// Thread-safe.

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "raft/raft_node.h"
#include "raft/state_machine.h"

namespace grpc {
class ChannelCredentials;
class Server;
class ServerCredentials;
class Service;
}  // namespace grpc

namespace strata::security {
class ControlPlaneAuthorizer;
}

namespace strata::raft {

class GrpcTransport final : public Transport {
 public:
  // peers: node id -> "host:port" of its RaftServer. cluster_id goes with every call;
  // the receiving RaftServer refuses another cluster's. credentials: the node's TLS
  // (security/grpc_tls.h; null: plaintext).
  explicit GrpcTransport(std::map<NodeId, std::string> peers, std::string cluster_id = {},
                         std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr,
                         size_t max_queued_per_peer = 10'000);
  ~GrpcTransport() override;  // stops the sender threads
  // Replaces the peers (a dynamic quorum's voters and learner changed, KIP-853): new
  // ones start, removed ones and those at a new address stop; their threads are joined
  // off the caller's thread (a transfer may take a while to notice).
  void SetPeers(const std::map<NodeId, std::string>& peers);
  void Send(const Message& message) override;
  // Streams the snapshot's files (InstallSnapshot) on the peer's snapshot thread; one
  // transfer per peer at a time.
  void SendSnapshot(const Message& message, const SnapshotStore& store, std::function<void(bool)> done) override;
  int64_t dropped() const;

 private:
  struct Peer;
  std::shared_ptr<Peer> StartPeer(const std::string& address);
  std::shared_ptr<Peer> FindPeer(NodeId id) const;

  const std::string cluster_id_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  const size_t max_queued_per_peer_;
  mutable absl::Mutex mu_;
  std::map<NodeId, std::shared_ptr<Peer>> peers_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> reapers_ ABSL_GUARDED_BY(mu_);  // joining stopped peers' threads
  int64_t dropped_by_stopped_ ABSL_GUARDED_BY(mu_) = 0;
};

// How a RaftServer's port is secured: its credentials (null: plaintext) and who may
// call what (null: everyone may call everything). Both must outlive the server.
struct RaftServerSecurity {
  std::shared_ptr<grpc::ServerCredentials> credentials;
  const security::ControlPlaneAuthorizer* authorizer = nullptr;
};

class RaftServer {
 public:
  // Listens on address ("127.0.0.1:0" picks a free port). extra_services (the
  // controller's) are served on the same port; they must outlive the server. Raft calls
  // (Deliver, InstallSnapshot, Observe) naming another cluster_id are refused
  // (FAILED_PRECONDITION), as are messages addressed to another node than the attached
  // one (INVALID_ARGUMENT): neither reaches the node. With an authorizer, Deliver and
  // InstallSnapshot are served only to voters for their own messages, Observe only to
  // brokers and DescribeQuorum as the Admin service is (security/control_plane_authorizer.h).
  // Nothing is proposed through the port: a controller commits only the records it
  // builds itself.
  static absl::StatusOr<std::unique_ptr<RaftServer>> Start(const std::string& address,
                                                           const std::vector<grpc::Service*>& extra_services = {},
                                                           std::string cluster_id = {},
                                                           RaftServerSecurity security = {});
  ~RaftServer();
  int port() const { return port_; }
  // Messages arriving while no node is attached are dropped. Attach(nullptr) returns
  // once no call uses the old node; stop the node first so that waiting proposals and
  // observers return.
  void Attach(RaftNode* node);

 private:
  class Service;
  RaftServer() = default;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace strata::raft
