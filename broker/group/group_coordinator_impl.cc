#include "broker/group/group_coordinator_impl.h"

#include "base/check.h"

namespace strata::broker {

GroupCoordinatorImpl::GroupCoordinatorImpl(GroupCoordinatorOptions options, GroupLog* log) : options_(options),
                                           log_(log), partitions_(options.offsets_topic_partitions) {
  ABSL_CHECK(log_ != nullptr);
  ABSL_CHECK_GT(options_.offsets_topic_partitions, 0);
  {
    absl::MutexLock lock(&mu_);
    AddTimerLocked(Now() + options_.offsets_retention_check_interval_ms, Timer::kRetention, "", "", 0);
  }
  if (options_.start_thread) thread_ = std::thread([this] { Run(); });
}

GroupCoordinatorImpl::~GroupCoordinatorImpl() {
  {
    absl::MutexLock lock(&inbox_->mu);
    inbox_->stopping = true;
  }
  if (thread_.joinable()) thread_.join();
  // Completions still queued answer their requests; writes that complete later find
  // the inbox closed and are dropped (their requests' connections are gone).
  RunCompletions();
  {
    absl::MutexLock lock(&inbox_->mu);
    inbox_->closed = true;
  }
  RunCompletions();
  Deferred d;
  absl::MutexLock lock(&mu_);
  std::vector<int32_t> owned;
  for (const auto& [p, o] : owned_) owned.push_back(p);
  for (int32_t p : owned) UnloadLocked(p, d);
}

std::pair<ErrorCode, std::vector<GroupOverview>> GroupCoordinatorImpl::ListGroups() const {
  absl::MutexLock lock(&mu_);
  ErrorCode e = ErrorCode::kNone;
  for (const auto& [p, o] : owned_) {
    if (!o.loaded) e = ErrorCode::kCoordinatorLoadInProgress;
  }
  std::vector<GroupOverview> out;
  for (const auto& [id, g] : groups_) {
    if (g.state == GroupState::kDead) continue;
    const std::string state = g.type == GroupType::kConsumer ? ConsumerGroupPhaseName(g.consumer.phase())
                              : g.type == GroupType::kShare  ? ShareGroupPhaseName(g.share.phase())
                                                             : GroupStateName(g.state);
    out.push_back({id, g.protocol_type, g.state, g.type, state});
  }
  return {e, out};
}

GroupDescription GroupCoordinatorImpl::DescribeGroup(const std::string& group_id) const {
  absl::MutexLock lock(&mu_);
  GroupDescription out;
  out.group_id = group_id;
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
    out.error = e;
    return out;
  }
  const GroupMetadata* g = FindLocked(group_id);
  if (g == nullptr) return out;  // Dead, as Kafka describes an unknown group
  if (g->type != GroupType::kClassic) {
    out.error = ErrorCode::kGroupIdNotFound;  // ConsumerGroupDescribe describes it (Kafka's answer)
    return out;
  }
  out.state = g->state;
  out.protocol_type = g->protocol_type;
  const bool stable = g->state == GroupState::kStable;
  if (stable) out.protocol_name = g->protocol_name.value_or("");
  for (const MemberMetadata* m : MembersInJoinOrder(*g)) {
    GroupDescription::Member dm{m->member_id, m->group_instance_id, m->client_id, m->client_host, "", ""};
    if (stable) {
      dm.metadata = MetadataFor(*m, g->protocol_name.value_or(""));
      dm.assignment = m->assignment;
    }
    out.members.push_back(std::move(dm));
  }
  return out;
}

CoordinatorStats GroupCoordinatorImpl::stats() const {
  absl::MutexLock lock(&mu_);
  CoordinatorStats s;
  for (GroupState st : {GroupState::kEmpty, GroupState::kPreparingRebalance, GroupState::kCompletingRebalance,
                        GroupState::kStable, GroupState::kDead}) {
    s.groups_by_state[st] = 0;
  }
  for (const char* name : {"Empty", "Assigning", "Reconciling", "Stable"}) s.consumer_groups_by_state[name] = 0;
  for (ShareGroupPhase phase : {ShareGroupPhase::kEmpty, ShareGroupPhase::kStable}) {
    s.share_groups_by_state[ShareGroupPhaseName(phase)] = 0;
  }
  for (const auto& [id, g] : groups_) {
    if (g.type == GroupType::kConsumer) {
      ++s.consumer_groups_by_state[ConsumerGroupPhaseName(g.consumer.phase())];
      s.consumer_group_members += static_cast<int64_t>(g.consumer.members.size());
    } else if (g.type == GroupType::kShare) {
      ++s.share_groups_by_state[ShareGroupPhaseName(g.share.phase())];
      s.share_group_members += static_cast<int64_t>(g.share.members.size());
    } else {
      ++s.groups_by_state[g.state];
    }
  }
  s.consumer_group_rebalances = consumer_rebalances_;
  s.share_group_rebalances = share_rebalances_;
  s.rebalances = rebalances_;
  s.offset_commits = commits_;
  s.offset_commit_requests = commit_requests_;
  s.offsets_expired = offsets_expired_;
  s.partitions_loaded = partitions_loaded_;
  s.load_time_ms_total = load_time_ms_total_;
  s.last_load_time_ms = last_load_time_ms_;
  s.commit_latency_us.assign(commit_latency_us_.begin(), commit_latency_us_.end());
  return s;
}

}  // namespace strata::broker
