#include "raft/observer.h"

#include <grpcpp/grpcpp.h>

#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "raft.grpc.pb.h"
#include "raft/log_entry_proto.h"
#include "raft/snapshot_transfer.h"

namespace strata::raft {

namespace pb = strata::raft::v1;

absl::StatusOr<std::unique_ptr<RaftObserver>> RaftObserver::Start(RaftObserverOptions options) {
  ABSL_CHECK(options.state_machine != nullptr);
  ABSL_CHECK(!options.voters.empty());
  std::unique_ptr<RaftObserver> observer(new RaftObserver(std::move(options)));
  STRATA_ASSIGN_OR_RETURN(observer->snapshots_,
                          SnapshotStore::Open(*storage::FileOps::Default(),
                                              storage::JoinPath(observer->options_.dir, kSnapshotsDirName)));
  Index applied = observer->options_.applied;
  {
    absl::MutexLock lock(&observer->mu_);  // not shared yet
    observer->applied_ = applied;
  }
  if (observer->options_.persist_log) {
    SnapshotMeta latest = observer->snapshots_->Latest().value_or(SnapshotMeta{});
    STRATA_ASSIGN_OR_RETURN(observer->log_,
                            RaftStorage::Open(*storage::FileOps::Default(), observer->options_.dir, latest));
    if (observer->log_->last_index() < applied) {
      // The state machine is ahead of the local log (it was restored from elsewhere):
      // restart the log after it.
      STRATA_RETURN_IF_ERROR(observer->log_->ResetTo(SnapshotMeta{applied, 0}));
    }
  }
  observer->thread_ = std::thread([o = observer.get()] { o->Run(); });
  observer->watchdog_ = std::thread([o = observer.get()] { o->Watch(); });
  return observer;
}

RaftObserver::~RaftObserver() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (active_context_) static_cast<grpc::ClientContext*>(active_context_.get())->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
  if (watchdog_.joinable()) watchdog_.join();
}

Index RaftObserver::applied() const {
  absl::MutexLock lock(&mu_);
  return applied_;
}

Index RaftObserver::commit_seen() const {
  absl::MutexLock lock(&mu_);
  return commit_seen_;
}

absl::Status RaftObserver::Persist(const std::vector<Entry>& entries) {
  Ready ready;
  ready.entries = entries;
  // Entries the log holds already (after a restart) are rewritten with the same content.
  if (ready.entries.front().index > log_->last_index() + 1) {
    STRATA_RETURN_IF_ERROR(log_->ResetTo(SnapshotMeta{ready.entries.front().index - 1, 0}));
  }
  STRATA_RETURN_IF_ERROR(log_->Save(ready));
  Index applied_after = entries.back().index;
  if (applied_after - log_->first_index() + 1 > 2 * options_.keep_entries) {
    STRATA_RETURN_IF_ERROR(log_->CompactTo(applied_after - options_.keep_entries));
  }
  return absl::OkStatus();
}

bool RaftObserver::failed() const {
  absl::MutexLock lock(&mu_);
  return failed_;
}

int64_t RaftObserver::snapshots_restored() const {
  absl::MutexLock lock(&mu_);
  return snapshots_restored_;
}

int64_t RaftObserver::stalls() const {
  absl::MutexLock lock(&mu_);
  return stalls_;
}

NodeId RaftObserver::streaming_from() const {
  absl::MutexLock lock(&mu_);
  return streaming_from_;
}

bool RaftObserver::WaitForApplied(Index index, std::chrono::milliseconds timeout) const {
  absl::MutexLock lock(&mu_);
  auto reached = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return applied_ >= index; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::FromChrono(timeout));
}

bool RaftObserver::IsVoter(NodeId id) const {
  absl::MutexLock lock(&mu_);
  for (const ObservedVoter& v : voters_) {
    if (v.id == id) return true;
  }
  return false;
}

void RaftObserver::SetVoters(std::vector<ObservedVoter> voters) {
  ABSL_CHECK(!voters.empty());
  absl::MutexLock lock(&mu_);
  voters_ = std::move(voters);
}

void RaftObserver::Run() {
  size_t next_voter = 0;
  bool following_named_leader = false;  // this voter was chosen as the leader named
  while (true) {
    std::vector<ObservedVoter> voters;
    {
      absl::MutexLock lock(&mu_);
      voters = voters_;
    }
    const ObservedVoter voter = voters[next_voter++ % voters.size()];
    bool fatal = false;
    bool to_leader = false;
    NodeId leader = kNoNode;
    auto now = std::chrono::steady_clock::now();
    for (auto it = avoid_until_.begin(); it != avoid_until_.end();) {
      it = it->second <= now ? avoid_until_.erase(it) : std::next(it);
    }
    absl::Status ended = Follow(voter, &fatal, &leader, &to_leader);
    if (fatal) {
      spdlog::error("observer: metadata state failed, stopping: {}", ended.ToString());
      {
        absl::MutexLock lock(&mu_);
        failed_ = true;
      }
      if (options_.on_fatal) options_.on_fatal(ended);
      return;
    }
    if (following_named_leader && !to_leader) {
      avoid_until_[voter.id] = std::chrono::steady_clock::now() + kAvoidFailedLeaderFor;
    }
    following_named_leader = false;
    bool avoided = avoid_until_.count(leader) > 0;
    for (size_t i = 0; i < voters.size(); ++i) {
      if (leader != kNoNode && leader != voter.id && !avoided && voters[i].id == leader) {
        next_voter = i;
        following_named_leader = true;
      }
    }
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    spdlog::debug("observer: stream from voter {} ({}) ended: {}", voter.id, voter.address, ended.ToString());
    if (to_leader) continue;  // no pause: the leader is up, as far as anyone knows
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(options_.retry_backoff));
    if (stopping_) return;
  }
}

