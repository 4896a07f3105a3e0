#include "raft/raft.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::raft {

const char* RoleName(Role role) {
  switch (role) {
    case Role::kFollower: return "follower";
    case Role::kPreCandidate: return "pre-candidate";
    case Role::kCandidate: return "candidate";
    case Role::kLeader: return "leader";
  }
  return "?";
}

const char* MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kPreVote: return "PreVote";
    case MessageType::kPreVoteResponse: return "PreVoteResponse";
    case MessageType::kVote: return "Vote";
    case MessageType::kVoteResponse: return "VoteResponse";
    case MessageType::kAppend: return "Append";
    case MessageType::kAppendResponse: return "AppendResponse";
    case MessageType::kHeartbeat: return "Heartbeat";
    case MessageType::kHeartbeatResponse: return "HeartbeatResponse";
    case MessageType::kSnapshot: return "Snapshot";
  }
  return "?";
}

const char* VoterChangeErrorName(VoterChangeError error) {
  switch (error) {
    case VoterChangeError::kNone: return "none";
    case VoterChangeError::kNotLeader: return "not leader";
    case VoterChangeError::kStaticQuorum: return "static quorum";
    case VoterChangeError::kInProgress: return "change in progress";
    case VoterChangeError::kNotReady: return "leader not ready";
    case VoterChangeError::kDuplicateVoter: return "duplicate voter";
    case VoterChangeError::kVoterNotFound: return "voter not found";
    case VoterChangeError::kInvalidVoterKey: return "invalid voter key";
    case VoterChangeError::kInvalidRequest: return "invalid request";
    case VoterChangeError::kTimedOut: return "timed out";
    case VoterChangeError::kLeadershipLost: return "leadership lost";
  }
  return "?";
}

const char* EntryTypeName(EntryType type) {
  switch (type) {
    case EntryType::kData: return "data";
    case EntryType::kKraftVersion: return "KRaftVersion";
    case EntryType::kVoters: return "KRaftVoters";
  }
  return "?";
}

namespace {
size_t EntryBytes(const Entry& e) { return e.data.size() + 16; }
}  // namespace

Raft::Raft(const Config& config, const HardState& hard_state, const SnapshotMeta& snapshot,
           std::vector<Entry> persisted_entries)
    : config_(config), rng_(config.seed) {
  ABSL_CHECK(config_.id != kNoNode);
  ABSL_CHECK_GT(config_.election_ticks, config_.heartbeat_ticks);
  ABSL_CHECK_GE(snapshot.index, 0);
  offset_ = snapshot.index;
  // The base: the snapshot's voters, else the bootstrap's, else the static ones; none
  // for a node added later (it learns them from the leader).
  if (!snapshot.voters.empty()) {
    absl::StatusOr<VoterSet> voters = VoterSet::Decode(snapshot.voters);
    ABSL_CHECK(voters.ok()) << "snapshot " << snapshot.index << ": " << voters.status();
    configs_.emplace(offset_, *std::move(voters));
    base_written_ = true;
  } else if (config_.bootstrap) {
    configs_.emplace(offset_, *config_.bootstrap);
  } else if (!config_.voters.empty()) {
    configs_.emplace(offset_, VoterSet::Static(config_.voters));
  } else {
    configs_.emplace(offset_, VoterSet());
  }
  log_.push_back(Entry{snapshot.term, snapshot.index, ""});
  for (Entry& e : persisted_entries) {
    ABSL_CHECK_EQ(e.index, last_index() + 1) << "persisted entries must follow the snapshot consecutively";
    ABSL_CHECK_GE(e.term, TermAt(last_index())) << "terms in a log never fall";
    log_.push_back(std::move(e));
    NoteAppended(log_.back());
  }
  ABSL_CHECK_LE(hard_state.commit, last_index());
  ABSL_CHECK_LE(TermAt(last_index()), hard_state.term);
  term_ = hard_state.term;
  vote_ = hard_state.vote;
  // The snapshot holds committed entries only; the state machine starts from it.
  commit_ = std::max(hard_state.commit, offset_);
  applied_ = offset_;
  persisted_hard_state_ = hard_state;
  stable_ = last_index();
  unstable_from_ = last_index() + 1;
  BecomeFollower(term_, kNoNode);
}

