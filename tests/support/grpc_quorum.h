#pragma once
// Three RaftNodes in one process, each with its RaftServer and GrpcTransport on
// 127.0.0.1 (free ports) and its metadata log in a temporary directory; plaintext, or
// mutual TLS with the control plane's authorization. For tests/raft/raft_grpc_test.cc
// and raft_grpc_security_test.cc.
// Not thread-safe.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "raft/grpc_transport.h"
#include "raft/raft_node.h"
#include "raft/state_machine.h"
#include "security/control_plane_authorizer.h"
#include "security/grpc_tls.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

namespace strata::testing {

using namespace std::chrono_literals;
using raft::AppliedLog;
using raft::GrpcTransport;
using raft::Index;
using raft::kEntryOverheadBytes;
using raft::kNoNode;
using raft::NodeId;
using raft::RaftNode;
using raft::RaftNodeOptions;
using raft::RaftNodeStatus;
using raft::RaftServer;
using raft::RaftServerSecurity;
using raft::Role;

struct GrpcQuorumMember {
  std::unique_ptr<RaftServer> server;
  std::unique_ptr<GrpcTransport> transport;
  std::unique_ptr<AppliedLog> state_machine;
  std::unique_ptr<RaftNode> node;
  // The order matters: the node stops taking part, the server lets go of it, the
  // transport's threads (which report snapshot transfers to the node) end, then the
  // node goes.
  void Stop() {
    if (node) node->Stop();
    if (server) server->Attach(nullptr);
    transport.reset();
    node.reset();
    server.reset();
  }
};

class GrpcQuorum {
 public:
  // certs: when set, every port is mutual TLS with certificates from it (node id's
  // keystore `controller-<id>`, naming controller id) and the control plane's
  // authorization (voters 1, 2, 3).
  explicit GrpcQuorum(int64_t snapshot_bytes = 20 << 20, int64_t segment_bytes = 1 << 30, TestCerts* certs = nullptr)
      : snapshot_bytes_(snapshot_bytes), segment_bytes_(segment_bytes), certs_(certs) {
    if (certs_ != nullptr) {
      security::ControlPlaneAuthorizer::Options o;
      o.secure = true;
      o.voters = {ids_.begin(), ids_.end()};
      authorizer_ = std::make_unique<security::ControlPlaneAuthorizer>(std::move(o));
      for (NodeId id : ids_) {
        tls_[id] = {.keystore = certs_->Make("controller-" + std::to_string(id), "--controller " + std::to_string(id)),
                    .truststore = certs_->Ca()};
      }
    }
    for (NodeId id : ids_) {
      auto server = RaftServer::Start("127.0.0.1:0", {}, {}, Security(id));
      EXPECT_TRUE(server.ok()) << server.status();
      members_[id].server = std::move(*server);
      ports_[id] = members_[id].server->port();
    }
    for (NodeId id : ids_) Start(id);
  }
  ~GrpcQuorum() {
    for (auto& [id, m] : members_) m.Stop();
  }
  void Start(NodeId id) {
    GrpcQuorumMember& m = members_[id];
    if (!m.server) {  // a restart: listen on the same port again
      auto server = RaftServer::Start("127.0.0.1:" + std::to_string(ports_[id]), {}, {}, Security(id));
      ASSERT_TRUE(server.ok()) << server.status();
      m.server = std::move(*server);
    }
    std::map<NodeId, std::string> peers;
    for (NodeId other : ids_) {
      if (other != id) peers[other] = "127.0.0.1:" + std::to_string(ports_[other]);
    }
    m.transport = std::make_unique<GrpcTransport>(peers, std::string(), security::ChannelCredentials(tls_[id]));
    RaftNodeOptions o;
    o.config.id = id;
    o.config.voters = ids_;
    o.config.election_ticks = 10;
    o.config.seed = static_cast<uint64_t>(id) * 101 + starts_++;
    o.metadata_log_dir = tmp_.Sub("controller" + std::to_string(id));
    o.tick_interval = 10ms;  // election timeout 100-200 ms
    o.transport = m.transport.get();
    m.state_machine = std::make_unique<AppliedLog>();
    o.state_machine = m.state_machine.get();
    o.snapshot_bytes = snapshot_bytes_;
    o.segment_bytes = segment_bytes_;
    o.max_entry_bytes = std::min<int64_t>(o.max_entry_bytes, segment_bytes_ - kEntryOverheadBytes);
    auto node = RaftNode::Start(o);
    ASSERT_TRUE(node.ok()) << node.status();
    m.node = std::move(*node);
    m.server->Attach(m.node.get());
  }
  void Stop(NodeId id) { members_[id].Stop(); }
  NodeId WaitForLeader(std::chrono::milliseconds deadline = 10s) {
    auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
      for (auto& [id, m] : members_) {
        if (!m.node) continue;
        RaftNodeStatus st = m.node->status();
        if (!st.stopped && st.role == Role::kLeader) return id;
      }
      std::this_thread::yield();
    }
    return kNoNode;
  }
  absl::StatusOr<Index> Propose(const std::string& data) {
    NodeId leader = WaitForLeader();
    if (leader == kNoNode) return absl::UnavailableError("no leader");
    return members_[leader].node->Propose(data, 5s);
  }

  RaftNode& node(NodeId id) { return *members_.at(id).node; }
  GrpcTransport& transport(NodeId id) { return *members_.at(id).transport; }
  AppliedLog& state_machine(NodeId id) { return *members_.at(id).state_machine; }
  std::string address(NodeId id) { return "127.0.0.1:" + std::to_string(ports_[id]); }
  std::string dir(NodeId id) { return tmp_.Sub("controller" + std::to_string(id)); }
  std::string observer_dir() { return tmp_.Sub("observer"); }
  // Node id's TLS files (not enabled without certs).
  const security::TlsFiles& tls(NodeId id) { return tls_[id]; }
  const security::ControlPlaneAuthorizer* authorizer() const { return authorizer_.get(); }

  std::vector<NodeId> ids_ = {1, 2, 3};
  std::map<NodeId, int> ports_;

 private:
  RaftServerSecurity Security(NodeId id) {
    return {.credentials = security::ServerCredentials(tls_[id]), .authorizer = authorizer_.get()};
  }

  const int64_t snapshot_bytes_;
  const int64_t segment_bytes_;
  TestCerts* const certs_;
  std::unique_ptr<security::ControlPlaneAuthorizer> authorizer_;
  std::map<NodeId, security::TlsFiles> tls_;
  TempDir tmp_;
  std::map<NodeId, GrpcQuorumMember> members_;
  uint64_t starts_ = 0;
};


}  // namespace strata::testing
