#include "raft/raft_node.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::raft {

namespace {
constexpr int kFilesCheckTicks = 100;  // ticks between checks that the log's files exist
}  // namespace

absl::StatusOr<std::unique_ptr<RaftNode>> RaftNode::Start(RaftNodeOptions options) {
  ABSL_CHECK(options.transport != nullptr);
  ABSL_CHECK(options.state_machine != nullptr);
  if (options.config.bootstrap && !options.config.voters.empty()) {
    return storage::MakeError(storage::Errc::kInvalidConfig,
                              "a quorum is static (controller.quorum.voters) or dynamic (bootstrap voters), not both");
  }
  if (options.segment_bytes < options.max_entry_bytes + kEntryOverheadBytes) {
    return storage::MakeError(storage::Errc::kInvalidConfig,
                              absl::StrCat("metadata.log.segment.bytes (", options.segment_bytes,
                                           ") must be at least the largest entry (", options.max_entry_bytes,
                                           ") plus ", kEntryOverheadBytes));
  }
  std::unique_ptr<RaftNode> node(new RaftNode(std::move(options)));
  const RaftNodeOptions& o = node->options_;
  STRATA_ASSIGN_OR_RETURN(node->snapshots_,
                          SnapshotStore::Open(*o.ops, storage::JoinPath(o.metadata_log_dir, kSnapshotsDirName)));
  SnapshotMeta snapshot = node->snapshots_->Latest().value_or(SnapshotMeta{});
  if (snapshot.index > 0) {
    STRATA_RETURN_IF_ERROR(o.state_machine->RestoreSnapshot(*o.ops, node->snapshots_->PathOf(snapshot), snapshot));
  }
  STRATA_ASSIGN_OR_RETURN(node->storage_, RaftStorage::Open(*o.ops, o.metadata_log_dir, snapshot, o.segment_bytes));
  STRATA_ASSIGN_OR_RETURN(auto entries, node->storage_->ReadEntries(snapshot.index));
  node->raft_ = std::make_unique<Raft>(o.config, node->storage_->hard_state(), snapshot, std::move(entries));
  node->MaybeReportMembership();  // before the driver thread starts
  {
    absl::MutexLock lock(&node->mu_);  // not shared yet
    node->status_.snapshot_index = snapshot.index;
  }
  node->thread_ = std::thread([n = node.get()] { n->Run(); });
  return node;
}

RaftNode::~RaftNode() { Stop(); }

void RaftNode::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  MarkStoppedLocked("node stopped");
}

void RaftNode::MarkStoppedLocked(absl::string_view why) {
  status_.stopped = true;
  status_.role = Role::kFollower;  // it takes no part any more
  status_.leader = kNoNode;
  for (auto& [index, p] : pending_) {
    p->done = true;
    p->result = absl::UnavailableError(why);
  }
  pending_.clear();
  auto stopped = [&](std::shared_ptr<ChangeRequest>& c) {
    c->done = true;
    c->result = VoterChangeResult{0, VoterChangeError::kLeadershipLost, std::string(why)};
  };
  for (auto& [id, c] : pending_changes_) stopped(c);
  for (auto& c : change_requests_) stopped(c);
  pending_changes_.clear();
  change_requests_.clear();
}

absl::Status RaftNode::Close() {
  Stop();
  if (!storage_) return absl::OkStatus();
  absl::Status s = storage_->Close();  // readers see a closed log from now on
  return s;
}

void RaftNode::Fail(const absl::Status& why) {
  spdlog::error("node {}: metadata log failure, stopping: {}", options_.config.id, why.ToString());
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    MarkStoppedLocked("node stopped on a metadata log failure");
  }
  if (options_.on_fatal) options_.on_fatal(why);
}

void RaftNode::Receive(Message message) {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ || inbox_.size() >= 100'000) return;  // bounded: drop, Raft retries
    inbox_.push_back(std::move(message));
  }
}

void RaftNode::ReportSnapshot(NodeId to, bool ok) {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    snapshot_reports_.emplace_back(to, ok);
  }
}