Term Raft::TermAt(Index index) const {
  if (index < offset_ || index > last_index()) return 0;
  return log_[index - offset_].term;
}

const VoterSet& Raft::ConfigAt(Index index) const {
  ABSL_CHECK_GE(index, offset_);
  return std::prev(configs_.upper_bound(index))->second;
}

void Raft::NoteAppended(const Entry& entry) {
  if (entry.type != EntryType::kVoters) return;
  absl::StatusOr<VoterSet> voters = VoterSet::Decode(entry.data);
  // Storage and the transport refuse an entry that does not decode (ValidateConfigurationEntry).
  ABSL_CHECK(voters.ok()) << "entry " << entry.index << ": " << voters.status();
  configs_[entry.index] = *std::move(voters);
  SyncProgress();
}

void Raft::ForgetConfigsFrom(Index index) {
  ABSL_CHECK_GT(index, offset_) << "the base configuration is never undone";
  size_t before = configs_.size();
  configs_.erase(configs_.lower_bound(index), configs_.end());
  if (configs_.size() != before) SyncProgress();
}

void Raft::SyncProgress() {
  if (role_ != Role::kLeader) return;
  // Replicated to: the voters, those of the committed configuration still (a removed
  // voter learns of its removal), and a learner catching up.
  std::set<NodeId> replicas = {config_.id};
  for (NodeId id : config().ids()) replicas.insert(id);
  for (NodeId id : ConfigAt(commit_).ids()) replicas.insert(id);
  if (pending_change_ && pending_change_->change.kind == VoterChange::Kind::kAdd) {
    replicas.insert(pending_change_->change.voter.id);
  }
  for (NodeId id : replicas) {
    if (progress_.count(id) == 0) progress_[id].next = last_index() + 1;
  }
  for (auto it = progress_.begin(); it != progress_.end();) {
    it = replicas.count(it->first) != 0 ? std::next(it) : progress_.erase(it);
  }
}

bool Raft::FromReplicaKey(const Message& m) const {
  if (m.from_directory.empty()) return true;  // a static quorum's
  const Voter* key = config().Find(m.from);
  if (key == nullptr) key = ConfigAt(commit_).Find(m.from);
  if (key == nullptr && pending_change_ && pending_change_->change.voter.id == m.from) {
    key = &pending_change_->change.voter;
  }
  return key == nullptr || key->directory_id.empty() || key->directory_id == m.from_directory;
}

const Entry* Raft::EntryAt(Index index) const {
  if (index <= offset_ || index > last_index()) return nullptr;
  return &log_[index - offset_];
}

void Raft::ResetElectionTimer() {
  randomized_election_timeout_ =
      config_.election_ticks + static_cast<int>(rng_() % static_cast<uint64_t>(config_.election_ticks));
}

void Raft::ResetTerm(Term term) {
  if (term != term_) {
    ABSL_CHECK_GT(term, term_) << "terms only grow";
    term_ = term;
    vote_ = kNoNode;
  }
  leader_ = kNoNode;
  election_elapsed_ = 0;
  heartbeat_elapsed_ = 0;
  votes_.clear();
  ResetElectionTimer();
}

void Raft::BecomeFollower(Term term, NodeId leader) {
  if (pending_change_) {
    EndVoterChange(VoterChangeError::kLeadershipLost,
                   pending_change_->entry == 0
                       ? "the leader stepped down while the new voter caught up; nothing changed"
                       : absl::StrCat("the leader stepped down before entry ", pending_change_->entry,
                                      " committed; the change may or may not take effect"));
  }
  ResetTerm(term);
  role_ = Role::kFollower;
  leader_ = leader;
}

void Raft::BecomePreCandidate() {
  ABSL_CHECK(role_ != Role::kLeader);
  role_ = Role::kPreCandidate;
  votes_.clear();
  leader_ = kNoNode;
}

void Raft::BecomeCandidate() {
  ABSL_CHECK(role_ != Role::kLeader);
  ResetTerm(term_ + 1);
  vote_ = config_.id;
  role_ = Role::kCandidate;
  ++elections_started_;
}

