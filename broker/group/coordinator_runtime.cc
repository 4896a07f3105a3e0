// GroupCoordinatorImpl's runtime (group_coordinator_impl.h): the thread, the timers it
// fires, the groups' lookup, and the writes to __consumer_offsets whose completions run
// on the thread.
#include <algorithm>

#include "base/check.h"
#include "base/logging.h"
#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {

ErrorCode ClientErrorOfWrite(ErrorCode e, bool commit) {
  switch (e) {
    case ErrorCode::kNone:
      return e;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kFencedLeaderEpoch:
      return ErrorCode::kNotCoordinator;
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kNotEnoughReplicasAfterAppend:
    case ErrorCode::kRequestTimedOut:
    case ErrorCode::kCoordinatorNotAvailable:
      return ErrorCode::kCoordinatorNotAvailable;
    case ErrorCode::kMessageTooLarge:
    case ErrorCode::kRecordListTooLarge:
      return commit ? ErrorCode::kInvalidCommitOffsetSize : ErrorCode::kUnknownServerError;
    default:
      return ErrorCode::kUnknownServerError;
  }
}

void GroupCoordinatorImpl::RunDueTimers() {
  RunCompletions();
  RunLoads();
  log_->Poll();
  Deferred d;
  absl::MutexLock lock(&mu_);
  const int64_t now = Now();
  while (!timers_.empty() && timers_.begin()->first <= now) {
    Timer t = timers_.begin()->second;
    timers_.erase(timers_.begin());
    FireLocked(t, now, d);
  }
}

// The coordinator for group_id is here and loaded: NONE, else why not.
ErrorCode GroupCoordinatorImpl::ReachLocked(const std::string& group_id) const {
  auto it = owned_.find(OffsetsPartitionFor(group_id, partitions_.load()));
  if (it == owned_.end()) return ErrorCode::kNotCoordinator;
  if (!it->second.loaded) return ErrorCode::kCoordinatorLoadInProgress;
  return ErrorCode::kNone;
}

GroupMetadata* GroupCoordinatorImpl::FindLocked(const std::string& id) {
  auto it = groups_.find(id);
  return it == groups_.end() ? nullptr : &it->second;
}

const GroupMetadata* GroupCoordinatorImpl::FindLocked(const std::string& id) const {
  auto it = groups_.find(id);
  return it == groups_.end() ? nullptr : &it->second;
}

GroupMetadata& GroupCoordinatorImpl::CreateGroupLocked(const std::string& id) {
  GroupMetadata& g = groups_[id];
  g.group_id = id;
  g.partition = OffsetsPartitionFor(id, partitions_.load());
  g.state_timestamp_ms = Now();
  return g;
}

void GroupCoordinatorImpl::FireLocked(const Timer& t, int64_t now, Deferred& d) {
  if (t.kind == Timer::kRetention) {
    ExpireOffsetsLocked(now);
    AddTimerLocked(now + options_.offsets_retention_check_interval_ms, Timer::kRetention, "", "", 0);
    return;
  }
  if (t.kind == Timer::kLoadRetry) {
    int32_t p = std::stoi(t.group_id);
    auto it = owned_.find(p);
    if (it != owned_.end() && !it->second.loaded && it->second.epoch == static_cast<int32_t>(t.seq)) {
      loads_.push_back({p, it->second.epoch});
      Poke();
    }
    return;
  }
  GroupMetadata* g = FindLocked(t.group_id);
  if (g == nullptr) return;
  switch (t.kind) {
    case Timer::kHeartbeat: {
      auto it = g->members.find(t.member_id);
      if (it == g->members.end() || it->second.heartbeat_deadline_ms > now || ShouldKeepAlive(it->second, now)) return;
      spdlog::info("group coordinator: member {} of group {} sent no heartbeat for {} ms; removed", t.member_id,
                   g->group_id, it->second.session_timeout_ms);
      RemoveMemberLocked(*g, t.member_id, "a session expired", d);
      return;
    }
    case Timer::kPendingMember:
      if (g->pending_members.erase(t.member_id) > 0) MaybeCompleteJoinLocked(*g, d);
      return;
    case Timer::kJoin:
      if (g->state == GroupState::kPreparingRebalance && g->join_timer == t.seq) OnJoinDeadlineLocked(*g, d);
      return;
    case Timer::kSync: {
      if (g->state != GroupState::kCompletingRebalance || g->generation_id != static_cast<int32_t>(t.seq) ||
          g->assignment_write_pending) {
        return;
      }
      std::vector<std::string> silent;
      for (const auto& [id, m] : g->members) {
        if (!m.awaiting_sync) silent.push_back(id);
      }
      for (const std::string& id : silent) {
        spdlog::info("group coordinator: member {} of group {} did not sync in time; removed", id, g->group_id);
        EraseMemberLocked(*g, id, d);
      }
      if (g->state == GroupState::kCompletingRebalance) {
        PrepareRebalanceLocked(*g, "members did not sync within the rebalance timeout", d);
      }
      return;
    }
    case Timer::kConsumerSession:
    case Timer::kConsumerRevocation:
      FireConsumerTimerLocked(t, *g, now, d);
      return;
    case Timer::kShareSession:
      FireShareTimerLocked(t, *g, now, d);
      return;
    case Timer::kRetention:
    case Timer::kLoadRetry:
      return;
  }
}

