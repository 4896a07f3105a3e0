#pragma once
// Resolving controller.quorum.bootstrap.servers (KIP-853): a dynamic quorum's nodes are
// configured with some controllers' addresses, not with the voters; they ask those
// (RaftTransport.DescribeQuorum) who answers there and which voters its configuration
// holds, with each voter's endpoints. A controller added later reaches the leader this
// way before its log names any voter; a broker finds every controller.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "raft/types.h"

namespace grpc {
class ChannelCredentials;
}

namespace strata::raft {

struct ResolvedQuorum {
  // Each controller's RaftServer address, "host:port": a server that answered at the
  // address asked; every voter it listed at its endpoint named by the listener asked for.
  // Where answers differ, the one of the highest term (then commit index) wins.
  std::map<NodeId, std::string> addresses;
  std::vector<NodeId> voters;  // of the winning answer that listed voters (empty: none did)
  NodeId leader = kNoNode;     // as the winning answer names it
  int answered = 0;            // servers that answered
};

// Asks the bootstrap servers. Each server's channel is made once and kept, so that a node
// asking again (a fresh controller every 500 ms until it is added, a broker whenever the
// leader moved somewhere it does not know) reuses the connection and its TLS session.
// Thread-safe (gRPC stubs are).
class QuorumResolver {
 public:
  // servers: host:port of each; listener_name: whose endpoints are the voters' addresses;
  // credentials: null for plaintext.
  QuorumResolver(std::vector<std::string> servers, std::string listener_name, std::string cluster_id,
                 std::shared_ptr<grpc::ChannelCredentials> credentials);
  ~QuorumResolver();

  // Asks every server, each within timeout; those that do not answer (or are of another
  // cluster) are left out.
  ResolvedQuorum Resolve(std::chrono::milliseconds timeout) const;

  const std::vector<std::string>& servers() const { return servers_; }

 private:
  struct Server;
  const std::vector<std::string> servers_;
  const std::string listener_name_;
  const std::string cluster_id_;
  std::vector<std::unique_ptr<Server>> stubs_;  // one per servers_ entry
};

}  // namespace strata::raft