void Raft::BecomeLeader() {
  ABSL_CHECK(role_ == Role::kCandidate);
  role_ = Role::kLeader;
  leader_ = config_.id;
  progress_.clear();
  progress_[config_.id].match = stable_;
  SyncProgress();
  // A no-op of the new term lets earlier-term entries commit by counting.
  AppendEntry("");
  if (!config().is_static() && !ConfigWritten()) {
    // The first leader of a dynamic quorum writes its bootstrap voters into the log,
    // from where nodes added later learn them (as Kafka's bootstrap checkpoint).
    AppendEntry(EncodeKraftVersion(kKraftVersionDynamic), EntryType::kKraftVersion);
    AppendEntry(config().Encode(), EntryType::kVoters);
  }
  BroadcastAppend();
}

void Raft::Campaign(bool pre_vote) {
  Term vote_term;
  if (pre_vote) {
    BecomePreCandidate();
    vote_term = term_ + 1;
  } else {
    BecomeCandidate();
    vote_term = term_;
  }
  ABSL_CHECK(MayCampaign());
  if (SelfIsVoter()) votes_[config_.id] = true;  // a node being removed does not vote for itself
  if (votes_.size() >= Quorum()) {  // a single voter
    if (pre_vote) {
      Campaign(false);
    } else {
      BecomeLeader();
    }
    return;
  }
  for (NodeId peer : config().ids()) {
    if (peer == config_.id) continue;
    Message m;
    m.type = pre_vote ? MessageType::kPreVote : MessageType::kVote;
    m.to = peer;
    m.term = vote_term;
    m.index = last_index();
    m.log_term = TermAt(last_index());
    m.to_directory = config().Find(peer)->directory_id;
    Send(std::move(m));
  }
}

void Raft::Tick() {
  ++ticks_;
  if (pending_change_ && ticks_ >= pending_change_->deadline) {
    const PendingChange& pc = *pending_change_;
    EndVoterChange(VoterChangeError::kTimedOut,
                   pc.entry == 0 ? absl::StrCat("voter ", pc.change.voter.id, " is still catching up: at index ",
                                                LearnerMatchIndex(), " of ", commit_)
                                 : absl::StrCat("entry ", pc.entry, " with the new voters is not committed yet"));
  }
  if (role_ == Role::kLeader) {
    ++heartbeat_elapsed_;
    ++election_elapsed_;
    if (election_elapsed_ >= config_.election_ticks) {
      election_elapsed_ = 0;
      if (config_.check_quorum && !QuorumActive()) {
        BecomeFollower(term_, kNoNode);  // cannot reach a majority: step down
        return;
      }
    }
    if (heartbeat_elapsed_ >= config_.heartbeat_ticks) {
      heartbeat_elapsed_ = 0;
      BroadcastHeartbeat();
    }
    return;
  }
  if (!MayCampaign()) {
    // A node outside the configuration (added later, or removed) only follows. Its timer
    // stops at the timeout: past it, it no longer holds the lease of a leader it does
    // not hear from, and grants votes (etcd's learners do the same).
    election_elapsed_ = std::min(election_elapsed_ + 1, randomized_election_timeout_);
    return;
  }
  ++election_elapsed_;
  if (PastElectionTimeout()) {
    election_elapsed_ = 0;
    Campaign(config_.pre_vote);
  }
}

bool Raft::QuorumActive() {
  size_t active = 0;
  for (auto& [peer, pr] : progress_) {
    if (IsVoter(peer) && (peer == config_.id || pr.recent_active)) ++active;
    pr.recent_active = false;
  }
  return active >= Quorum();
}

absl::Status Raft::Propose(std::string data) {
  if (role_ != Role::kLeader) {
    return absl::FailedPreconditionError(absl::StrCat("not leader; leader is ", leader_));
  }
  AppendEntry(std::move(data));
  BroadcastAppend();
  return absl::OkStatus();
}

void Raft::AppendEntry(std::string data, EntryType type) {
  log_.push_back(Entry{term_, last_index() + 1, std::move(data), type});
  NoteAppended(log_.back());
}

