#pragma once
// The Raft core: a deterministic state machine in the style of etcd's raft. Inputs are
// Step(message), Tick() and Propose(data); outputs come out of GetReady() (state to
// persist, messages to send, entries to apply) and are acknowledged with Advance().
// No threads, clocks, sockets or files inside; randomness comes from the seed in Config.
// Implements leader election with PreVote and CheckQuorum (a leader that hears from no
// majority within an election timeout steps down; voters that heard from a leader
// within it ignore vote requests), randomized election timeouts, replication with
// fast backtracking and bounded in-flight bytes per follower, and commitment of
// current-term entries by counting. A leader counts its own entries only once they are
// persisted (reported by Advance). Log compaction: after the driver stored a snapshot it
// calls Compact(index); a follower that needs a compacted entry is sent kSnapshot, and
// the driver reports the transfer's outcome with ReportSnapshot.
// The voters are the latest configuration in the log, committed or not (KIP-853; Raft
// thesis 4.1): a kVoters entry takes effect when appended and is undone when truncated.
// Elections, commitment and CheckQuorum count that configuration's voters only.
// Not thread-safe: the driver serialises every call.

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "raft/types.h"
#include "raft/voter_set.h"

namespace strata::raft {

enum class Role { kFollower, kPreCandidate, kCandidate, kLeader };
const char* RoleName(Role role);

struct Config {
  NodeId id = kNoNode;
  // A static quorum's voters (controller.quorum.voters): the configuration until the log
  // or a snapshot holds a VotersRecord (KIP-853, raft/voter_set.h). A node that is not
  // a voter of its configuration follows but never campaigns.
  std::vector<NodeId> voters;
  // A dynamic quorum's (KIP-853; voters empty): the voters the quorum started with
  // (strata-storage format --standalone / --initial-controllers), the configuration until
  // the log or a snapshot holds one; the first leader writes it into the log. Neither
  // this nor voters: a node added later, which learns its voters from the leader.
  std::optional<VoterSet> bootstrap;
  // This node's metadata log dir's directory.id (16 bytes; empty in a static quorum): a
  // voter is the pair (id, directory_id), so a node formatted again is not the voter it
  // was.
  std::string directory_id;
  int election_ticks = 10;     // the timeout is drawn from [election_ticks, 2 * election_ticks)
  int heartbeat_ticks = 1;
  uint64_t seed = 1;
  bool pre_vote = true;
  bool check_quorum = true;
  // Flow control: bytes of entries sent to a follower and not yet acknowledged.
  size_t max_inflight_bytes = 1 << 20;
  // Bytes of entries in one Append message (at least one entry is always sent).
  size_t max_append_bytes = 256 << 10;
};

// A change of one voter (KIP-853's AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter), or
// the upgrade of a static quorum to a dynamic one (kraft.version 1, Kafka 4.1's
// kafka-features upgrade --feature kraft.version=1).
struct VoterChange {
  enum class Kind { kAdd, kRemove, kUpdate, kUpgrade };
  Kind kind = Kind::kAdd;
  Voter voter;  // kRemove: id and directory_id
  // kUpgrade: every static voter with its endpoints; each one's directory id is the one
  // its answers to this leader named (it must equal one given here).
  std::vector<Voter> voters;
  // Ticks the change may take: a new voter's catch-up, then the commit.
  int timeout_ticks = 100;
  // false: done once its entry is appended (AddRaftVoter v1's AckWhenCommitted).
  bool ack_when_committed = true;
};

class Raft {
 public:
  // Restarts from what was persisted: the hard state, the latest snapshot (index 0:
  // none) and every log entry after it, in order.
  Raft(const Config& config, const HardState& hard_state, const SnapshotMeta& snapshot,
       std::vector<Entry> persisted_entries);
  Raft(const Config& config, const HardState& hard_state, std::vector<Entry> persisted_entries)
      : Raft(config, hard_state, SnapshotMeta{}, std::move(persisted_entries)) {}

  void Tick();
  void Step(const Message& message);
  // Appends data as a new entry when this node leads; otherwise FAILED_PRECONDITION
  // naming the known leader ("not leader; leader is N"), so callers can forward.
  absl::Status Propose(std::string data);
  // Starts a change of the voters, one at a time (Raft thesis 4.2, KIP-853), when this
  // node leads a dynamic quorum. Refused at once, with the reason, when it may not go
  // ahead: not the leader, a static quorum, a change still uncommitted, no entry of
  // this term committed yet (Ongaro's fix for single-server changes), a voter added
  // twice or unknown, the last voter, or a change after which no majority of the new
  // voters is caught up. Otherwise the result has the change's id and no error, and the
  // outcome comes later in Ready::change_results. An added voter first catches up as a
  // learner (replicated to, not counted); then the new set is appended as a kVoters
  // entry and counts at once; the change is done when that entry commits. A leader
  // that removed itself steps down then. An upgrade (kUpgrade) of a static quorum appends
  // a KRaftVersion entry (1) and the static voters as a kVoters entry, each keyed by the
  // directory id its answers named (refused while one has not answered this leader);
  // the majorities do not change, and from that entry on the quorum is dynamic.
  VoterChangeResult ProposeVoterChange(const VoterChange& change);