absl::StatusOr<Index> RaftNode::Propose(std::string data, std::chrono::milliseconds timeout) {
  if (static_cast<int64_t>(data.size()) > options_.max_entry_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("entry of ", data.size(), " bytes exceeds the limit of ",
                                                   options_.max_entry_bytes));
  }
  auto proposal = std::make_shared<Proposal>();
  proposal->data = std::move(data);
  absl::MutexLock lock(&mu_);
  if (stopping_ || status_.stopped) return absl::UnavailableError("node stopped");
  proposals_.push_back(proposal);
  auto done = [&] { return proposal->done; };
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), absl::FromChrono(timeout))) {
    return absl::DeadlineExceededError(absl::StrCat("proposal not applied within ", timeout.count(), " ms"));
  }
  if (!proposal->result.ok()) return proposal->result;
  return proposal->index;
}

VoterChangeResult RaftNode::ChangeVoters(VoterChange change, std::chrono::milliseconds timeout) {
  change.timeout_ticks = std::max<int>(1, static_cast<int>(timeout / options_.tick_interval));
  auto request = std::make_shared<ChangeRequest>();
  request->change = std::move(change);
  absl::MutexLock lock(&mu_);
  if (stopping_ || status_.stopped) return VoterChangeResult{0, VoterChangeError::kNotLeader, "node stopped"};
  change_requests_.push_back(request);
  auto done = [&] { return request->done; };
  // The core gives up at its deadline; the slack covers a driver slowed by I/O.
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), absl::FromChrono(timeout) + absl::Seconds(1))) {
    return VoterChangeResult{0, VoterChangeError::kTimedOut,
                             absl::StrCat("no outcome within ", timeout.count(), " ms; the change may still happen")};
  }
  return request->result;
}

void RaftNode::FinishChanges(const std::vector<VoterChangeResult>& results) {
  absl::MutexLock lock(&mu_);
  for (const VoterChangeResult& result : results) {
    auto it = pending_changes_.find(result.id);
    if (it == pending_changes_.end()) continue;
    it->second->done = true;
    it->second->result = result;
    pending_changes_.erase(it);
    if (result.ok()) ++status_.voter_changes;
  }
}

void RaftNode::MaybeReportMembership() {
  const Voter* learner = raft_->LearnerVoter();
  Membership now{raft_->config(), learner ? std::optional<Voter>(*learner) : std::nullopt};
  if (membership_ == now) return;
  membership_ = now;
  {
    absl::MutexLock lock(&mu_);
    status_.configuration = now.voters;
    status_.kraft_version = now.voters.kraft_version();
  }
  if (!now.voters.is_static()) {
    spdlog::info("node {}: voters {}{}", options_.config.id, now.voters.DebugString(),
                 learner ? absl::StrCat("; catching up: ", learner->id) : "");
  }
  if (options_.on_membership) options_.on_membership(now);
}

RaftNodeStatus RaftNode::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

absl::StatusOr<std::vector<Entry>> RaftNode::ReadCommitted(Index from, size_t max_bytes) const {
  Index commit;
  {
    absl::MutexLock lock(&mu_);
    if (status_.stopped) return absl::UnavailableError("node stopped");
    commit = status_.commit;
  }
  if (from > commit) return std::vector<Entry>{};
  return storage_->ReadFrom(from, commit, max_bytes);
}

Index RaftNode::WaitForCommit(Index index, std::chrono::milliseconds timeout) const {
  absl::MutexLock lock(&mu_);
  auto passed = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return status_.stopped || status_.commit > index; };
  mu_.AwaitWithTimeout(absl::Condition(&passed), absl::FromChrono(timeout));
  return status_.commit;
}