void Raft::Send(Message m) {
  m.from = config_.id;
  m.from_directory = config_.directory_id;
  outbox_.push_back(std::move(m));
}

void Raft::Step(const Message& m) {
  if (m.term > term_) {
    bool vote_request = m.type == MessageType::kVote || m.type == MessageType::kPreVote;
    if (vote_request && config_.check_quorum && leader_ != kNoNode && election_elapsed_ < config_.election_ticks) {
      return;  // heard from a leader within the timeout: it is alive, ignore
    }
    if (m.type == MessageType::kPreVote) {
      // A pre-vote never changes the voter's term.
    } else if (m.type == MessageType::kPreVoteResponse && !m.reject) {
      // Granted for the term the pre-candidate proposes; it moves there on a quorum.
    } else {
      bool from_leader = m.type == MessageType::kAppend || m.type == MessageType::kHeartbeat ||
                         m.type == MessageType::kSnapshot;
      BecomeFollower(m.term, from_leader ? m.from : kNoNode);
    }
  } else if (m.term < term_) {
    if ((config_.check_quorum || config_.pre_vote) &&
        (m.type == MessageType::kAppend || m.type == MessageType::kHeartbeat || m.type == MessageType::kSnapshot)) {
      // Tell a stale leader about the newer term so it steps down.
      Message r;
      r.type = MessageType::kAppendResponse;
      r.to = m.from;
      r.term = term_;
      Send(std::move(r));
    } else if (m.type == MessageType::kPreVote) {
      Message r;
      r.type = MessageType::kPreVoteResponse;
      r.to = m.from;
      r.term = term_;
      r.reject = true;
      Send(std::move(r));
    }
    return;
  }

  if (m.type == MessageType::kPreVote || m.type == MessageType::kVote) {
    HandleVoteRequest(m);
    return;
  }
  switch (role_) {
    case Role::kLeader: StepLeader(m); break;
    case Role::kPreCandidate:
    case Role::kCandidate: StepCandidate(m); break;
    case Role::kFollower: StepFollower(m); break;
  }
}

bool Raft::LogUpToDate(Index last, Term last_term) const {
  Term my_last_term = TermAt(last_index());
  return last_term > my_last_term || (last_term == my_last_term && last >= last_index());
}

void Raft::HandleVoteRequest(const Message& m) {
  bool pre = m.type == MessageType::kPreVote;
  bool can_vote = vote_ == m.from || (vote_ == kNoNode && leader_ == kNoNode) || (pre && m.term > term_);
  // A request for another voter with this id (this node's disk was formatted again,
  // or the candidate knows an older configuration) is not this node's to grant.
  bool addressed_here = m.to_directory.empty() || config_.directory_id.empty() || m.to_directory == config_.directory_id;
  Message r;
  r.type = pre ? MessageType::kPreVoteResponse : MessageType::kVoteResponse;
  r.to = m.from;
  if (addressed_here && can_vote && LogUpToDate(m.index, m.log_term)) {
    r.term = m.term;
    if (!pre) {
      election_elapsed_ = 0;
      vote_ = m.from;
    }
  } else {
    r.term = term_;
    r.reject = true;
  }
  Send(std::move(r));
}

void Raft::StepCandidate(const Message& m) {
  switch (m.type) {
    case MessageType::kAppend:
      BecomeFollower(m.term, m.from);
      HandleAppend(m);
      return;
    case MessageType::kHeartbeat:
      BecomeFollower(m.term, m.from);
      HandleHeartbeat(m);
      return;
    case MessageType::kSnapshot:
      BecomeFollower(m.term, m.from);
      HandleSnapshot(m);
      return;
    case MessageType::kPreVoteResponse:
    case MessageType::kVoteResponse: {
      bool pre = m.type == MessageType::kPreVoteResponse;
      if (pre != (role_ == Role::kPreCandidate)) return;  // a response to an earlier phase
      if (!config().Contains(m.from, m.from_directory)) return;  // only the configuration's voters decide
      votes_[m.from] = !m.reject;
      size_t granted = 0, rejected = 0;
      for (const auto& [peer, yes] : votes_) (yes ? granted : rejected) += 1;
      if (granted >= Quorum()) {
        if (pre) {
          Campaign(false);
        } else {
          BecomeLeader();
        }
      } else if (rejected >= Quorum()) {
        BecomeFollower(term_, kNoNode);
      }
      return;
    }
    default:
      return;
  }
}