  bool HasReady() const;
  Ready GetReady();
  // Acknowledges that everything in ready was persisted, sent and applied.
  void Advance(const Ready& ready);

  // The driver stored a snapshot covering index (<= applied_index()): entries up to it
  // leave memory, and a follower that needs them is sent the snapshot instead.
  void Compact(Index index);
  // The transfer of a snapshot to `to` ended (ok: the follower has it).
  void ReportSnapshot(NodeId to, bool ok);

  NodeId id() const { return config_.id; }
  Role role() const { return role_; }
  Term term() const { return term_; }
  NodeId leader() const { return leader_; }
  NodeId vote() const { return vote_; }
  Index commit_index() const { return commit_; }
  Index applied_index() const { return applied_; }
  Index last_index() const { return offset_ + static_cast<Index>(log_.size()) - 1; }
  // The latest snapshot: entries up to its index are compacted away.
  SnapshotMeta snapshot() const { return {offset_, log_[0].term}; }
  Term TermAt(Index index) const;  // 0 when index is outside [snapshot().index, last_index()]
  // The entry at index, or nullptr when it is compacted or past the end.
  const Entry* EntryAt(Index index) const;
  int64_t elections_started() const { return elections_started_; }
  // While this node leads: each voter's match index (the last index known to be in its
  // log; this node's own: last_index()). Empty while it does not lead.
  std::map<NodeId, Index> VoterMatchIndexes() const;
  // The voters now: the latest configuration in the log (or the snapshot's, or the
  // static one).
  const VoterSet& config() const { return configs_.rbegin()->second; }
  // The voters as of index (>= snapshot().index): what a snapshot there holds.
  const VoterSet& ConfigAt(Index index) const;
  bool IsVoter(NodeId id) const { return config().Contains(id); }
  // The node a voter change is catching up (kNoNode: none); only while leading.
  NodeId learner() const;
  // That learner as it will be a voter (nullptr: none).
  const Voter* LearnerVoter() const;
  // While leading: the learner's match index (0 when there is none).
  Index LearnerMatchIndex() const;

 private:
  struct Progress {
    Index match = 0;
    Index next = 1;
    bool probing = true;        // probe: one Append at a time until one is accepted
    bool probe_sent = false;    // in probe, an Append is outstanding
    std::map<Index, size_t> inflight;  // last index of each unacknowledged Append -> bytes
    size_t inflight_bytes = 0;
    bool recent_active = false;
    // Heartbeat responses since the last accepted Append while behind: Appends were
    // lost, so replication falls back to probing from match.
    int stalled_heartbeats = 0;
    // While not 0: a snapshot at this index is on its way; no Appends until it lands.
    Index pending_snapshot = 0;
    // The highest commit index an Append or a heartbeat told it (as far as its log went).
    Index sent_commit = 0;
    // The tick of its last answer (-1: none yet), and the leader's last index then.
    int64_t last_response_tick = -1;
    Index last_index_at_last_response = 0;
    // The latest tick at which it held the leader's whole log (-1: never in this term),
    // as Kafka's lastCaughtUpTimestamp: now when it holds the log as it is, or the tick of
    // its previous answer when it holds the log as it was then. A replica is caught up
    // (CaughtUp) if this is within an election timeout: one that keeps pace with a busy
    // leader counts though it is always an Append behind, a silent one stops counting.
    int64_t caught_up_tick = -1;
    // The directory id its answers name (empty: none yet, or an older build): what an
    // upgrade to a dynamic quorum writes as its key.
    std::string directory;
  };

  // The voter change under way (one at a time).
  struct PendingChange {
    int64_t id = 0;
    VoterChange change;
    VoterSet next;         // the voters once it is done
    int64_t deadline = 0;  // in ticks_
    Index entry = 0;       // its kVoters entry once appended (0: a learner still catching up)
  };

  // ProposeVoterChange's refusal when no change may start now (not leading, one in
  // progress, nothing of this term committed), else nullopt.
  std::optional<VoterChangeResult> RefuseAnyChange() const;
  VoterChangeResult ProposeUpgrade(const VoterChange& change);

  void BecomeFollower(Term term, NodeId leader);
  void BecomePreCandidate();
  void BecomeCandidate();
  void BecomeLeader();
  void Campaign(bool pre_vote);
  void ResetTerm(Term term);
  void ResetElectionTimer();
  bool PastElectionTimeout() const { return election_elapsed_ >= randomized_election_timeout_; }

