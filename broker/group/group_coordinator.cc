#include "broker/group/group_coordinator.h"

#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {

GroupCoordinator::GroupCoordinator(GroupCoordinatorOptions options, GroupLog* log)
    : impl_(std::make_unique<GroupCoordinatorImpl>(options, log)) {}
GroupCoordinator::~GroupCoordinator() = default;

int32_t GroupCoordinator::PartitionFor(absl::string_view group_id) const {
  return OffsetsPartitionFor(group_id, impl_->partitions());
}
int32_t GroupCoordinator::offsets_topic_partitions() const { return impl_->partitions(); }
void GroupCoordinator::OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
  impl_->OnLeadership(led, topic_partitions);
}

void GroupCoordinator::OnTopicsDeleted(const std::set<std::string>& topics) { impl_->OnTopicsDeleted(topics); }
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
LeaveGroupResult GroupCoordinator::LeaveGroup(const std::string& group_id,
                                                           const std::vector<MemberIdentity>& members) {
  return impl_->LeaveGroup(group_id, members);
}
void GroupCoordinator::CommitOffsets(OffsetCommitParams params,
                                     std::function<void(std::vector<PartitionError>)> respond) {
  impl_->CommitOffsets(std::move(params), std::move(respond));
}
OffsetFetchResult GroupCoordinator::FetchOffsets(const std::string& group_id,
                                                 const std::optional<std::vector<storage::TopicPartition>>& partitions,
                                                 bool require_stable, const OffsetFetchMember& member) {
  return impl_->FetchOffsets(group_id, partitions, require_stable, member);
}

void GroupCoordinator::ConsumerGroupHeartbeat(ConsumerHeartbeatParams params,
                                              std::function<void(ConsumerHeartbeatResult)> respond) {
  impl_->ConsumerGroupHeartbeat(std::move(params), std::move(respond));
}
ConsumerGroupDescription GroupCoordinator::DescribeConsumerGroup(const std::string& group_id) const {
  return impl_->DescribeConsumerGroup(group_id);
}

void GroupCoordinator::ShareGroupHeartbeat(std::string group_id, ShareHeartbeatParams params,
                                           std::function<void(ShareHeartbeatResult)> respond) {
  impl_->ShareGroupHeartbeat(std::move(group_id), std::move(params), std::move(respond));
}

ShareGroupDescription GroupCoordinator::DescribeShareGroup(const std::string& group_id) const {
  return impl_->DescribeShareGroup(group_id);
}
void GroupCoordinator::OnTopicsChanged(const ConsumerTopics& topics, const std::set<std::string>& deleted, bool full) {
  impl_->OnTopicsChanged(topics, deleted, full);
}

void GroupCoordinator::CommitTransactionalOffsets(TxnOffsetCommitParams params,
                                                  std::function<void(std::vector<PartitionError>)> respond) {
  impl_->CommitTransactionalOffsets(std::move(params), std::move(respond));
}

void GroupCoordinator::OnTransactionCompleted(int32_t partition, int64_t producer_id, bool commit) {
  impl_->OnTransactionCompleted(partition, producer_id, commit);
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
