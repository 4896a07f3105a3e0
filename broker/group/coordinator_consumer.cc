// GroupCoordinatorImpl's KIP-848 consumer groups (group_coordinator_impl.h):
// ConsumerGroupHeartbeat, ConsumerGroupDescribe, the members' session and revocation
// deadlines, the topics of the metadata image, and the records each change writes
// before it is answered. The group's rules are consumer_group.h's; this file gives them
// the lock, the clock, the topics and the writes.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "broker/group/consumer_group_log.h"
#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {
namespace {

ConsumerHeartbeatResult Refused(ErrorCode e, std::string message, const ConsumerHeartbeatParams& params) {
  ConsumerHeartbeatResult r;
  r.error = e;
  if (!message.empty()) r.error_message = std::move(message);
  r.member_id = params.member_id;
  r.member_epoch = params.member_epoch;
  return r;
}

// A classic group's own fields back to a new group's (its offsets stay).
void ClearClassic(GroupMetadata& g) {
  g.state = GroupState::kEmpty;
  g.generation_id = 0;
  g.protocol_name.reset();
  g.leader_id.reset();
  g.members.clear();
  g.pending_members.clear();
  g.static_members.clear();
}

}  // namespace

std::vector<GroupLogRecord> GroupCoordinatorImpl::ConvertEmptyGroupLocked(GroupMetadata& g, GroupType to) {
  std::vector<GroupLogRecord> tombstones;
  if (g.type == to) return tombstones;
  spdlog::info("group coordinator: empty {} group {} becomes a {} group", GroupTypeName(g.type), g.group_id,
               GroupTypeName(to));
  if (g.type == GroupType::kConsumer) {
    tombstones = ConsumerTombstonesOf(g.group_id, g.consumer);
    g.consumer = ConsumerGroup{};
    g.protocol_type.clear();
  } else {
    tombstones.push_back({EncodeGroupRecordKey(GroupKey{g.group_id}), std::nullopt});
    ClearClassic(g);
    g.protocol_type = "consumer";
  }
  g.type = to;
  return tombstones;
}

void GroupCoordinatorImpl::ConsumerGroupHeartbeat(ConsumerHeartbeatParams params,
                                                  std::function<void(ConsumerHeartbeatResult)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  auto answer = [&](ConsumerHeartbeatResult r) { d.Add([respond, r = std::move(r)] { respond(r); }); };
  if (params.group_id.empty()) {
    return answer(Refused(ErrorCode::kInvalidGroupId, "GroupId can't be empty.", params));
  }
  if (ErrorCode e = ReachLocked(params.group_id); e != ErrorCode::kNone) return answer(Refused(e, "", params));
  // Before the topics are known every subscription would look empty and the target
  // would take every partition away: the client waits, as for a load.
  if (!topics_known_) return answer(Refused(ErrorCode::kCoordinatorLoadInProgress, "", params));
  GroupMetadata* g = FindLocked(params.group_id);
  bool created = false;
  if (g == nullptr) {
    if (params.member_epoch != 0) {
      // Kafka answers GROUP_ID_NOT_FOUND, which the clients take as fatal; the member is
      // told to join again instead (it may have been removed with the group's last records).
      return answer(Refused(ErrorCode::kUnknownMemberId,
                            absl::StrCat("consumer group ", params.group_id, " has no member ", params.member_id),
                            params));
    }
    g = &CreateGroupLocked(params.group_id);
    g->type = GroupType::kConsumer;
    g->protocol_type = "consumer";
    created = true;
  } else if (g->type == GroupType::kShare) {
    return answer(Refused(ErrorCode::kGroupIdNotFound,
                          absl::StrCat("Group ", params.group_id, " is not a consumer group."), params));
  } else if (g->type == GroupType::kClassic) {
    if (g->state != GroupState::kEmpty || !g->pending_members.empty()) {
      return answer(Refused(ErrorCode::kGroupIdNotFound,
                            absl::StrCat("Group ", params.group_id, " is not a consumer group."), params));
    }
    // An empty classic group (its offsets, say) becomes a consumer group once this
    // heartbeat is accepted; until then its consumer part is empty.
    ABSL_CHECK(g->consumer.members.empty() && g->consumer.group_epoch == 0) << g->group_id;
  }
  if (params.member_epoch == 0 && params.member_id.empty() && params.api_version == 0) {
    params.member_id = NewMemberId(params.client_id);  // v0: the coordinator names the member
  }
  ConsumerGroupChanges changes;
  ConsumerHeartbeatResult r = ConsumerHeartbeat(g->consumer, params, topics_, options_.consumer, Now(), changes);
  if (r.error != ErrorCode::kNone) {
    ABSL_CHECK(changes.members_changed.empty() && changes.members_removed.empty() && !changes.group_epoch_changed)
        << "a refused heartbeat changed group " << g->group_id;
    if (created) ForgetGroupLocked(params.group_id);
    return answer(std::move(r));
  }
  std::vector<GroupLogRecord> first = ConvertEmptyGroupLocked(*g, GroupType::kConsumer);
  if (r.member_epoch >= 0 && g->consumer.members.count(r.member_id) > 0) ArmConsumerTimersLocked(*g, r.member_id);
  const std::string group_id = g->group_id;
  WriteConsumerChangesLocked(*g, changes, std::move(first),
                             [respond, r, group_id](ErrorCode e, Deferred& d) mutable {
                               if (e != ErrorCode::kNone) {
                                 spdlog::warn("group coordinator: writing consumer group {}'s heartbeat: {}", group_id,
                                              proto::kafka::ErrorName(e));
                                 r.error = ClientErrorOfWrite(e, false);
                                 r.assignment.reset();
                               }
                               d.Add([respond, r] { respond(r); });
                             },
                             d);
}