// Writes records to g's partition; on_done runs under mu_ once they are committed or
// failed (NOT_COORDINATOR when the partition was dropped or reloaded meanwhile).
void GroupCoordinatorImpl::WriteLocked(const GroupMetadata& g, std::vector<GroupLogRecord> records, WriteDone on_done) {
  const int32_t p = g.partition;
  auto it = owned_.find(p);
  ABSL_CHECK(it != owned_.end() && it->second.loaded) << "a write for group " << g.group_id << " of an unloaded partition";
  const int32_t epoch = it->second.epoch;
  auto done = std::make_shared<WriteDone>(std::move(on_done));
  log_->Append(p, epoch, std::move(records), [this, inbox = inbox_, p, epoch, done](ErrorCode e) {
    PushCompletion(*inbox, [this, p, epoch, done, e] {
      Deferred d;
      absl::MutexLock lock(&mu_);
      auto it = owned_.find(p);
      ErrorCode outcome = e;
      if (it == owned_.end() || it->second.epoch != epoch || !it->second.loaded) outcome = ErrorCode::kNotCoordinator;
      (*done)(outcome, d);
    });
  });
}

void GroupCoordinatorImpl::PushCompletion(Inbox& inbox, std::function<void()> f) {
  absl::MutexLock lock(&inbox.mu);
  if (inbox.closed) return;
  inbox.completions.push_back(std::move(f));
  inbox.poked = true;
}

void GroupCoordinatorImpl::Poke() {
  absl::MutexLock lock(&inbox_->mu);
  inbox_->poked = true;
}

void GroupCoordinatorImpl::AddTimerLocked(int64_t at, Timer::Kind kind, const std::string& group_id,
                                          const std::string& member_id, uint64_t seq) {
  timers_.emplace(at, Timer{kind, group_id, member_id, seq});
  if (at < planned_wake_ms_.load()) Poke();
}

void GroupCoordinatorImpl::RunCompletions() {
  std::deque<std::function<void()>> todo;
  {
    absl::MutexLock lock(&inbox_->mu);
    todo.swap(inbox_->completions);
  }
  for (auto& f : todo) f();
}

void GroupCoordinatorImpl::Run() {
  while (true) {
    int64_t wait_ms = kPollMs;
    {
      absl::MutexLock lock(&mu_);
      if (!timers_.empty()) wait_ms = std::clamp<int64_t>(timers_.begin()->first - Now(), 0, kPollMs);
      planned_wake_ms_.store(Now() + wait_ms);
    }
    {
      Inbox& inbox = *inbox_;
      absl::MutexLock lock(&inbox.mu);
      inbox.mu.AwaitWithTimeout(absl::Condition(
                                    +[](Inbox* in) ABSL_EXCLUSIVE_LOCKS_REQUIRED(in->mu) {
                                      return in->stopping || in->poked;
                                    },
                                    &inbox),
                                absl::Milliseconds(wait_ms));
      if (inbox.stopping) return;
      inbox.poked = false;
    }
    RunDueTimers();
  }
}

}  // namespace strata::broker