void Raft::StepFollower(const Message& m) {
  switch (m.type) {
    case MessageType::kAppend:
      election_elapsed_ = 0;
      leader_ = m.from;
      HandleAppend(m);
      return;
    case MessageType::kHeartbeat:
      election_elapsed_ = 0;
      leader_ = m.from;
      HandleHeartbeat(m);
      return;
    case MessageType::kSnapshot:
      election_elapsed_ = 0;
      leader_ = m.from;
      HandleSnapshot(m);
      return;
    default:
      return;
  }
}

void Raft::HandleAppend(const Message& m) {
  Message r;
  r.type = MessageType::kAppendResponse;
  r.to = m.from;
  r.term = term_;
  if (m.index < commit_) {
    r.index = commit_;  // everything up to commit matches already
    Send(std::move(r));
    return;
  }
  if (auto last = MaybeAppend(m.index, m.log_term, m.entries)) {
    CommitTo(std::min(m.commit, *last));
    r.index = *last;
  } else {
    Index hint = FindConflictByTerm(std::min(m.index, last_index()), m.log_term);
    r.index = m.index;
    r.reject = true;
    r.reject_hint = hint;
    r.log_term = TermAt(hint);
  }
  Send(std::move(r));
}

void Raft::HandleHeartbeat(const Message& m) {
  CommitTo(std::min(m.commit, last_index()));
  Message r;
  r.type = MessageType::kHeartbeatResponse;
  r.to = m.from;
  r.term = term_;
  Send(std::move(r));
}

Index Raft::FindConflictByTerm(Index index, Term term) const {
  index = std::min(index, last_index());
  while (index > offset_ && TermAt(index) > term) --index;
  return index;
}

std::optional<Index> Raft::MaybeAppend(Index index, Term log_term, const std::vector<Entry>& entries) {
  ABSL_CHECK_GE(index, offset_) << "appends below the commit index are answered before";
  if (index > last_index() || TermAt(index) != log_term) return std::nullopt;
  Index conflict = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    ABSL_CHECK_EQ(entries[i].index, index + 1 + static_cast<Index>(i)) << "entries of an Append are consecutive";
    if (entries[i].index > last_index() || TermAt(entries[i].index) != entries[i].term) {
      conflict = entries[i].index;
      break;
    }
  }
  if (conflict != 0) {
    ABSL_CHECK_GT(conflict, commit_) << "a leader never overwrites committed entries";
    log_.resize(conflict - offset_);
    ForgetConfigsFrom(conflict);
    for (const Entry& e : entries) {
      if (e.index < conflict) continue;
      log_.push_back(e);
      NoteAppended(log_.back());
    }
    unstable_from_ = std::min(unstable_from_, conflict);
    stable_ = std::min(stable_, conflict - 1);
  }
  return index + static_cast<Index>(entries.size());
}

void Raft::CommitTo(Index index) {
  if (index <= commit_) return;
  ABSL_CHECK_LE(index, last_index());
  commit_ = index;
}

void Raft::StepLeader(const Message& m) {
  switch (m.type) {
    case MessageType::kAppendResponse:
      HandleAppendResponse(m);
      return;
    case MessageType::kHeartbeatResponse: {
      auto it = progress_.find(m.from);
      if (it == progress_.end() || !FromReplicaKey(m)) return;
      Progress& pr = it->second;
      pr.recent_active = true;
      RecordAnswer(pr);
      if (!m.from_directory.empty()) pr.directory = m.from_directory;
      pr.probe_sent = false;
      if (pr.match < last_index()) {
        if (!pr.probing && ++pr.stalled_heartbeats >= 2) {
          pr.probing = true;
          pr.next = pr.match + 1;
          pr.inflight.clear();
          pr.inflight_bytes = 0;
        }
        SendAppend(m.from);
      }
      if (m.from == learner()) MaybeAppendVoterChange();
      return;
    }
    case MessageType::kAppend:
    case MessageType::kHeartbeat:
    case MessageType::kSnapshot:
      ABSL_CHECK(false) << "node " << m.from << " leads term " << m.term << " too (this is node " << config_.id << ")";
      return;
    default:
      return;
  }
}