void GroupCoordinatorImpl::WriteConsumerChangesLocked(GroupMetadata& g, const ConsumerGroupChanges& changes,
                                                      std::vector<GroupLogRecord> first, WriteDone on_done,
                                                      Deferred& d) {
  if (changes.target_changed) ++consumer_rebalances_;
  // For the offsets' rules (retention, DeleteGroups), which read the classic state.
  const GroupState state = g.consumer.members.empty() ? GroupState::kEmpty : GroupState::kStable;
  if (state != g.state) {
    g.state = state;
    g.state_timestamp_ms = Now();
  }
  std::vector<GroupLogRecord> records = ConsumerRecordsOf(g.group_id, g.consumer, changes);
  records.insert(records.begin(), std::make_move_iterator(first.begin()), std::make_move_iterator(first.end()));
  if (records.empty()) return on_done(ErrorCode::kNone, d);
  WriteLocked(g, std::move(records), std::move(on_done));
}

void GroupCoordinatorImpl::ArmConsumerTimersLocked(const GroupMetadata& g, const std::string& member_id) {
  const ConsumerGroupMember& m = g.consumer.members.at(member_id);
  AddTimerLocked(m.session_deadline_ms, Timer::kConsumerSession, g.group_id, member_id, 0);
  if (m.revocation_deadline_ms > 0) {
    AddTimerLocked(m.revocation_deadline_ms, Timer::kConsumerRevocation, g.group_id, member_id, 0);
  }
}

void GroupCoordinatorImpl::FireConsumerTimerLocked(const Timer& t, GroupMetadata& g, int64_t now, Deferred& d) {
  if (g.type != GroupType::kConsumer) return;
  auto it = g.consumer.members.find(t.member_id);
  if (it == g.consumer.members.end()) return;
  const ConsumerGroupMember& m = it->second;
  std::string why;
  if (t.kind == Timer::kConsumerSession && m.session_deadline_ms <= now) {
    why = absl::StrCat("sent no heartbeat for ", options_.consumer.session_timeout_ms, " ms");
  } else if (t.kind == Timer::kConsumerRevocation && m.revocation_deadline_ms > 0 && m.revocation_deadline_ms <= now &&
             m.assignment.state == ConsumerMemberState::kUnrevokedPartitions) {
    why = absl::StrCat("did not revoke its partitions within its rebalance timeout of ", m.rebalance_timeout_ms, " ms");
  } else {
    return;  // the deadline moved since
  }
  spdlog::info("group coordinator: member {} of consumer group {} {}; removed", t.member_id, g.group_id, why);
  ConsumerGroupChanges changes;
  RemoveConsumerMember(g.consumer, t.member_id, topics_, options_.consumer, changes);
  const std::string group_id = g.group_id;
  WriteConsumerChangesLocked(g, changes, {},
                             [group_id](ErrorCode e, Deferred&) {
                               if (e != ErrorCode::kNone) {
                                 spdlog::warn("group coordinator: writing a removal from consumer group {}: {}",
                                              group_id, proto::kafka::ErrorName(e));
                               }
                             },
                             d);
}

