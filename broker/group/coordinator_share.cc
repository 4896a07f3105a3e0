// GroupCoordinatorImpl's KIP-932 share groups (group_coordinator_impl.h):
// ShareGroupHeartbeat, ShareGroupDescribe, the members' session deadlines, the topics of
// the metadata image, and the records each change writes before it is answered. The
// group's rules are share_group.h's; this file gives them the lock, the clock, the
// topics and the writes.
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "broker/group/group_coordinator_impl.h"
#include "broker/group/share_group_log.h"

namespace strata::broker {
namespace {

ShareHeartbeatResult Refused(ErrorCode e, std::string message, const ShareHeartbeatParams& params) {
  ShareHeartbeatResult r;
  r.error = e;
  if (!message.empty()) r.error_message = std::move(message);
  r.member_id = params.member_id;
  r.member_epoch = params.member_epoch;
  return r;
}

}  // namespace

void GroupCoordinatorImpl::ShareGroupHeartbeat(std::string group_id, ShareHeartbeatParams params,
                                               std::function<void(ShareHeartbeatResult)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  auto answer = [&](ShareHeartbeatResult r) { d.Add([respond, r = std::move(r)] { respond(r); }); };
  if (group_id.empty()) return answer(Refused(ErrorCode::kInvalidGroupId, "GroupId can't be empty.", params));
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) return answer(Refused(e, "", params));
  // Before the topics are known every subscription would look empty: the client waits.
  if (!topics_known_) return answer(Refused(ErrorCode::kCoordinatorLoadInProgress, "", params));
  GroupMetadata* g = FindLocked(group_id);
  bool created = false;
  if (g == nullptr) {
    if (params.member_epoch != 0) {
      return answer(Refused(ErrorCode::kUnknownMemberId,
                            absl::StrCat("share group ", group_id, " has no member ", params.member_id), params));
    }
    g = &CreateGroupLocked(group_id);
    g->type = GroupType::kShare;
    g->protocol_type = "share";
    created = true;
  } else if (g->type != GroupType::kShare) {
    // One group id is one group (Kafka's answer to a share heartbeat for another type).
    return answer(Refused(ErrorCode::kGroupIdNotFound, absl::StrCat("Group ", group_id, " is not a share group."),
                          params));
  }
  ShareGroupChanges changes;
  ShareHeartbeatResult r = ShareHeartbeat(g->share, params, topics_, options_.share, Now(), changes);
  if (r.error != ErrorCode::kNone) {
    ABSL_CHECK(changes.members_changed.empty() && changes.members_removed.empty() && !changes.group_epoch_changed)
        << "a refused heartbeat changed share group " << group_id;
    if (created) ForgetGroupLocked(group_id);
    return answer(std::move(r));
  }
  auto member = g->share.members.find(r.member_id);
  if (r.member_epoch >= 0 && member != g->share.members.end()) {
    AddTimerLocked(member->second.session_deadline_ms, Timer::kShareSession, group_id, r.member_id, 0);
  }
  WriteShareChangesLocked(*g, changes,
                          [respond, r, group_id](ErrorCode e, Deferred& d) mutable {
                            if (e != ErrorCode::kNone) {
                              spdlog::warn("group coordinator: writing share group {}'s heartbeat: {}", group_id,
                                           proto::kafka::ErrorName(e));
                              r.error = ClientErrorOfWrite(e, false);
                              r.assignment.reset();
                            }
                            d.Add([respond, r] { respond(r); });
                          },
                          d);
}

void GroupCoordinatorImpl::WriteShareChangesLocked(GroupMetadata& g, const ShareGroupChanges& changes,
                                                   WriteDone on_done, Deferred& d) {
  if (changes.group_epoch_changed) ++share_rebalances_;
  // For DeleteGroups and retention, which read the classic state.
  const GroupState state = g.share.members.empty() ? GroupState::kEmpty : GroupState::kStable;
  if (state != g.state) {
    g.state = state;
    g.state_timestamp_ms = Now();
  }
  std::vector<GroupLogRecord> records = ShareRecordsOf(g.group_id, g.share, changes);
  if (records.empty()) return on_done(ErrorCode::kNone, d);
  WriteLocked(g, std::move(records), std::move(on_done));
}

void GroupCoordinatorImpl::FireShareTimerLocked(const Timer& t, GroupMetadata& g, int64_t now, Deferred& d) {
  if (g.type != GroupType::kShare) return;
  auto it = g.share.members.find(t.member_id);
  if (it == g.share.members.end() || it->second.session_deadline_ms > now) return;  // gone, or heard from since
  spdlog::info("group coordinator: member {} of share group {} sent no heartbeat for {} ms; removed", t.member_id,
               g.group_id, options_.share.session_timeout_ms);
  ShareGroupChanges changes;
  RemoveShareMember(g.share, t.member_id, topics_, changes);
  const std::string group_id = g.group_id;
  WriteShareChangesLocked(g, changes,
                          [group_id](ErrorCode e, Deferred&) {
                            if (e != ErrorCode::kNone) {
                              spdlog::warn("group coordinator: writing a removal from share group {}: {}", group_id,
                                           proto::kafka::ErrorName(e));
                            }
                          },
                          d);
}

void GroupCoordinatorImpl::OnShareTopicsChangedLocked(Deferred& d) {
  for (auto& [id, g] : groups_) {
    if (g.type != GroupType::kShare || ReachLocked(id) != ErrorCode::kNone) continue;
    ShareGroupChanges changes;
    OnShareTopicsChanged(g.share, topics_, changes);
    if (!changes.group_epoch_changed) continue;
    spdlog::info("group coordinator: the subscribed topics of share group {} changed; group epoch {}", id,
                 g.share.group_epoch);
    const std::string group_id = id;
    WriteShareChangesLocked(g, changes,
                            [group_id](ErrorCode e, Deferred&) {
                              if (e != ErrorCode::kNone) {
                                spdlog::warn("group coordinator: writing share group {}'s new assignment: {}",
                                             group_id, proto::kafka::ErrorName(e));
                              }
                            },
                            d);
  }
}

ShareGroupDescription GroupCoordinatorImpl::DescribeShareGroup(const std::string& group_id) const {
  absl::MutexLock lock(&mu_);
  ShareGroupDescription out;
  const GroupMetadata* g = DescribedLocked(group_id, GroupType::kShare, out);
  if (g == nullptr) return out;
  const ShareGroup& s = g->share;
  out.state = ShareGroupPhaseName(s.phase());
  out.group_epoch = s.group_epoch;
  out.assignment_epoch = s.assignment_epoch;
  out.assignor = kSimpleAssignor;
  for (const auto& [id, m] : s.members) {
    ShareGroupDescription::Member dm;
    dm.member_id = id;
    dm.rack_id = m.rack_id;
    dm.member_epoch = m.member_epoch;
    dm.client_id = m.client_id;
    dm.client_host = m.client_host;
    dm.subscribed_topic_names = m.subscribed_topic_names;
    dm.assignment = DescribedTopicsLocked(m.assignment);
    out.members.push_back(std::move(dm));
  }
  return out;
}

}  // namespace strata::broker
