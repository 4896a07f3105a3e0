#include "broker/group/group_coordinator.h"

#include "absl/strings/match.h"
#include "base/check.h"
#include "broker/group/coordinator_impl.h"

namespace strata::broker {

const char* GroupStateName(GroupState state) {
  switch (state) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Unknown";
}

std::optional<GroupState> ParseGroupState(absl::string_view name) {
  for (GroupState s : {GroupState::kEmpty, GroupState::kPreparingRebalance, GroupState::kCompletingRebalance,
                       GroupState::kStable, GroupState::kDead}) {
    if (absl::EqualsIgnoreCase(name, GroupStateName(s))) return s;
  }
  return std::nullopt;
}

GroupCoordinator::Impl::Impl(GroupCoordinatorOptions options, GroupLog* log)
    : options_(options), log_(log), partitions_(options.offsets_topic_partitions) {
  ABSL_CHECK(log_ != nullptr);
  ABSL_CHECK_GT(options_.offsets_topic_partitions, 0);
  {
    absl::MutexLock lock(&mu_);
    AddTimerLocked(Now() + options_.offsets_retention_check_interval_ms, Timer::kRetention, "", "", 0);
  }
  if (options_.start_thread) thread_ = std::thread([this] { Run(); });
}

GroupCoordinator::Impl::~Impl() {
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

std::pair<ErrorCode, std::vector<GroupOverview>> GroupCoordinator::Impl::ListGroups() const {
  absl::MutexLock lock(&mu_);
  ErrorCode e = ErrorCode::kNone;
  for (const auto& [p, o] : owned_) {
    if (!o.loaded) e = ErrorCode::kCoordinatorLoadInProgress;
  }
  std::vector<GroupOverview> out;
  for (const auto& [id, g] : groups_) {
    if (g.state != GroupState::kDead) out.push_back({id, g.protocol_type, g.state});
  }
  return {e, out};
}

GroupDescription GroupCoordinator::Impl::DescribeGroup(const std::string& group_id) const {
  absl::MutexLock lock(&mu_);
  GroupDescription out;
  out.group_id = group_id;
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
    out.error = e;
    return out;
  }
  const GroupMetadata* g = FindLocked(group_id);
  if (g == nullptr) return out;  // Dead, as Kafka describes an unknown group
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

CoordinatorStats GroupCoordinator::Impl::stats() const {
  absl::MutexLock lock(&mu_);
  CoordinatorStats s;
  for (GroupState st : {GroupState::kEmpty, GroupState::kPreparingRebalance, GroupState::kCompletingRebalance,
                        GroupState::kStable, GroupState::kDead}) {
    s.groups_by_state[st] = 0;
  }
  for (const auto& [id, g] : groups_) ++s.groups_by_state[g.state];
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

GroupCoordinator::GroupCoordinator(GroupCoordinatorOptions options, GroupLog* log)
    : impl_(std::make_unique<Impl>(options, log)) {}
GroupCoordinator::~GroupCoordinator() = default;

int32_t GroupCoordinator::PartitionFor(absl::string_view group_id) const {
  return OffsetsPartitionFor(group_id, impl_->partitions());
}
int32_t GroupCoordinator::offsets_topic_partitions() const { return impl_->partitions(); }
void GroupCoordinator::OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
  impl_->OnLeadership(led, topic_partitions);
}
bool GroupCoordinator::IsLoaded(int32_t partition) const { return impl_->IsLoaded(partition); }
void GroupCoordinator::JoinGroup(JoinGroupParams params, std::function<void(JoinGroupResult)> respond) {
  impl_->JoinGroup(std::move(params), std::move(respond));
}
void GroupCoordinator::SyncGroup(SyncGroupParams params, std::function<void(SyncGroupResult)> respond) {
  impl_->SyncGroup(std::move(params), std::move(respond));
}
ErrorCode GroupCoordinator::Heartbeat(const std::string& group_id, const std::string& member_id,
                                      const std::optional<std::string>& group_instance_id, int32_t generation_id) {
  return impl_->Heartbeat(group_id, member_id, group_instance_id, generation_id);
}
GroupCoordinator::LeaveResult GroupCoordinator::LeaveGroup(const std::string& group_id,
                                                           const std::vector<MemberIdentity>& members) {
  return impl_->LeaveGroup(group_id, members);
}
void GroupCoordinator::CommitOffsets(OffsetCommitParams params,
                                     std::function<void(std::vector<PartitionError>)> respond) {
  impl_->CommitOffsets(std::move(params), std::move(respond));
}
OffsetFetchResult GroupCoordinator::FetchOffsets(const std::string& group_id,
                                                 const std::optional<std::vector<storage::TopicPartition>>& partitions) {
  return impl_->FetchOffsets(group_id, partitions);
}
std::pair<ErrorCode, std::vector<GroupOverview>> GroupCoordinator::ListGroups() const { return impl_->ListGroups(); }
GroupDescription GroupCoordinator::DescribeGroup(const std::string& group_id) const {
  return impl_->DescribeGroup(group_id);
}
void GroupCoordinator::DeleteGroups(std::vector<std::string> group_ids,
                                    std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond) {
  impl_->DeleteGroups(std::move(group_ids), std::move(respond));
}
void GroupCoordinator::DeleteOffsets(std::string group_id, std::vector<storage::TopicPartition> partitions,
                                     std::function<void(ErrorCode, std::vector<PartitionError>)> respond) {
  impl_->DeleteOffsets(std::move(group_id), std::move(partitions), std::move(respond));
}
void GroupCoordinator::RunDueTimers() { impl_->RunDueTimers(); }
CoordinatorStats GroupCoordinator::stats() const { return impl_->stats(); }

}  // namespace strata::broker