void Raft::HandleAppendResponse(const Message& m) {
  auto it = progress_.find(m.from);
  if (it == progress_.end() || !FromReplicaKey(m)) return;
  Progress& pr = it->second;
  pr.recent_active = true;
  if (!m.from_directory.empty()) pr.directory = m.from_directory;
  if (m.reject) {
    RecordAnswer(pr);
    bool stale = pr.probing ? m.index != pr.next - 1 : m.index <= pr.match;
    if (stale) return;
    Index probe = m.reject_hint;
    if (m.log_term > 0) probe = FindConflictByTerm(m.reject_hint, m.log_term);
    pr.next = std::max(std::min(m.index, probe + 1), pr.match + 1);
    pr.probing = true;
    pr.probe_sent = false;
    pr.inflight.clear();
    pr.inflight_bytes = 0;
    SendAppend(m.from);
    return;
  }
  if (m.index > pr.match) {
    pr.match = m.index;
    pr.stalled_heartbeats = 0;
  }
  RecordAnswer(pr);
  if (pr.pending_snapshot != 0 && pr.match >= pr.pending_snapshot) pr.pending_snapshot = 0;
  pr.next = std::max(pr.next, pr.match + 1);
  while (!pr.inflight.empty() && pr.inflight.begin()->first <= m.index) {
    pr.inflight_bytes -= pr.inflight.begin()->second;
    pr.inflight.erase(pr.inflight.begin());
  }
  if (pr.probing) {
    pr.probing = false;
    pr.next = pr.match + 1;
    pr.inflight.clear();
    pr.inflight_bytes = 0;
  }
  pr.probe_sent = false;
  MaybeCommit();
  if (role_ != Role::kLeader) return;  // it removed itself and stepped down
  if (m.from == learner()) MaybeAppendVoterChange();
  // A commit or a voter change may have ended its replication (a removed voter).
  if (progress_.count(m.from) == 0) return;
  // Send on while there is more and the window has room.
  Index before;
  do {
    before = progress_[m.from].next;
    SendAppend(m.from);
  } while (progress_[m.from].next != before && progress_[m.from].next <= last_index());
  MaybeSendCommit(m.from);  // it may hold entries committed before it acknowledged them
}

void Raft::RecordAnswer(Progress& pr) {
  if (pr.match >= last_index()) {
    pr.caught_up_tick = ticks_;
  } else if (pr.last_response_tick >= 0 && pr.match >= pr.last_index_at_last_response) {
    pr.caught_up_tick = std::max(pr.caught_up_tick, pr.last_response_tick);
  }
  pr.last_response_tick = ticks_;
  pr.last_index_at_last_response = last_index();
}

void Raft::SendAppend(NodeId to) {
  Progress& pr = progress_[to];
  if (pr.pending_snapshot != 0) return;  // wait for the snapshot to land
  if (pr.probing && pr.probe_sent) return;
  if (pr.next - 1 < offset_) {  // the entries it needs are compacted away
    SendSnapshot(to, pr);
    return;
  }
  if (!pr.probing && (pr.next > last_index() || pr.inflight_bytes >= config_.max_inflight_bytes)) return;
  Message m;
  m.type = MessageType::kAppend;
  m.to = to;
  m.term = term_;
  m.index = pr.next - 1;
  m.log_term = TermAt(m.index);
  m.commit = commit_;
  size_t bytes = 0;
  for (Index i = pr.next; i <= last_index(); ++i) {
    const Entry& e = log_[i - offset_];
    size_t b = EntryBytes(e);
    if (!m.entries.empty() && bytes + b > config_.max_append_bytes) break;
    m.entries.push_back(e);
    bytes += b;
  }
  // The follower commits up to the last entry it holds once it takes these.
  pr.sent_commit = std::max(pr.sent_commit, std::min(m.commit, m.index + static_cast<Index>(m.entries.size())));
  if (pr.probing) {
    pr.probe_sent = true;
  } else if (!m.entries.empty()) {
    Index last = m.entries.back().index;
    pr.inflight[last] = bytes;
    pr.inflight_bytes += bytes;
    pr.next = last + 1;
  }
  Send(std::move(m));
}

