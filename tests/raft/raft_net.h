#pragma once
// A small in-memory network of Raft cores for the core's tests: it delivers at once
// unless a node is isolated or a message is dropped, and plays the driver (persists,
// applies, installs snapshots, collects voter change results).

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "raft/raft.h"

namespace strata::raft::testing {

class Net {
 public:
  explicit Net(int voters, int election_ticks = 10, bool check_quorum = true) : check_quorum_(check_quorum) {
    for (int i = 1; i <= voters; ++i) ids_.push_back(i);
    for (NodeId id : ids_) Start(id, election_ticks);
  }
  // Nodes whose Config configure finishes (a dynamic quorum's bootstrap and directory ids).
  Net(std::vector<NodeId> ids, std::function<void(Config&)> configure)
      : ids_(std::move(ids)), configure_(std::move(configure)) {
    for (NodeId id : ids_) Start(id);
  }
  // A node that joins the network (started as configure says).
  void AddNode(NodeId id) {
    ids_.push_back(id);
    Start(id);
  }
  void Start(NodeId id, int election_ticks = 10) {
    Config c;
    c.id = id;
    c.voters = ids_;
    c.election_ticks = election_ticks;
    c.seed = static_cast<uint64_t>(id) * 7919 + restarts_++;
    c.max_inflight_bytes = inflight_;
    c.max_append_bytes = max_append_bytes_;
    c.check_quorum = check_quorum_;
    if (configure_) configure_(c);
    nodes_[id] = std::make_unique<Raft>(c, hard_state_[id], snapshot_[id], log_[id]);
  }
  Raft& operator[](NodeId id) { return *nodes_.at(id); }
  void Isolate(NodeId id) { isolated_.insert(id); }
  void Rejoin(NodeId id) { isolated_.erase(id); }
  void set_inflight(size_t bytes) { inflight_ = bytes; }
  void set_max_append_bytes(size_t bytes) { max_append_bytes_ = bytes; }
  // Messages for which drop returns true are lost.
  void set_drop(std::function<bool(const Message&)> drop) { drop_ = std::move(drop); }
  void SetPersisted(NodeId id, const HardState& hs, std::vector<Entry> log) {
    hard_state_[id] = hs;
    log_[id] = std::move(log);
  }
  int64_t sent(MessageType type) const { return sent_.count(type) ? sent_.at(type) : 0; }
  // Processes Ready and delivers messages until nothing moves.
  void Settle() {
    for (int round = 0; round < 10'000; ++round) {
      bool moved = false;
      for (NodeId id : ids_) {
        Raft& r = *nodes_[id];
        if (!r.HasReady()) continue;
        moved = true;
        Ready rd = r.GetReady();
        if (rd.snapshot.index != 0) {
          snapshot_[id] = rd.snapshot;
          log_[id].clear();
          ++installs_[id];
        }
        if (rd.hard_state_changed) hard_state_[id] = rd.hard_state;
        if (!rd.entries.empty()) {
          log_[id].resize(rd.entries.front().index - 1 - snapshot_[id].index);
          log_[id].insert(log_[id].end(), rd.entries.begin(), rd.entries.end());
        }
        for (const Entry& e : rd.committed_entries) applied_[id].push_back(e);
        for (const VoterChangeResult& result : rd.change_results) results_[id].push_back(result);
        r.Advance(rd);
        for (const Message& m : rd.messages) {
          ++sent_[m.type];
          bool lost = isolated_.count(m.from) || isolated_.count(m.to) || (drop_ && drop_(m));
          if (m.type == MessageType::kSnapshot) nodes_[m.from]->ReportSnapshot(m.to, !lost);
          if (lost || nodes_.count(m.to) == 0) continue;
          nodes_[m.to]->Step(m);
        }
      }
      if (!moved) return;
    }
    FAIL() << "network did not settle";
  }
  void Tick(NodeId id, int times = 1) {
    for (int i = 0; i < times; ++i) {
      nodes_[id]->Tick();
      Settle();
    }
  }
  void TickAll(int times) {
    for (int i = 0; i < times; ++i) {
      for (NodeId id : ids_) nodes_[id]->Tick();
      Settle();
    }
  }
  // Ticks only `id` until it leads (its timeout is at most 2 x election ticks).
  void Elect(NodeId id) {
    for (int i = 0; i < 100 && nodes_[id]->role() != Role::kLeader; ++i) Tick(id);
    ASSERT_EQ(nodes_[id]->role(), Role::kLeader);
  }
  const std::vector<Entry>& applied(NodeId id) { return applied_[id]; }
  const std::vector<VoterChangeResult>& change_results(NodeId id) { return results_[id]; }
  std::vector<Entry>& persisted_log(NodeId id) { return log_[id]; }
  int installs(NodeId id) { return installs_[id]; }
  // Takes a snapshot at the applied index and compacts, as a driver does.
  void Snapshot(NodeId id) {
    Raft& r = *nodes_[id];
    const VoterSet& voters = r.ConfigAt(r.applied_index());
    SnapshotMeta meta{r.applied_index(), r.TermAt(r.applied_index()), voters.is_static() ? "" : voters.Encode()};
    log_[id].erase(log_[id].begin(), log_[id].begin() + (meta.index - snapshot_[id].index));
    snapshot_[id] = meta;
    r.Compact(meta.index);
  }

 private:
  std::vector<NodeId> ids_;
  std::map<NodeId, std::unique_ptr<Raft>> nodes_;
  std::map<NodeId, HardState> hard_state_;
  std::map<NodeId, std::vector<Entry>> log_;  // after snapshot_
  std::map<NodeId, SnapshotMeta> snapshot_;
  std::map<NodeId, int> installs_;
  std::map<NodeId, std::vector<Entry>> applied_;
  std::map<NodeId, std::vector<VoterChangeResult>> results_;
  std::function<void(Config&)> configure_;
  std::set<NodeId> isolated_;
  std::map<MessageType, int64_t> sent_;
  uint64_t restarts_ = 0;
  bool check_quorum_ = true;
  size_t max_append_bytes_ = 256 << 10;
  std::function<bool(const Message&)> drop_;
  size_t inflight_ = 1 << 20;
};

}  // namespace strata::raft::testing