  void StepLeader(const Message& m);
  void StepCandidate(const Message& m);
  void StepFollower(const Message& m);
  void HandleVoteRequest(const Message& m);
  void HandleAppend(const Message& m);
  void HandleHeartbeat(const Message& m);
  void HandleAppendResponse(const Message& m);
  // A replica answered (after its match was brought up to date): its answer and
  // caught-up ticks.
  void RecordAnswer(Progress& pr);
  void HandleSnapshot(const Message& m);
  void SendSnapshot(NodeId to, Progress& pr);

  void Send(Message m);
  void SendAppend(NodeId to);
  void BroadcastAppend();
  void BroadcastHeartbeat();
  // Tells `to` the commit index at once if it holds entries it does not know committed.
  void MaybeSendCommit(NodeId to);
  // A heartbeat to `to`, carrying the commit index as far as its log goes.
  void SendHeartbeat(NodeId to);
  void MaybeCommit();
  bool QuorumActive();
  bool SelfIsVoter() const { return config().Contains(config_.id, config_.directory_id); }
  // A voter campaigns; so does a node whose removal it has not seen committed: until it
  // is, the new voters may need it to lead and commit the removal (Raft thesis 4.2.2;
  // it does not vote for itself then).
  bool MayCampaign() const {
    return SelfIsVoter() || ConfigAt(commit_).Contains(config_.id, config_.directory_id);
  }
  // Whether a response comes from the replica the leader knows by that id: a node whose
  // disk was formatted again (another directory id) holds none of what the voter held,
  // so its answers count for nothing.
  bool FromReplicaKey(const Message& m) const;
  // Whether `id` held the leader's whole log within an election timeout (Progress's
  // caught_up_tick; this node: always).
  bool CaughtUp(NodeId id) const;
  // Empty when a majority of next's voters is caught up; otherwise why not.
  std::string QuorumAfter(const VoterSet& next) const;
  // Whether a configuration is in the log or the snapshot (not only the bootstrap).
  bool ConfigWritten() const { return base_written_ || configs_.size() > 1; }
  Index LatestConfigIndex() const { return configs_.rbegin()->first; }
  // The voter change: the learner caught up (append the new set), the entry committed
  // (done), the deadline passed or leadership lost (report and forget it).
  void MaybeAppendVoterChange();
  void AppendVoterChange();
  void MaybeFinishVoterChange();
  void EndVoterChange(VoterChangeError error, std::string message);
  size_t Quorum() const { return config().Majority(); }
  bool LogUpToDate(Index last_index, Term last_term) const;
  // The largest index <= index whose term is <= term (fast backtracking).
  Index FindConflictByTerm(Index index, Term term) const;
  // Appends entries after (index, log_term) if they match; returns the new last index
  // or nullopt on a mismatch.
  std::optional<Index> MaybeAppend(Index index, Term log_term, const std::vector<Entry>& entries);
  void CommitTo(Index index);
  void AppendEntry(std::string data, EntryType type = EntryType::kData);
  // Bookkeeping for an entry that joined log_: a kVoters entry is the configuration from
  // its index on.
  void NoteAppended(const Entry& entry);
  // The log is cut back to before index: configurations from there on are undone.
  void ForgetConfigsFrom(Index index);
  // While leading: progress for every voter of the configuration (and this node), none
  // for a node that left it.
  void SyncProgress();
  HardState hard_state() const { return {term_, vote_, commit_}; }

  const Config config_;
  std::mt19937_64 rng_;
  Role role_ = Role::kFollower;
  Term term_ = 0;
  NodeId vote_ = kNoNode;
  NodeId leader_ = kNoNode;
  // log_[i].index == offset_ + i; log_[0] stands for the snapshot (its term, no data).
  std::vector<Entry> log_;
  Index offset_ = 0;
  Index commit_ = 0;
  Index applied_ = 0;
  Index stable_ = 0;        // entries up to here are persisted
  Index unstable_from_ = 1; // the next Ready persists entries from here
  HardState persisted_hard_state_;
  SnapshotMeta pending_install_;  // a received snapshot the next Ready installs
  int election_elapsed_ = 0;
  int heartbeat_elapsed_ = 0;
  int randomized_election_timeout_ = 0;
  std::map<NodeId, bool> votes_;
  std::map<NodeId, Progress> progress_;
  // Each configuration by the index it starts at; the first is the base (as of offset_:
  // the snapshot's or the static one); never empty.
  std::map<Index, VoterSet> configs_;
  bool base_written_ = false;  // the base came from a snapshot or the compacted log
  std::optional<PendingChange> pending_change_;
  int64_t next_change_id_ = 1;
  std::vector<VoterChangeResult> change_results_;
  int64_t ticks_ = 0;
  std::vector<Message> outbox_;
  int64_t elections_started_ = 0;
};

}  // namespace strata::raft
