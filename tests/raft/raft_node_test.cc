// Three RaftNodes with real threads, clocks and metadata logs on disk, talking through an
// in-process transport: a leader is elected, proposals commit everywhere, a stopped leader
// is replaced and committed entries survive, a restarted node catches up, and a node whose
// metadata log fails stops itself. Waits are conditions with deadlines, never sleeps.

#include "raft/raft_node.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>

#include "storage/fault_injecting_file_ops.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::raft {
namespace {

using namespace std::chrono_literals;

class LocalTransport : public Transport {
 public:
  void Attach(NodeId id, RaftNode* node) {
    std::lock_guard<std::mutex> lock(mu_);
    nodes_[id] = node;
  }
  void Send(const Message& m) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(m.to);
    if (it != nodes_.end() && it->second != nullptr) it->second->Receive(m);
  }

 private:
  std::mutex mu_;
  std::map<NodeId, RaftNode*> nodes_;
};

class Quorum {
 public:
  explicit Quorum(int n) {
    for (int i = 1; i <= n; ++i) ids_.push_back(i);
  }
  ~Quorum() {
    for (auto& [id, node] : nodes_) {
      transport_.Attach(id, nullptr);
      node.reset();
    }
  }
  void Start(NodeId id, storage::FileOps* ops = storage::FileOps::Default()) {
    RaftNodeOptions o;
    o.config.id = id;
    o.config.voters = ids_;
    o.config.election_ticks = 10;
    o.config.seed = static_cast<uint64_t>(id) + 17 * starts_++;
    o.metadata_log_dir = tmp_.Sub("node" + std::to_string(id));
    o.ops = ops;
    o.tick_interval = 10ms;
    o.transport = &transport_;
    o.apply = [this, id](const Entry& e) {
      std::lock_guard<std::mutex> lock(mu_);
      applied_[id].push_back(e.data);
    };
    o.on_fatal = [this, id](const absl::Status&) { fatal_[id] = true; };
    {
      std::lock_guard<std::mutex> lock(mu_);
      applied_[id].clear();
    }
    auto node = RaftNode::Start(o);
    ASSERT_TRUE(node.ok()) << node.status();
    nodes_[id] = std::move(*node);
    transport_.Attach(id, nodes_[id].get());
  }
  void Stop(NodeId id) {
    transport_.Attach(id, nullptr);
    nodes_[id].reset();
  }
  RaftNode& operator[](NodeId id) { return *nodes_.at(id); }
  // Waits until a running node leads; returns it or 0 at the deadline.
  NodeId WaitForLeader(std::chrono::milliseconds deadline = 10s) {
    auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
      for (auto& [id, node] : nodes_) {
        if (!node) continue;
        RaftNodeStatus st = node->status();
        if (!st.stopped && st.role == Role::kLeader) return id;
      }
      std::this_thread::yield();
    }
    return kNoNode;
  }

  std::vector<std::string> Applied(NodeId id) {
    std::lock_guard<std::mutex> lock(mu_);
    return applied_[id];
  }
  bool fatal(NodeId id) { return fatal_[id].load(); }
  const std::vector<NodeId>& ids() const { return ids_; }

 private:
  testing::TempDir tmp_;
  std::vector<NodeId> ids_;
  LocalTransport transport_;
  std::map<NodeId, std::unique_ptr<RaftNode>> nodes_;
  std::mutex mu_;
  std::map<NodeId, std::vector<std::string>> applied_;
  std::map<NodeId, std::atomic<bool>> fatal_;
  uint64_t starts_ = 0;
};

// Proposes through whichever node leads, retrying until it is applied.
void ProposeOrFail(Quorum& q, const std::string& data) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    NodeId leader = q.WaitForLeader();
    ASSERT_NE(leader, kNoNode) << "no leader";
    auto index = q[leader].Propose(data, 5s);
    if (index.ok()) return;
  }
  FAIL() << "could not commit " << data;
}

TEST(RaftNode, ElectsALeaderAndCommitsEverywhere) {
  Quorum q(3);
  for (NodeId id : q.ids()) q.Start(id);
  for (int i = 0; i < 20; ++i) ProposeOrFail(q, "e" + std::to_string(i));
  for (NodeId id : q.ids()) {
    ASSERT_TRUE(testing::WaitUntil([&] {
      auto applied = q.Applied(id);
      return !applied.empty() && applied.back() == "e19";
    }, 10s)) << id;
  }
  // Every node applied the same sequence.
  EXPECT_EQ(q.Applied(1), q.Applied(2));
  EXPECT_EQ(q.Applied(2), q.Applied(3));
  NodeId leader = q.WaitForLeader();
  NodeId follower = leader == 1 ? 2 : 1;
  auto refused = q[follower].Propose("x", 1s);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RaftNode, AStoppedLeaderIsReplacedAndCommittedEntriesSurvive) {
  Quorum q(3);
  for (NodeId id : q.ids()) q.Start(id);
  for (int i = 0; i < 10; ++i) ProposeOrFail(q, "before" + std::to_string(i));
  NodeId old_leader = q.WaitForLeader();
  ASSERT_NE(old_leader, kNoNode);
  q.Stop(old_leader);
  NodeId new_leader = q.WaitForLeader();
  ASSERT_NE(new_leader, kNoNode);
  ASSERT_NE(new_leader, old_leader);
  ProposeOrFail(q, "after");
  auto applied = q.Applied(new_leader);
  for (int i = 0; i < 10; ++i) {
    EXPECT_NE(std::find(applied.begin(), applied.end(), "before" + std::to_string(i)), applied.end()) << i;
  }
  // The old leader restarts from its metadata log and catches up.
  q.Start(old_leader);
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto a = q.Applied(old_leader);
    return std::find(a.begin(), a.end(), "after") != a.end();
  }, 10s));
}

TEST(RaftNode, ANodeWhoseMetadataLogFailsStopsItself) {
  Quorum q(3);
  storage::FaultInjectingFileOps failing;
  q.Start(1, &failing);
  q.Start(2);
  q.Start(3);
  ProposeOrFail(q, "ok");
  failing.AddRule({.path_substring = "__cluster_metadata-0", .op = storage::FaultOp::kWrite, .error = EIO});
  ProposeOrFail(q, "triggers-the-error");
  ASSERT_TRUE(testing::WaitUntil([&] { return q.fatal(1); }, 10s));
  EXPECT_TRUE(q[1].status().stopped);
  // The other two keep a quorum.
  ProposeOrFail(q, "still-served");
}

}  // namespace
}  // namespace strata::raft