void RaftNode::Run() {
  auto next_tick = std::chrono::steady_clock::now() + options_.tick_interval;
  int ticks_to_files_check = kFilesCheckTicks;
  while (true) {
    std::deque<Message> messages;
    std::deque<std::shared_ptr<Proposal>> proposals;
    std::deque<std::pair<NodeId, bool>> reports;
    std::deque<std::shared_ptr<ChangeRequest>> changes;
    {
      absl::MutexLock lock(&mu_);
      auto has_work = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return stopping_ || !inbox_.empty() || !proposals_.empty() || !snapshot_reports_.empty() ||
               !change_requests_.empty();
      };
      mu_.AwaitWithTimeout(absl::Condition(&has_work),
                           absl::FromChrono(next_tick - std::chrono::steady_clock::now()));
      if (stopping_) return;
      messages.swap(inbox_);
      proposals.swap(proposals_);
      reports.swap(snapshot_reports_);
      changes.swap(change_requests_);
    }
    for (const Message& m : messages) {
      // A snapshot is stepped only once its files are here (the transport put them).
      if (m.type == MessageType::kSnapshot && !snapshots_->Has({m.index, m.log_term})) continue;
      raft_->Step(m);
      bool answer = m.type == MessageType::kAppendResponse || m.type == MessageType::kHeartbeatResponse;
      if (answer && raft_->role() == Role::kLeader && m.term == raft_->term()) {
        ForgetVoterTimesOfOldTerms();
        last_answer_unix_ms_[m.from] = absl::ToUnixMillis(absl::Now());
      }
    }
    for (const auto& [to, ok] : reports) raft_->ReportSnapshot(to, ok);
    for (auto& p : proposals) {
      absl::Status s = raft_->Propose(p->data);
      absl::MutexLock lock(&mu_);
      if (!s.ok()) {
        p->done = true;
        p->result = s;
      } else {
        p->index = raft_->last_index();
        p->term = raft_->term();
        pending_[p->index] = p;
      }
    }
    for (auto& c : changes) {
      VoterChangeResult started = raft_->ProposeVoterChange(c->change);
      absl::MutexLock lock(&mu_);
      if (!started.ok()) {
        c->done = true;
        c->result = std::move(started);
      } else {
        pending_changes_[started.id] = c;
      }
    }
    if (std::chrono::steady_clock::now() >= next_tick) {
      raft_->Tick();
      next_tick += options_.tick_interval;
      if (next_tick < std::chrono::steady_clock::now()) next_tick = std::chrono::steady_clock::now() + options_.tick_interval;
      if (--ticks_to_files_check == 0) {
        ticks_to_files_check = kFilesCheckTicks;
        if (absl::Status present = storage_->CheckFilesPresent(); !present.ok()) {
          Fail(present);
          return;
        }
      }
    }
    if (!HandleReady()) return;
  }
}

absl::Status RaftNode::InstallSnapshot(const SnapshotMeta& meta) {
  // Kept on disk while it is read, whatever a transfer seals meanwhile.
  std::unique_ptr<SnapshotStore::Pin> pin = snapshots_->PinSnapshot(meta);
  ABSL_CHECK(pin != nullptr) << "a snapshot is stepped only when its files are here";
  STRATA_RETURN_IF_ERROR(options_.state_machine->RestoreSnapshot(*options_.ops, snapshots_->PathOf(meta), meta));
  STRATA_RETURN_IF_ERROR(storage_->ResetTo(meta));
  bytes_since_snapshot_ = 0;
  spdlog::info("node {}: installed snapshot at index {} (term {})", options_.config.id, meta.index, meta.term);
  absl::MutexLock lock(&mu_);
  ++status_.snapshots_installed;
  status_.snapshot_index = meta.index;
  // Proposals up to the snapshot never show up as applied entries here.
  for (auto it = pending_.begin(); it != pending_.end() && it->first <= meta.index;) {
    it->second->done = true;
    it->second->result = absl::UnavailableError("superseded by a snapshot from the new leader; outcome unknown");
    it = pending_.erase(it);
  }
  return absl::OkStatus();
}

absl::Status RaftNode::MaybeTakeSnapshot() {
  Index applied = raft_->applied_index();
  if (bytes_since_snapshot_ < options_.snapshot_bytes || applied <= raft_->snapshot().index) return absl::OkStatus();
  // A dynamic quorum's snapshot holds the voters as of its index.
  const VoterSet& voters = raft_->ConfigAt(applied);
  SnapshotMeta meta{applied, raft_->TermAt(applied), voters.is_static() || voters.empty() ? "" : voters.Encode()};
  std::optional<SnapshotMeta> previous = snapshots_->Latest();
  STRATA_ASSIGN_OR_RETURN(PartialSnapshot partial, snapshots_->BeginPartial(meta));
  absl::Status saved = options_.state_machine->SaveSnapshot(*options_.ops, partial.path);
  if (!saved.ok()) {
    snapshots_->AbortPartial(partial);
    return saved;
  }
  STRATA_RETURN_IF_ERROR(snapshots_->Seal(partial));
  // The log keeps the entries since the previous snapshot, so a follower less than one
  // snapshot interval behind catches up from the log rather than by a snapshot.
  if (previous && previous->index > raft_->snapshot().index && previous->index < applied) {
    raft_->Compact(previous->index);
    STRATA_RETURN_IF_ERROR(storage_->CompactTo(previous->index));
  }
  bytes_since_snapshot_ = 0;
  spdlog::info("node {}: snapshot at index {} (term {}); the log starts at entry {}", options_.config.id, meta.index,
               meta.term, storage_->first_index());
  absl::MutexLock lock(&mu_);
  ++status_.snapshots_taken;
  status_.snapshot_index = meta.index;
  return absl::OkStatus();
}

