#include "tests/raft/sim.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"

namespace strata::raft::sim {
namespace {

std::string DirectoryId(NodeId id, int disks_lost) {
  std::string dir(16, '\0');
  dir[0] = static_cast<char>(id);
  dir[1] = static_cast<char>(disks_lost);
  return dir;
}

}  // namespace

Cluster::Cluster(int voters, uint64_t seed) : Cluster(voters, voters, seed) {}

Cluster::Cluster(int nodes, int initial_voters, uint64_t seed)
    : dynamic_(initial_voters < nodes), initial_voters_(initial_voters), rng_(seed), seed_(seed) {
  for (int i = 1; i <= nodes; ++i) ids_.push_back(i);
  for (NodeId id : ids_) {
    Node& node = nodes_[id];
    node.directory_id = DirectoryId(id, 0);
    node.bootstrap = id <= initial_voters;
    node.raft = std::make_unique<Raft>(ConfigFor(id, 0), HardState{}, std::vector<Entry>{});
    group_[id] = 0;
  }
}

VoterSet Cluster::Bootstrap() const {
  std::vector<Voter> voters;
  for (NodeId id = 1; id <= initial_voters_; ++id) {
    voters.push_back(Voter{.id = id, .directory_id = DirectoryId(id, 0), .endpoints = {{"CONTROLLER", "sim", 1}}});
  }
  return *VoterSet::Of(std::move(voters));
}

Config Cluster::ConfigFor(NodeId id, int incarnation) const {
  Config c;
  c.id = id;
  const Node& node = nodes_.at(id);
  c.directory_id = node.directory_id;  // a static quorum's voters send it too (an upgrade keys them by it)
  if (dynamic_) {
    if (node.bootstrap) c.bootstrap = Bootstrap();
  } else {
    c.voters = ids_;
  }
  c.election_ticks = 10;
  c.heartbeat_ticks = 1;
  c.seed = seed_ * 1000 + static_cast<uint64_t>(id) * 31 + static_cast<uint64_t>(incarnation);
  c.max_inflight_bytes = 4096;
  c.max_append_bytes = 1024;
  return c;
}

void Cluster::Record(const std::string& violation) {
  if (violation_.empty()) violation_ = absl::StrCat("step ", now_, ": ", violation);
}

void Cluster::Crash(NodeId id) {
  nodes_.at(id).raft.reset();  // what was not persisted is gone with it
}

void Cluster::Restart(NodeId id) {
  Node& node = nodes_.at(id);
  if (node.raft) return;
  ++node.incarnation;
  node.applied = node.snapshot_data;  // the state machine restores the snapshot
  node.staged.reset();
  node.raft = std::make_unique<Raft>(ConfigFor(id, node.incarnation), node.hard_state, node.snapshot, node.log);
}

int Cluster::StaleKeys(const VoterSet& voters) const {
  int stale = 0;
  for (const auto& [id, voter] : voters.voters()) stale += nodes_.at(id).directory_id != voter.directory_id;
  return stale;
}

std::vector<VoterSet> Cluster::ConfigsAhead(const Node& node) const {
  VoterSet current = node.bootstrap ? Bootstrap() : VoterSet();
  if (!node.snapshot.voters.empty()) current = *VoterSet::Decode(node.snapshot.voters);
  std::vector<VoterSet> out;
  if (node.snapshot.index >= node.hard_state.commit) out.push_back(current);
  for (const Entry& e : node.log) {
    if (e.type == EntryType::kVoters) current = *VoterSet::Decode(e.data);
    if (e.index == node.hard_state.commit || (e.index > node.hard_state.commit && e.type == EntryType::kVoters)) {
      out.push_back(current);
    }
  }
  if (node.raft) {
    out.push_back(node.raft->config());
    // A learner catching up is appended once the leader thinks it caught up.
    if (const Voter* learner = node.raft->LearnerVoter()) out.push_back(*node.raft->config().Add(*learner));
  }
  return out;
}

bool Cluster::LoseDisk(NodeId id) {
  ABSL_CHECK(dynamic_);
  // Every configuration a node, up or down, may go on with must keep a majority of live
  // keys.
  for (const auto& [other, node] : nodes_) {
    for (const VoterSet& voters : ConfigsAhead(node)) {
      int lost = StaleKeys(voters) + (voters.Contains(id, nodes_.at(id).directory_id) ? 1 : 0);
      if (static_cast<size_t>(lost) > voters.size() - voters.Majority()) return false;
    }
  }
  Crash(id);
  Node& node = nodes_.at(id);
  node.hard_state = HardState{};
  node.snapshot = SnapshotMeta{};
  node.snapshot_data.clear();
  node.log.clear();
  node.directory_id = DirectoryId(id, ++node.disks_lost);
  ++disks_lost_;
  node.bootstrap = false;  // formatted with --no-initial-controllers
  Restart(id);
  return true;
}

VoterChangeError Cluster::UpgradeOnLeader() {
  auto leader = Leader();
  if (!leader) return VoterChangeError::kNotLeader;
  Raft& raft = *nodes_.at(*leader).raft;
  VoterChange change;
  change.kind = VoterChange::Kind::kUpgrade;
  change.timeout_ticks = 60;
  for (NodeId id : ids_) {
    change.voters.push_back(Voter{.id = id, .directory_id = "", .endpoints = {{"CONTROLLER", "sim", 1}}});
  }
  VoterChangeResult result = raft.ProposeVoterChange(change);
  ++change_outcomes_[result.error];
  ProcessReady(*leader);
  return result.error;
}

VoterChangeError Cluster::ChangeVoterOnLeader(NodeId id) {
  auto leader = Leader();
  if (!leader) return VoterChangeError::kNotLeader;
  Raft& raft = *nodes_.at(*leader).raft;
  VoterChange change;
  change.timeout_ticks = 60;
  change.ack_when_committed = rng_() % 4 != 0;
  if (const Voter* known = raft.config().Find(id)) {
    change.kind = VoterChange::Kind::kRemove;
    change.voter = *known;
  } else {
    change.kind = VoterChange::Kind::kAdd;
    change.voter = Voter{.id = id, .directory_id = nodes_.at(id).directory_id, .endpoints = {{"CONTROLLER", "sim", 1}}};
  }
  // The leader judges who is caught up by answers up to an election timeout old: a
  // disk lost since then is news to it. The operator the simulation plays knows, and
  // never leaves voters without a majority of live keys (that would be safe, but no
  // leader could be elected again).
  absl::StatusOr<VoterSet> next = change.kind == VoterChange::Kind::kAdd
                                      ? raft.config().Add(change.voter)
                                      : raft.config().Remove(change.voter.id, change.voter.directory_id);
  if (next.ok() && static_cast<size_t>(StaleKeys(*next)) > next->size() - next->Majority()) {
    return VoterChangeError::kInvalidRequest;
  }
  VoterChangeResult result = raft.ProposeVoterChange(change);
  if (!result.ok()) ++change_outcomes_[result.error];
  ProcessReady(*leader);
  return result.error;
}

std::vector<NodeId> Cluster::LiveVoters() const {
  std::vector<NodeId> out;
  auto leader = Leader();
  if (!leader) return out;
  for (const auto& [id, voter] : nodes_.at(*leader).raft->config().voters()) {
    if (voter.directory_id.empty() || nodes_.at(id).directory_id == voter.directory_id) out.push_back(id);
  }
  return out;
}

std::string Cluster::Describe() const {
  std::string out;
  for (const auto& [id, node] : nodes_) {
    absl::StrAppend(&out, "\n  node ", id, " (directory #", node.disks_lost, "): ");
    if (!node.raft) {
      absl::StrAppend(&out, "down");
      continue;
    }
    const Raft& r = *node.raft;
    std::vector<std::string> voters;
    for (const auto& [vid, v] : r.config().voters()) {
      voters.push_back(absl::StrCat(vid, nodes_.at(vid).directory_id == v.directory_id ? "" : " (stale)"));
    }
    absl::StrAppend(&out, RoleName(r.role()), " of term ", r.term(), ", leader ", r.leader(), ", last ",
                    r.last_index(), " (term ", r.TermAt(r.last_index()), "), commit ", r.commit_index(),
                    ", voters {", absl::StrJoin(voters, ","), "}, elections ", r.elections_started());
  }
  return out;
}

void Cluster::Partition(const std::vector<int>& group_of_node) {
  for (size_t i = 0; i < ids_.size(); ++i) group_[ids_[i]] = group_of_node[i];
}

void Cluster::Heal() {
  for (auto& [id, g] : group_) g = 0;
}

const Entry* Cluster::PersistedAt(const Node& node, Index index) {
  Index i = index - node.snapshot.index - 1;
  if (i < 0 || i >= static_cast<Index>(node.log.size())) return nullptr;
  return &node.log[i];
}

void Cluster::Deliver(const InFlight& f) {
  const Message& m = f.message;
  Node& node = nodes_.at(m.to);
  bool reachable = node.raft && group_[m.from] == group_[m.to];
  if (m.type == MessageType::kSnapshot) {
    // The transport tells the sender how the stream ended.
    Node& sender = nodes_.at(m.from);
    if (sender.raft) sender.raft->ReportSnapshot(m.to, reachable);
    if (reachable) node.staged = f.snapshot_data;
  }
  if (!reachable) return;
  node.raft->Step(m);
}

void Cluster::MaybeSnapshot(NodeId id) {
  Node& node = nodes_.at(id);
  if (snapshot_every_ == 0 || !node.raft) return;
  Index applied = static_cast<Index>(node.applied.size());
  if (applied - node.snapshot.index < snapshot_every_) return;
  // Taken at the applied index, made durable, then the log below it is compacted.
  Term term = node.raft->TermAt(applied);
  if (term == 0) Record(absl::StrCat("node ", id, " has no term for its applied index ", applied));
  node.log.erase(node.log.begin(), node.log.begin() + (applied - node.snapshot.index));
  const VoterSet& voters = node.raft->ConfigAt(applied);  // a driver stores it with the snapshot
  node.snapshot = SnapshotMeta{applied, term, voters.is_static() || voters.empty() ? "" : voters.Encode()};
  node.snapshot_data = node.applied;
  node.raft->Compact(applied);
}

void Cluster::CheckApplied(NodeId id, const Entry& e) {
  auto [it, inserted] = committed_.emplace(e.index, e);
  if (inserted) committed_by_term_[e.index] = MaxTerm();
  if (inserted && e.type == EntryType::kVoters) {
    // One voter at a time: the committed set before it differs by at most one voter.
    absl::StatusOr<VoterSet> now = VoterSet::Decode(e.data);
    VoterSet before = Bootstrap();
    for (auto p = committed_.rbegin(); p != committed_.rend(); ++p) {
      if (p->first < e.index && p->second.type == EntryType::kVoters) {
        before = *VoterSet::Decode(p->second.data);
        break;
      }
    }
    std::vector<NodeId> a = before.ids(), b = now.ok() ? now->ids() : std::vector<NodeId>{}, changed;
    std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(changed));
    if (!now.ok() || changed.size() > 1) {
      Record(absl::StrCat("one voter at a time: committed voters at ", e.index, " are {", absl::StrJoin(b, ","),
                          "} after {", absl::StrJoin(a, ","), "}"));
    }
  }
  if (!inserted && !(it->second == e)) {
    Record(absl::StrCat("state machine safety: node ", id, " applies (term ", e.term, ", '", e.data, "') at ", e.index,
                        " where another applied (term ", it->second.term, ", '", it->second.data, "')"));
  }
}

