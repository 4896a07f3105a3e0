#pragma once
// A deterministic simulation of a Raft quorum in one process: a simulated network that
// drops, delays (and so reorders), duplicates and partitions messages, and nodes that
// crash and restart from what they persisted. Invariants are checked after every step:
// one leader per term, logs that match where their terms match, leaders holding every
// committed entry, and every node applying the same entry at each index. Nodes take
// snapshots of their applied state and compact their logs; a snapshot travels with the
// kSnapshot message that asks for its installation, as the gRPC transport streams it.
// A dynamic cluster (KIP-853) starts with some of its nodes as bootstrap voters; voters
// are added and removed one at a time, and a node may lose its disk (it comes back
// formatted again, with a new directory id and no bootstrap). Its invariants add: a
// leader is a voter of its configuration when elected, a log holds at most one
// uncommitted voters entry, and consecutive committed voter sets differ by one voter.
// Not thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "raft/raft.h"

namespace strata::raft::sim {

struct Faults {
  double drop = 0.0;       // per message
  double duplicate = 0.0;  // per message
  int max_delay = 0;       // steps; random delays reorder
};

class Cluster {
 public:
  // A static quorum: every node is a voter (controller.quorum.voters).
  Cluster(int voters, uint64_t seed);
  // A dynamic quorum of `nodes` nodes whose first `initial_voters` are the bootstrap
  // voters.
  Cluster(int nodes, int initial_voters, uint64_t seed);

  // One step: deliver due messages, tick every live node, process every Ready.
  void Step();
  // Returns false with a description in *violation when an invariant broke.
  bool CheckInvariants(std::string* violation);

  void Crash(NodeId id);
  void Restart(NodeId id);
  // Dynamic only: the node's disk is lost; it restarts formatted again (a new directory
  // id, no bootstrap). Refused (false) when the voters could no longer reach a majority
  // of live keys: Raft survives the loss of a minority only.
  bool LoseDisk(NodeId id);
  // Proposes a change on whichever live node leads: id's removal (with the key the
  // configuration holds) when it is a voter, else its addition with its directory id.
  // Returns the refusal, or no error when it started; outcomes are counted.
  VoterChangeError ChangeVoterOnLeader(NodeId id);
  // Static only: proposes the upgrade to a dynamic quorum on whichever live node leads
  // (every voter with the key its answers named); the refusal, or no error when it
  // started. Outcomes are counted with the changes'.
  VoterChangeError UpgradeOnLeader();
  // Outcomes of voter changes (refusals and results) by error.
  const std::map<VoterChangeError, int64_t>& change_outcomes() const { return change_outcomes_; }
  // The voters of the leader's configuration, by the nodes' current directory ids: the
  // nodes that must apply what it commits.
  std::vector<NodeId> LiveVoters() const;
  // Each node's role, term, log and voters, for a failure's message.
  std::string Describe() const;
  // Nodes in different groups cannot talk; Heal() puts all in one group.
  void Partition(const std::vector<int>& group_of_node);
  void Heal();
  void set_faults(const Faults& f) { faults_ = f; }
  // A node snapshots and compacts once it applied this many entries past its last
  // snapshot (0: never).
  void set_snapshot_every(int entries) { snapshot_every_ = entries; }
  int64_t snapshots_installed() const { return snapshots_installed_; }
  int64_t disks_lost() const { return disks_lost_; }

  // Proposes on whichever live node leads; false when none does.
  bool ProposeOnLeader(const std::string& data);
  std::optional<NodeId> Leader() const;  // a live leader of the highest term
  bool Up(NodeId id) const { return nodes_.at(id).raft != nullptr; }
  const std::vector<Entry>& Applied(NodeId id) const { return nodes_.at(id).applied; }
  const std::vector<NodeId>& ids() const { return ids_; }
  std::mt19937_64& rng() { return rng_; }
  int64_t now() const { return now_; }
  size_t committed() const { return committed_.size(); }
  Raft* raft(NodeId id) { return nodes_.at(id).raft.get(); }

 private:
  struct Node {
    std::unique_ptr<Raft> raft;
    HardState hard_state;        // persisted
    SnapshotMeta snapshot;               // persisted
    std::vector<Entry> snapshot_data;    // persisted: the applied entries it covers
    std::vector<Entry> log;              // persisted, index i at log[i - snapshot.index - 1]
    std::vector<Entry> applied;          // the state machine (restored after a restart)
    std::shared_ptr<const std::vector<Entry>> staged;  // a received snapshot's data
    int incarnation = 0;
    std::string directory_id;  // dynamic: changes when the disk is lost
    bool bootstrap = false;    // dynamic: formatted with the bootstrap voters
    int disks_lost = 0;
  };
  struct InFlight {
    int64_t deliver_at;
    Message message;
    std::shared_ptr<const std::vector<Entry>> snapshot_data;  // for kSnapshot
  };
  // The persisted entry at index, or nullptr when compacted or absent.
  static const Entry* PersistedAt(const Node& node, Index index);
  void MaybeSnapshot(NodeId id);
  void CheckApplied(NodeId id, const Entry& e);
  // The bootstrap voters (dynamic).
  VoterSet Bootstrap() const;
  // How many of the set's voters have no node with their key.
  int StaleKeys(const VoterSet& voters) const;
  // The configurations a node may go on with: the one in effect at its persisted commit
  // index and every later one in its persisted log (and its core's latest when up, with
  // the learner it is catching up).
  std::vector<VoterSet> ConfigsAhead(const Node& node) const;

  Config ConfigFor(NodeId id, int incarnation) const;
  void Deliver(const InFlight& f);
  void ProcessReady(NodeId id);
  void Record(const std::string& violation);

  std::vector<NodeId> ids_;
  bool dynamic_ = false;
  int initial_voters_ = 0;
  std::map<VoterChangeError, int64_t> change_outcomes_;
  std::map<NodeId, Node> nodes_;
  std::map<NodeId, int> group_;
  std::vector<InFlight> network_;
  Faults faults_;
  int snapshot_every_ = 0;
  int64_t snapshots_installed_ = 0;
  int64_t disks_lost_ = 0;
  std::mt19937_64 rng_;
  uint64_t seed_;
  int64_t now_ = 0;
  std::map<Term, NodeId> leader_of_term_;
  std::map<Index, Entry> committed_;  // the first application of each index
  // The highest term any node had when the index was first applied: every leader of a
  // later term was elected after the commit and must hold the entry.
  std::map<Index, Term> committed_by_term_;
  Term MaxTerm() const;
  std::string violation_;
};

}  // namespace strata::raft::sim