void RaftObserver::Watch() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(options_.stall_timeout / 4));
    if (stopping_ || !active_context_ || stalled_) continue;
    if (std::chrono::steady_clock::now() - last_progress_ < options_.stall_timeout) continue;
    stalled_ = true;
    ++stalls_;
    static_cast<grpc::ClientContext*>(active_context_.get())->TryCancel();
  }
}

absl::Status RaftObserver::Follow(const ObservedVoter& voter, bool* fatal, NodeId* leader, bool* to_leader) {
  const std::string& address = voter.address;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  auto stub = pb::RaftTransport::NewStub(grpc::CreateCustomChannel(
      address, options_.credentials != nullptr ? options_.credentials : grpc::InsecureChannelCredentials(), args));
  auto context = std::make_shared<grpc::ClientContext>();
  pb::ObserveRequest request;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::CancelledError("stopping");
    active_context_ = context;
    streaming_from_ = voter.id;
    last_progress_ = std::chrono::steady_clock::now();
    stalled_ = false;
    request.set_from_index(applied_ + 1);
    request.set_cluster_id(options_.cluster_id);
  }
  // Since when the voter has named no leader (nullopt: it named one last).
  std::optional<std::chrono::steady_clock::time_point> leaderless_since;
  auto reader = stub->Observe(context.get(), request);
  std::unique_ptr<SnapshotReceiver> receiver;
  pb::ObserveResponse response;
  absl::Status result = absl::OkStatus();
  while (result.ok() && reader->Read(&response)) {
    auto now = std::chrono::steady_clock::now();
    {
      absl::MutexLock lock(&mu_);
      last_progress_ = now;
    }
    if (response.leader_id() != kNoNode) {
      *leader = response.leader_id();
      leaderless_since.reset();
    } else if (!leaderless_since) {
      leaderless_since = now;
    } else if (now - *leaderless_since >= options_.stall_timeout) {
      *leader = kNoNode;
      result = absl::UnavailableError(absl::StrCat("voter ", voter.id, " at ", address, " has known no leader for ",
                                                   options_.stall_timeout.count(), " ms"));
      absl::MutexLock lock(&mu_);
      ++stalls_;
      break;
    }
    if (response.has_snapshot_chunk()) {
      if (!receiver) receiver = std::make_unique<SnapshotReceiver>(*snapshots_);
      result = receiver->Accept(response.snapshot_chunk());
      if (result.ok() && receiver->sealed()) {
        SnapshotMeta meta = receiver->meta();
        result = options_.state_machine->RestoreSnapshot(*storage::FileOps::Default(), snapshots_->PathOf(meta), meta);
        if (result.ok() && log_) result = log_->ResetTo(meta);
        *fatal = !result.ok();
        receiver.reset();
        if (result.ok()) {
          absl::MutexLock lock(&mu_);
          applied_ = meta.index;
          ++snapshots_restored_;
        }
      }
      continue;
    }
    std::vector<Entry> fresh;
    for (const pb::LogEntry& e : response.entries()) {
      Index expected = (fresh.empty() ? this->applied() : fresh.back().index) + 1;
      if (e.index() < expected) continue;  // already here
      if (e.index() != expected) {
        result = absl::DataLossError(absl::StrCat("observer: entry ", e.index(), " follows ", expected - 1));
        break;
      }
      if (!PlausibleEntryType(e.type())) {
        result = absl::DataLossError(absl::StrCat("observer: entry ", e.index(), " has unknown type ", e.type()));
        break;
      }
      fresh.push_back(EntryFromProto(e));
    }
    if (result.ok() && log_ && !fresh.empty()) {
      result = Persist(fresh);  // durable here before it is applied
      *fatal = !result.ok();
    }
    for (const Entry& e : fresh) {
      if (!result.ok()) break;
      result = options_.state_machine->Apply(e);
      if (!result.ok()) {
        *fatal = true;
        break;
      }
      absl::MutexLock lock(&mu_);
      applied_ = e.index;
    }
    {
      absl::MutexLock lock(&mu_);
      commit_seen_ = std::max(commit_seen_, response.commit_index());
      last_progress_ = std::chrono::steady_clock::now();  // applying is not stalling
    }
    if (result.ok() && !receiver && response.leader_id() != kNoNode && response.leader_id() != voter.id &&
        IsVoter(response.leader_id()) && avoid_until_.count(response.leader_id()) == 0) {
      *to_leader = true;  // what this response carried is applied; the rest from the leader
      result = absl::AbortedError(absl::StrCat("voter ", voter.id, " names voter ", response.leader_id(),
                                               " as leader: following the leader"));
      break;
    }
  }
  if (!result.ok()) context->TryCancel();
  grpc::Status status = reader->Finish();
  bool stalled;
  {
    absl::MutexLock lock(&mu_);
    active_context_.reset();
    streaming_from_ = kNoNode;
    stalled = stalled_;
  }
  if (!result.ok()) return result;
  if (stalled) {
    *leader = kNoNode;  // the voter may be the one cut off: try the others
    return absl::UnavailableError(absl::StrCat("voter ", voter.id, " at ", address, " sent nothing for ",
                                               options_.stall_timeout.count(), " ms"));
  }
  return absl::UnavailableError(absl::StrCat(address, ": ", status.error_message()));
}

}  // namespace strata::raft