void Raft::SendSnapshot(NodeId to, Progress& pr) {
  Message m;
  m.type = MessageType::kSnapshot;
  m.to = to;
  m.term = term_;
  m.index = offset_;
  m.log_term = TermAt(offset_);
  m.commit = commit_;
  if (const VoterSet& voters = ConfigAt(offset_); !voters.is_static() && !voters.empty()) m.voters = voters.Encode();
  pr.pending_snapshot = offset_;
  pr.probing = true;
  pr.probe_sent = false;
  pr.inflight.clear();
  pr.inflight_bytes = 0;
  Send(std::move(m));
}

void Raft::ReportSnapshot(NodeId to, bool ok) {
  if (role_ != Role::kLeader) return;
  auto it = progress_.find(to);
  if (it == progress_.end() || it->second.pending_snapshot == 0) return;
  Progress& pr = it->second;
  // Probe from just after the snapshot when it landed, else from the match again
  // (which sends the snapshot anew once the follower answers a heartbeat).
  pr.next = ok ? std::max(pr.match, pr.pending_snapshot) + 1 : pr.match + 1;
  pr.pending_snapshot = 0;
  pr.probing = true;
  pr.probe_sent = false;
}

void Raft::HandleSnapshot(const Message& m) {
  Message r;
  r.type = MessageType::kAppendResponse;
  r.to = m.from;
  r.term = term_;
  if (m.index <= commit_) {
    r.index = commit_;  // it holds everything the snapshot covers already
  } else if (TermAt(m.index) == m.log_term) {
    CommitTo(m.index);  // the log holds the snapshot's last entry: keep the log
    r.index = m.index;
  } else {
    // Restore: the log restarts empty after the snapshot, which the driver installs
    // before this answer leaves.
    ABSL_CHECK_LE(applied_, commit_);
    // The configuration as of the snapshot becomes the base: the one it carries (a
    // dynamic quorum's), else the static one.
    VoterSet base = ConfigAt(m.index);
    if (!m.voters.empty()) {
      absl::StatusOr<VoterSet> voters = VoterSet::Decode(m.voters);
      ABSL_CHECK(voters.ok()) << "the transport checks a snapshot's voters: " << voters.status();
      base = *std::move(voters);
    }
    configs_.clear();
    configs_.emplace(m.index, std::move(base));
    base_written_ = !m.voters.empty();
    log_.clear();
    log_.push_back(Entry{m.log_term, m.index, ""});
    offset_ = m.index;
    commit_ = m.index;
    applied_ = m.index;
    stable_ = m.index;
    unstable_from_ = m.index + 1;
    pending_install_ = SnapshotMeta{m.index, m.log_term, m.voters};
    r.index = m.index;
  }
  Send(std::move(r));
}

void Raft::Compact(Index index) {
  if (index <= offset_) return;
  ABSL_CHECK_LE(index, applied_) << "only applied entries can be compacted";
  ABSL_CHECK_LE(index, stable_) << "only persisted entries can be compacted";
  // The configuration as of index becomes the base.
  VoterSet base = ConfigAt(index);
  base_written_ = base_written_ || configs_.upper_bound(offset_) != configs_.upper_bound(index);
  configs_.erase(configs_.begin(), configs_.upper_bound(index));
  configs_.emplace(index, std::move(base));
  log_.erase(log_.begin(), log_.begin() + (index - offset_));
  log_[0].data.clear();  // the sentinel keeps the snapshot's index and term
  log_[0].type = EntryType::kData;
  offset_ = index;
  unstable_from_ = std::max(unstable_from_, index + 1);
}

void Raft::BroadcastAppend() {
  for (const auto& [peer, pr] : progress_) {
    if (peer != config_.id) SendAppend(peer);
  }
}

void Raft::BroadcastHeartbeat() {
  for (const auto& [peer, pr] : progress_) {
    if (peer != config_.id) SendHeartbeat(peer);
  }
}