bool RaftNode::HandleReady() {
  while (raft_->HasReady()) {
    Ready rd = raft_->GetReady();
    absl::Status saved = rd.snapshot.index != 0 ? InstallSnapshot(rd.snapshot) : absl::OkStatus();
    if (saved.ok()) saved = storage_->Save(rd);
    if (!saved.ok()) {
      Fail(saved);
      return false;
    }
    for (const Message& m : rd.messages) {
      if (m.type == MessageType::kSnapshot) {
        options_.transport->SendSnapshot(m, *snapshots_, [this, to = m.to](bool ok) { ReportSnapshot(to, ok); });
      } else {
        options_.transport->Send(m);
      }
    }
    for (const Entry& e : rd.committed_entries) {
      if (absl::Status applied = options_.state_machine->Apply(e); !applied.ok()) {
        Fail(applied);
        return false;
      }
      bytes_since_snapshot_ += static_cast<int64_t>(e.data.size());
    }
    raft_->Advance(rd);
    FinishChanges(rd.change_results);
    absl::MutexLock lock(&mu_);
    for (const Entry& e : rd.committed_entries) {
      auto it = pending_.find(e.index);
      if (it == pending_.end()) continue;
      it->second->done = true;
      if (e.term != it->second->term) {
        it->second->result = absl::UnavailableError("the proposal was replaced by a new leader's entry; retry");
      }
      pending_.erase(it);
    }
  }
  if (absl::Status s = MaybeTakeSnapshot(); !s.ok()) {
    Fail(s);
    return false;
  }
  MaybeReportMembership();
  std::vector<RaftNodeStatus::VoterState> voters = VoterStates();
  absl::MutexLock lock(&mu_);
  status_.voters = std::move(voters);
  status_.learner = raft_->learner();
  const Voter* learner = raft_->LearnerVoter();
  status_.learner_directory_id = learner != nullptr ? learner->directory_id : std::string();
  status_.learner_match = raft_->LearnerMatchIndex();
  if (raft_->leader() != status_.leader || raft_->term() != status_.term) {
    spdlog::info("node {}: term {}, leader {} ({})", options_.config.id, raft_->term(), raft_->leader(),
                 RoleName(raft_->role()));
  }
  status_.leader = raft_->leader();
  status_.term = raft_->term();
  status_.role = raft_->role();
  status_.commit = raft_->commit_index();
  status_.applied = raft_->applied_index();
  status_.elections = raft_->elections_started();
  return true;
}

void RaftNode::ForgetVoterTimesOfOldTerms() {
  if (voters_term_ == raft_->term()) return;
  voters_term_ = raft_->term();
  last_answer_unix_ms_.clear();
  caught_up_unix_ms_.clear();
}

std::vector<RaftNodeStatus::VoterState> RaftNode::VoterStates() {
  std::vector<RaftNodeStatus::VoterState> out;
  if (raft_->role() != Role::kLeader) return out;
  ForgetVoterTimesOfOldTerms();
  int64_t now = absl::ToUnixMillis(absl::Now());
  for (const auto& [id, match] : raft_->VoterMatchIndexes()) {
    RaftNodeStatus::VoterState& v = out.emplace_back();
    v.id = id;
    v.match = match;
    if (id == options_.config.id) {
      v.last_caught_up_unix_ms = now;
      continue;
    }
    // Caught up as of its last answer: a voter that went silent is not caught up now
    // just because nothing was appended since.
    auto answered = last_answer_unix_ms_.find(id);
    if (answered != last_answer_unix_ms_.end()) {
      v.last_fetch_unix_ms = answered->second;
      if (match >= raft_->last_index()) caught_up_unix_ms_[id] = answered->second;
    }
    auto caught_up = caught_up_unix_ms_.find(id);
    if (caught_up != caught_up_unix_ms_.end()) v.last_caught_up_unix_ms = caught_up->second;
  }
  return out;
}

}  // namespace strata::raft