void Cluster::ProcessReady(NodeId id) {
  Node& node = nodes_.at(id);
  if (!node.raft || !node.raft->HasReady()) return;
  Ready rd = node.raft->GetReady();
  // Persist, then send, then apply (the driver's contract).
  if (rd.snapshot.index != 0) {
    if (!node.staged || static_cast<Index>(node.staged->size()) != rd.snapshot.index) {
      Record(absl::StrCat("node ", id, " installs snapshot ", rd.snapshot.index, " it never received"));
    } else {
      node.snapshot = rd.snapshot;
      node.snapshot_data = *node.staged;
      node.log.clear();
      node.applied = node.snapshot_data;
      for (const Entry& e : node.applied) CheckApplied(id, e);
      ++snapshots_installed_;
    }
    node.staged.reset();
  }
  Index persisted_commit = node.hard_state.commit;
  if (rd.hard_state_changed) node.hard_state = rd.hard_state;
  if (!rd.entries.empty()) {
    Index first = rd.entries.front().index;
    // Rewriting an entry that was already known committed would be a bug in the core.
    if (first <= node.snapshot.index) Record(absl::StrCat("node ", id, " writes index ", first, " below its snapshot"));
    for (const Entry& e : rd.entries) {
      const Entry* old = PersistedAt(node, e.index);
      if (e.index > persisted_commit || old == nullptr) break;
      if (!(*old == e)) Record(absl::StrCat("node ", id, " overwrites committed index ", e.index));
    }
    node.log.resize(first - node.snapshot.index - 1);
    node.log.insert(node.log.end(), rd.entries.begin(), rd.entries.end());
  }
  std::vector<NodeId> snapshot_lost;  // reported after Advance, as a transport would
  for (const Message& m : rd.messages) {
    if (std::uniform_real_distribution<double>(0, 1)(rng_) < faults_.drop) {
      if (m.type == MessageType::kSnapshot) snapshot_lost.push_back(m.to);
      continue;
    }
    int copies = std::uniform_real_distribution<double>(0, 1)(rng_) < faults_.duplicate ? 2 : 1;
    std::shared_ptr<const std::vector<Entry>> data;
    if (m.type == MessageType::kSnapshot) {
      if (node.snapshot.index != m.index || node.snapshot.term != m.log_term) {
        Record(absl::StrCat("node ", id, " sends snapshot ", m.index, " but holds ", node.snapshot.index));
      }
      data = std::make_shared<const std::vector<Entry>>(node.snapshot_data);
    }
    for (int c = 0; c < copies; ++c) {
      int delay = faults_.max_delay > 0 ? static_cast<int>(rng_() % (faults_.max_delay + 1)) : 0;
      network_.push_back({now_ + 1 + delay, m, data});
    }
  }
  for (const VoterChangeResult& result : rd.change_results) ++change_outcomes_[result.error];
  for (const Entry& e : rd.committed_entries) {
    if (e.index != static_cast<Index>(node.applied.size()) + 1) {
      Record(absl::StrCat("node ", id, " applies index ", e.index, " after ", node.applied.size()));
    }
    node.applied.push_back(e);
    CheckApplied(id, e);
  }
  node.raft->Advance(rd);
  for (NodeId to : snapshot_lost) node.raft->ReportSnapshot(to, false);
  MaybeSnapshot(id);
}

