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
// Not thread-safe: the driver serialises every call.

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "raft/types.h"

namespace strata::raft {

enum class Role { kFollower, kPreCandidate, kCandidate, kLeader };
const char* RoleName(Role role);

struct Config {
  NodeId id = kNoNode;
  std::vector<NodeId> voters;  // including id
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
  };

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
  size_t Quorum() const { return config_.voters.size() / 2 + 1; }
  bool LogUpToDate(Index last_index, Term last_term) const;
  // The largest index <= index whose term is <= term (fast backtracking).
  Index FindConflictByTerm(Index index, Term term) const;
  // Appends entries after (index, log_term) if they match; returns the new last index
  // or nullopt on a mismatch.
  std::optional<Index> MaybeAppend(Index index, Term log_term, const std::vector<Entry>& entries);
  void CommitTo(Index index);
  void AppendEntry(std::string data);
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
  std::vector<Message> outbox_;
  int64_t elections_started_ = 0;
};

}  // namespace strata::raft