void GroupCoordinatorImpl::OnTopicsChanged(const ConsumerTopics& topics, const std::set<std::string>& deleted,
                                           bool full) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  if (full) {
    topics_ = topics;
    topics_known_ = true;
  } else {
    for (const std::string& name : deleted) topics_.erase(name);
    for (const auto& [name, t] : topics) topics_[name] = t;
  }
  for (auto& [id, g] : groups_) {
    if (g.type != GroupType::kConsumer || ReachLocked(id) != ErrorCode::kNone) continue;
    ConsumerGroupChanges changes;
    OnConsumerTopicsChanged(g.consumer, topics_, options_.consumer, changes);
    if (!changes.group_epoch_changed) continue;
    spdlog::info("group coordinator: the subscribed topics of consumer group {} changed; group epoch {}", id,
                 g.consumer.group_epoch);
    const std::string group_id = id;
    WriteConsumerChangesLocked(g, changes, {},
                               [group_id](ErrorCode e, Deferred&) {
                                 if (e != ErrorCode::kNone) {
                                   spdlog::warn("group coordinator: writing consumer group {}'s new target: {}",
                                                group_id, proto::kafka::ErrorName(e));
                                 }
                               },
                               d);
  }
  OnShareTopicsChangedLocked(d);
}

ErrorCode GroupCoordinatorImpl::CheckConsumerMemberEpochLocked(const GroupMetadata& g, const std::string& member_id,
                                                               int32_t member_epoch) const {
  auto it = g.consumer.members.find(member_id);
  if (it == g.consumer.members.end()) return ErrorCode::kUnknownMemberId;
  const int32_t epoch = it->second.assignment.member_epoch;
  if (member_epoch > epoch) return ErrorCode::kFencedMemberEpoch;
  if (member_epoch < epoch) return ErrorCode::kStaleMemberEpoch;
  return ErrorCode::kNone;
}

const GroupMetadata* GroupCoordinatorImpl::DescribedLocked(const std::string& group_id, GroupType type,
                                                          ConsumerGroupDescription& out) const {
  out.group_id = group_id;
  out.state = "Dead";
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
    out.error = e;
    return nullptr;
  }
  const GroupMetadata* g = FindLocked(group_id);
  if (g == nullptr || g->type != type) {
    out.error = ErrorCode::kGroupIdNotFound;
    out.error_message = g == nullptr ? absl::StrCat("Group ", group_id, " not found.")
                                     : absl::StrCat("Group ", group_id, " is not a ", GroupTypeName(type), " group.");
    return nullptr;
  }
  return g;
}

std::vector<ConsumerGroupDescription::Topic> GroupCoordinatorImpl::DescribedTopicsLocked(
    const TopicPartitionSet& set) const {
  std::vector<ConsumerGroupDescription::Topic> v;
  for (const auto& [id, partitions] : set) {
    std::string name;
    for (const auto& [n, t] : topics_) {
      if (t.id == id) name = n;
    }
    v.push_back({id, std::move(name), {partitions.begin(), partitions.end()}});
  }
  return v;
}

ConsumerGroupDescription GroupCoordinatorImpl::DescribeConsumerGroup(const std::string& group_id) const {
  absl::MutexLock lock(&mu_);
  ConsumerGroupDescription out;
  const GroupMetadata* g = DescribedLocked(group_id, GroupType::kConsumer, out);
  if (g == nullptr) return out;
  auto topics_of = [this](const TopicPartitionSet& set) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return DescribedTopicsLocked(set);
  };
  const ConsumerGroup& c = g->consumer;
  out.state = ConsumerGroupPhaseName(c.phase());
  out.group_epoch = c.group_epoch;
  out.assignment_epoch = c.assignment_epoch;
  out.assignor = c.assignor;
  for (const auto& [id, m] : c.members) {
    ConsumerGroupDescription::Member dm;
    dm.member_id = id;
    dm.instance_id = m.instance_id;
    dm.rack_id = m.rack_id;
    dm.member_epoch = m.assignment.member_epoch;
    dm.client_id = m.client_id;
    dm.client_host = m.client_host;
    dm.subscribed_topic_names = m.subscribed_topic_names;
    dm.subscribed_topic_regex = m.subscribed_topic_regex;
    dm.assignment = topics_of(m.assignment.assigned);
    auto target = c.target.find(id);
    if (target != c.target.end()) dm.target_assignment = topics_of(target->second);
    out.members.push_back(std::move(dm));
  }
  return out;
}

}  // namespace strata::broker