void Cluster::Step() {
  ++now_;
  std::vector<InFlight> due;
  std::vector<InFlight> later;
  for (auto& f : network_) (f.deliver_at <= now_ ? due : later).push_back(std::move(f));
  network_ = std::move(later);
  for (const auto& f : due) {
    Deliver(f);
    ProcessReady(f.message.to);
  }
  for (NodeId id : ids_) {
    if (nodes_[id].raft) nodes_[id].raft->Tick();
    ProcessReady(id);
  }
}

bool Cluster::ProposeOnLeader(const std::string& data) {
  auto leader = Leader();
  if (!leader) return false;
  if (!nodes_[*leader].raft->Propose(data).ok()) return false;
  ProcessReady(*leader);
  return true;
}

std::optional<NodeId> Cluster::Leader() const {
  std::optional<NodeId> best;
  Term best_term = -1;
  for (const auto& [id, node] : nodes_) {
    if (node.raft && node.raft->role() == Role::kLeader && node.raft->term() > best_term) {
      best = id;
      best_term = node.raft->term();
    }
  }
  return best;
}

Term Cluster::MaxTerm() const {
  Term max = 0;
  for (const auto& [id, node] : nodes_) {
    max = std::max(max, node.hard_state.term);
    if (node.raft) max = std::max(max, node.raft->term());
  }
  return max;
}

