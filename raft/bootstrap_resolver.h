#pragma once
// Resolving controller.quorum.bootstrap.servers (KIP-853): a dynamic quorum's nodes are
// configured with some controllers' addresses, not with the voters; they ask those
// (RaftTransport.DescribeQuorum) who answers there and which voters its configuration
// holds, with each voter's endpoints. A controller added later reaches the leader this
// way before its log names any voter; a broker finds every controller.
// Thread-safe (stateless function).
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

// Asks every server, each within timeout; those that do not answer (or are of another
// cluster) are left out. credentials: null for plaintext.
ResolvedQuorum ResolveQuorum(const std::vector<std::string>& servers, const std::string& listener_name,
                             const std::string& cluster_id, std::shared_ptr<grpc::ChannelCredentials> credentials,
                             std::chrono::milliseconds timeout);

}  // namespace strata::raft