void Raft::MaybeSendCommit(NodeId to) {
  const Progress& pr = progress_[to];
  if (std::min(pr.match, commit_) > pr.sent_commit) SendHeartbeat(to);
}

void Raft::SendHeartbeat(NodeId to) {
  Progress& pr = progress_[to];
  Message m;
  m.type = MessageType::kHeartbeat;
  m.to = to;
  m.term = term_;
  m.commit = std::min(pr.match, commit_);  // never past what it holds
  pr.sent_commit = std::max(pr.sent_commit, m.commit);
  Send(std::move(m));
}

void Raft::MaybeCommit() {
  // The configuration's voters only: a leader that is not one (it is being removed) does
  // not count its own log (Raft thesis 4.2.2).
  std::vector<Index> matches;
  matches.reserve(config().size());
  for (const auto& [peer, voter] : config().voters()) matches.push_back(progress_[peer].match);
  std::sort(matches.begin(), matches.end(), std::greater<Index>());
  Index candidate = matches[Quorum() - 1];
  // Only entries of the current term commit by counting (Raft paper, section 5.4.2).
  if (candidate > commit_ && TermAt(candidate) == term_) {
    const VoterSet* committed_before = &ConfigAt(commit_);
    CommitTo(candidate);
    bool committed_config_changed = committed_before != &ConfigAt(commit_);
    MaybeFinishVoterChange();
    if (committed_config_changed) SyncProgress();  // a voter committed out is replicated to no more
    // The followers learn the new commit index now, not at the next heartbeat: what they
    // apply (a combined node's broker reads its metadata there) is a round trip behind
    // the leader, whatever the heartbeat interval.
    for (const auto& [peer, pr] : progress_) {
      if (peer != config_.id) MaybeSendCommit(peer);
    }
    // A leader the committed configuration no longer holds steps down (after telling the
    // others the commit); as a non-voter it never campaigns again.
    if (committed_config_changed && !ConfigAt(commit_).Contains(config_.id, config_.directory_id)) {
      BecomeFollower(term_, kNoNode);
    }
  }
}

bool Raft::HasReady() const {
  return pending_install_.index != 0 || hard_state() != persisted_hard_state_ || unstable_from_ <= last_index() ||
         !outbox_.empty() || commit_ > applied_ || !change_results_.empty();
}

Ready Raft::GetReady() {
  Ready rd;
  rd.hard_state = hard_state();
  rd.hard_state_changed = rd.hard_state != persisted_hard_state_;
  rd.snapshot = pending_install_;
  for (Index i = unstable_from_; i <= last_index(); ++i) rd.entries.push_back(log_[i - offset_]);
  rd.messages = std::move(outbox_);
  outbox_.clear();
  for (Index i = applied_ + 1; i <= commit_; ++i) rd.committed_entries.push_back(log_[i - offset_]);
  rd.change_results = std::move(change_results_);
  change_results_.clear();
  return rd;
}

void Raft::Advance(const Ready& rd) {
  if (rd.snapshot.index != 0 && rd.snapshot == pending_install_) pending_install_ = SnapshotMeta{};
  if (rd.hard_state_changed) persisted_hard_state_ = rd.hard_state;
  if (!rd.entries.empty()) {
    Index last = rd.entries.back().index;
    // Entries truncated since GetReady are persisted again by the next Ready.
    if (last <= last_index() && TermAt(last) == rd.entries.back().term) {
      stable_ = std::max(stable_, last);
      unstable_from_ = std::max(unstable_from_, last + 1);
    }
  }
  if (!rd.committed_entries.empty()) applied_ = std::max(applied_, rd.committed_entries.back().index);
  if (role_ == Role::kLeader) {
    Progress& self = progress_[config_.id];
    self.match = std::max(self.match, std::min(stable_, last_index()));
    MaybeCommit();
  }
}

std::map<NodeId, Index> Raft::VoterMatchIndexes() const {
  std::map<NodeId, Index> out;
  if (role_ != Role::kLeader) return out;
  for (NodeId v : config().ids()) {
    auto pr = progress_.find(v);
    out[v] = v == config_.id ? last_index() : (pr == progress_.end() ? 0 : pr->second.match);
  }
  return out;
}

}  // namespace strata::raft