bool Cluster::CheckInvariants(std::string* violation) {
  Index max_commit = 0;
  for (const auto& [id, node] : nodes_) {
    if (node.raft) max_commit = std::max(max_commit, node.raft->commit_index());
  }
  for (const auto& [id, node] : nodes_) {
    if (!node.raft) continue;
    const Raft& r = *node.raft;
    // At most one voters entry above the commit index (one change at a time).
    int uncommitted = 0;
    for (Index i = std::max(max_commit, r.snapshot().index) + 1; i <= r.last_index(); ++i) {
      uncommitted += r.EntryAt(i)->type == EntryType::kVoters;
    }
    if (uncommitted > 1) Record(absl::StrCat("node ", id, " holds ", uncommitted, " uncommitted voters entries"));
    if (r.role() == Role::kLeader) {
      auto [it, inserted] = leader_of_term_.emplace(r.term(), id);
      if (!inserted && it->second != id) {
        Record(absl::StrCat("election safety: nodes ", it->second, " and ", id, " both lead term ", r.term()));
      }
      // A voter, or one whose removal is not committed yet (Raft thesis 4.2.2).
      if (inserted && !r.config().Contains(id, node.directory_id) &&
          !r.ConfigAt(r.commit_index()).Contains(id, node.directory_id)) {
        Record(absl::StrCat("node ", id, " leads term ", r.term(), " but is not a voter of {",
                            absl::StrJoin(r.config().ids(), ","), "} with its directory id"));
      }
      // Leader completeness: every committed entry is in the leader's log.
      for (const auto& [index, entry] : committed_) {
        if (committed_by_term_[index] >= r.term()) continue;  // may predate the commit
        if (index <= r.snapshot().index) {
          // Compacted: its snapshot holds the entry (checked when it was applied).
          if (index == r.snapshot().index && r.snapshot().term != entry.term) {
            Record(absl::StrCat("leader completeness: leader ", id, " snapshot at ", index, " has term ",
                                r.snapshot().term, ", the committed entry ", entry.term));
          }
          continue;
        }
        const Entry* held = r.EntryAt(index);
        if (held == nullptr || !(*held == entry)) {
          Record(absl::StrCat("leader completeness: leader ", id, " of term ", r.term(), " lacks committed index ",
                              index, " (term ", entry.term, ", '", entry.data, "'); its log ends at ", r.last_index(),
                              held ? absl::StrCat(" and holds (term ", held->term, ", '", held->data, "') there")
                                   : std::string()));
          break;
        }
      }
    }
    if (r.commit_index() > r.last_index()) Record(absl::StrCat("node ", id, " commits past its log"));
  }
  // Log matching between persisted logs: where two logs hold the same term at an
  // index, they are identical up to it.
  // Compacted entries are compared through the snapshots' data.
  auto entry_at = [](const Node& n, Index index) -> const Entry* {
    if (index >= 1 && index <= n.snapshot.index) return &n.snapshot_data[index - 1];
    return PersistedAt(n, index);
  };
  for (size_t a = 0; a < ids_.size(); ++a) {
    for (size_t b = a + 1; b < ids_.size(); ++b) {
      const Node& na = nodes_[ids_[a]];
      const Node& nb = nodes_[ids_[b]];
      Index n = std::min<Index>(na.snapshot.index + na.log.size(), nb.snapshot.index + nb.log.size());
      Index i = n;
      while (i > 0 && entry_at(na, i)->term != entry_at(nb, i)->term) --i;
      for (Index j = 1; j <= i; ++j) {
        if (!(*entry_at(na, j) == *entry_at(nb, j))) {
          Record(absl::StrCat("log matching: nodes ", ids_[a], " and ", ids_[b], " agree on the term at ", i,
                              " but differ at ", j));
          break;
        }
      }
    }
  }
  if (!violation_.empty()) {
    *violation = violation_;
    return false;
  }
  return true;
}

}  // namespace strata::raft::sim
