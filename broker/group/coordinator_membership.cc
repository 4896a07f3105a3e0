// GroupCoordinatorImpl's state machine (group_coordinator_impl.h): JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup, and the rebalance they drive through Kafka's states
// (group_coordinator.h draws them).
#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/check.h"
#include "base/logging.h"
#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {

std::string NewMemberId(const std::string& client_id) {
  static absl::Mutex mu(absl::kConstInit);
  static absl::BitGen* gen = new absl::BitGen();
  absl::MutexLock lock(&mu);
  uint64_t hi = absl::Uniform<uint64_t>(*gen), lo = absl::Uniform<uint64_t>(*gen);
  // A UUID v4 after the client id, as Kafka's member ids read.
  hi = (hi & ~uint64_t{0xf000}) | 0x4000;
  lo = (lo & ~(uint64_t{0xc} << 60)) | (uint64_t{0x8} << 60);
  return absl::StrFormat("%s-%08x-%04x-%04x-%04x-%012x", client_id, hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff,
                         lo >> 48, lo & 0xffffffffffff);
}

void GroupCoordinatorImpl::JoinGroup(JoinGroupParams params, std::function<void(JoinGroupResult)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  auto fail = [&](ErrorCode e, std::string member_id = "") {
    JoinGroupResult r;
    r.error = e;
    r.member_id = std::move(member_id);
    d.Add([respond, r] { respond(r); });
  };
  if (params.group_id.empty()) return fail(ErrorCode::kInvalidGroupId, params.member_id);
  if (ErrorCode e = ReachLocked(params.group_id); e != ErrorCode::kNone) return fail(e, params.member_id);
  if (params.session_timeout_ms < options_.group_min_session_timeout_ms ||
      params.session_timeout_ms > options_.group_max_session_timeout_ms) {
    return fail(ErrorCode::kInvalidSessionTimeout, params.member_id);
  }
  if (params.rebalance_timeout_ms <= 0) params.rebalance_timeout_ms = params.session_timeout_ms;  // v0
  GroupMetadata* g = FindLocked(params.group_id);
  if (g == nullptr) {
    if (!params.member_id.empty()) return fail(ErrorCode::kUnknownMemberId, params.member_id);
    g = &CreateGroupLocked(params.group_id);
  }
  if (g->state == GroupState::kDead) return fail(ErrorCode::kCoordinatorNotAvailable, params.member_id);
  if (g->type == GroupType::kShare) {
    return fail(ErrorCode::kInconsistentGroupProtocol, params.member_id);  // a share group's members use their own
  }
  if (g->type == GroupType::kConsumer) {
    // Members of the new protocol use it; an empty consumer group becomes a classic one.
    if (!g->consumer.members.empty()) return fail(ErrorCode::kInconsistentGroupProtocol, params.member_id);
    std::vector<GroupLogRecord> tombstones = ConvertEmptyGroupLocked(*g, GroupType::kClassic);
    const std::string group_id = g->group_id;
    WriteLocked(*g, std::move(tombstones), [group_id](ErrorCode e, Deferred&) {
      if (e != ErrorCode::kNone) {
        spdlog::warn("group coordinator: writing consumer group {}'s tombstones: {}", group_id,
                     proto::kafka::ErrorName(e));
      }
    });
  }
  bool known = !params.member_id.empty() && (g->members.count(params.member_id) > 0 ||
                                             g->pending_members.count(params.member_id) > 0);
  bool replacing = params.member_id.empty() && params.group_instance_id &&
                   g->static_members.count(*params.group_instance_id) > 0;
  if (!known && !replacing && static_cast<int64_t>(g->members.size()) >= options_.group_max_size) {
    return fail(ErrorCode::kGroupMaxSizeReached, params.member_id);
  }
  if (!SupportsProtocols(*g, params.protocol_type, params.protocols)) {
    return fail(ErrorCode::kInconsistentGroupProtocol, params.member_id);
  }
  if (params.member_id.empty()) {
    JoinUnknownMemberLocked(*g, std::move(params), std::move(respond), d);
  } else {
    JoinKnownMemberLocked(*g, std::move(params), std::move(respond), d);
  }
}

void GroupCoordinatorImpl::SyncGroup(SyncGroupParams params, std::function<void(SyncGroupResult)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  auto fail = [&](ErrorCode e) {
    SyncGroupResult r;
    r.error = e;
    d.Add([respond, r] { respond(r); });
  };
  if (params.group_id.empty()) return fail(ErrorCode::kInvalidGroupId);
  if (ErrorCode e = ReachLocked(params.group_id); e != ErrorCode::kNone) return fail(e);
  GroupMetadata* g = FindLocked(params.group_id);
  if (g == nullptr) return fail(ErrorCode::kUnknownMemberId);
  if (g->state == GroupState::kDead) return fail(ErrorCode::kCoordinatorNotAvailable);
  if (ErrorCode e = CheckMemberLocked(*g, params.member_id, params.group_instance_id); e != ErrorCode::kNone) {
    return fail(e);
  }
  if (params.generation_id != g->generation_id) return fail(ErrorCode::kIllegalGeneration);
  if ((params.protocol_type && *params.protocol_type != g->protocol_type) ||
      (params.protocol_name && params.protocol_name != g->protocol_name)) {
    return fail(ErrorCode::kInconsistentGroupProtocol);
  }
  MemberMetadata& m = g->members.at(params.member_id);
  switch (g->state) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return fail(ErrorCode::kUnknownMemberId);
    case GroupState::kPreparingRebalance:
      return fail(ErrorCode::kRebalanceInProgress);
    case GroupState::kStable: {
      RenewHeartbeatLocked(*g, m);
      SyncGroupResult r = SyncResultOf(*g, m);
      d.Add([respond, r] { respond(r); });
      return;
    }
    case GroupState::kCompletingRebalance:
      break;
  }
  if (m.awaiting_sync) AnswerSync(m, ErrorCode::kRebalanceInProgress, d);  // a repeated SyncGroup
  m.awaiting_sync = std::move(respond);
  RenewHeartbeatLocked(*g, m);
  if (params.member_id != g->leader_id || g->assignment_write_pending) return;
  // The leader's assignment: written before any member is told its part.
  std::map<std::string, std::string> assignment;
  for (auto& [id, bytes] : params.assignments) {
    if (g->members.count(id) > 0) assignment[id] = std::move(bytes);
  }
  for (const auto& [id, member] : g->members) assignment.try_emplace(id, "");  // not assigned anything
  g->assignment_write_pending = true;
  const int32_t generation = g->generation_id;
  const std::string group_id = g->group_id;
  WriteLocked(*g, {GroupRecordOf(*g, &assignment)},
              [this, group_id, generation, assignment](ErrorCode e, Deferred& d)
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
                GroupMetadata* g = FindLocked(group_id);
                if (g == nullptr || g->generation_id != generation ||
                    g->state != GroupState::kCompletingRebalance) {
                  return;  // a new rebalance answered the waiting members
                }
                g->assignment_write_pending = false;
                if (e != ErrorCode::kNone) {
                  ErrorCode client = ClientErrorOfWrite(e, false);
                  spdlog::warn("group coordinator: writing the assignment of group {} generation {}: {}", group_id,
                               generation, proto::kafka::ErrorName(e));
                  for (auto& [id, m] : g->members) AnswerSync(m, client, d);
                  PrepareRebalanceLocked(*g, "the assignment could not be written", d);
                  return;
                }
                for (auto& [id, m] : g->members) {
                  auto it = assignment.find(id);
                  m.assignment = it != assignment.end() ? it->second : "";
                }
                TransitionLocked(*g, GroupState::kStable);
                for (auto& [id, m] : g->members) {
                  if (!m.awaiting_sync) continue;
                  SyncGroupResult r = SyncResultOf(*g, m);
                  auto cb = std::move(m.awaiting_sync);
                  m.awaiting_sync = nullptr;
                  d.Add([cb, r] { cb(r); });
                }
                spdlog::info("group coordinator: group {} is stable at generation {} with {} members", group_id,
                             generation, g->members.size());
              });
}

ErrorCode GroupCoordinatorImpl::Heartbeat(const std::string& group_id, const std::string& member_id,
                                          const std::optional<std::string>& instance_id, int32_t generation_id) {
  absl::MutexLock lock(&mu_);
  if (group_id.empty()) return ErrorCode::kInvalidGroupId;
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) return e;
  GroupMetadata* g = FindLocked(group_id);
  if (g == nullptr) return ErrorCode::kUnknownMemberId;
  if (g->state == GroupState::kDead) return ErrorCode::kCoordinatorNotAvailable;
  if (ErrorCode e = CheckMemberLocked(*g, member_id, instance_id); e != ErrorCode::kNone) return e;
  if (g->state == GroupState::kEmpty) return ErrorCode::kUnknownMemberId;
  if (generation_id != g->generation_id) return ErrorCode::kIllegalGeneration;
  RenewHeartbeatLocked(*g, g->members.at(member_id));
  return g->state == GroupState::kPreparingRebalance ? ErrorCode::kRebalanceInProgress : ErrorCode::kNone;
}

LeaveGroupResult GroupCoordinatorImpl::LeaveGroup(const std::string& group_id, const std::vector<MemberIdentity>& members) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  LeaveGroupResult result;
  if (group_id.empty()) {
    result.error = ErrorCode::kInvalidGroupId;
    return result;
  }
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
    result.error = e;
    return result;
  }
  GroupMetadata* g = FindLocked(group_id);
  if (g != nullptr && g->state == GroupState::kDead) {
    result.error = ErrorCode::kCoordinatorNotAvailable;
    return result;
  }
  for (const MemberIdentity& who : members) {
    if (g == nullptr) {
      result.members.push_back(ErrorCode::kUnknownMemberId);
      continue;
    }
    std::string id = who.member_id;
    if (who.group_instance_id) {
      auto it = g->static_members.find(*who.group_instance_id);
      if (it == g->static_members.end()) {
        result.members.push_back(ErrorCode::kUnknownMemberId);
        continue;
      }
      if (!id.empty() && id != it->second) {
        result.members.push_back(ErrorCode::kFencedInstanceId);
        continue;
      }
      id = it->second;
    }
    if (g->pending_members.erase(id) > 0) {
      result.members.push_back(ErrorCode::kNone);
      MaybeCompleteJoinLocked(*g, d);
      continue;
    }
    if (g->members.count(id) == 0) {
      result.members.push_back(ErrorCode::kUnknownMemberId);
      continue;
    }
    spdlog::info("group coordinator: member {} leaves group {}", id, group_id);
    RemoveMemberLocked(*g, id, "a member left", d);
    result.members.push_back(ErrorCode::kNone);
  }
  return result;
}

// A known member of g under the identity given (static members: their current id).
ErrorCode GroupCoordinatorImpl::CheckMemberLocked(const GroupMetadata& g, const std::string& member_id,
                                                  const std::optional<std::string>& instance_id) const {
  if (instance_id) {
    auto it = g.static_members.find(*instance_id);
    if (it != g.static_members.end() && it->second != member_id) return ErrorCode::kFencedInstanceId;
  }
  if (g.members.count(member_id) == 0) return ErrorCode::kUnknownMemberId;
  return ErrorCode::kNone;
}

void GroupCoordinatorImpl::AnswerJoin(MemberMetadata& m, ErrorCode e, Deferred& d) {
  if (!m.awaiting_join) return;
  JoinGroupResult r;
  r.error = e;
  r.member_id = m.member_id;
  auto cb = std::move(m.awaiting_join);
  m.awaiting_join = nullptr;
  d.Add([cb, r] { cb(r); });
}

void GroupCoordinatorImpl::AnswerSync(MemberMetadata& m, ErrorCode e, Deferred& d) {
  if (!m.awaiting_sync) return;
  SyncGroupResult r;
  r.error = e;
  auto cb = std::move(m.awaiting_sync);
  m.awaiting_sync = nullptr;
  d.Add([cb, r] { cb(r); });
}

void GroupCoordinatorImpl::TransitionLocked(GroupMetadata& g, GroupState to) {
  g.state = to;
  g.state_timestamp_ms = Now();
}

void GroupCoordinatorImpl::RenewHeartbeatLocked(GroupMetadata& g, MemberMetadata& m) {
  m.heartbeat_deadline_ms = Now() + m.session_timeout_ms;
  AddTimerLocked(m.heartbeat_deadline_ms, Timer::kHeartbeat, g.group_id, m.member_id, 0);
}

void GroupCoordinatorImpl::UpdateMemberLocked(MemberMetadata& m, JoinGroupParams& params,
                                              std::function<void(JoinGroupResult)> respond, Deferred& d) {
  m.client_id = params.client_id;
  m.client_host = params.client_host;
  m.session_timeout_ms = params.session_timeout_ms;
  m.rebalance_timeout_ms = params.rebalance_timeout_ms;
  m.protocols = std::move(params.protocols);
  AnswerJoin(m, ErrorCode::kRebalanceInProgress, d);  // a JoinGroup repeated before the first was answered
  m.awaiting_join = std::move(respond);
}

void GroupCoordinatorImpl::JoinUnknownMemberLocked(GroupMetadata& g, JoinGroupParams params,
                                                   std::function<void(JoinGroupResult)> respond, Deferred& d) {
  const std::string new_id = NewMemberId(params.client_id);
  if (params.group_instance_id) {
    auto it = g.static_members.find(*params.group_instance_id);
    if (it != g.static_members.end()) {
      ReplaceStaticMemberLocked(g, it->second, new_id, std::move(params), std::move(respond), d);
      return;
    }
  } else if (params.require_known_member_id) {
    // KIP-394: the member learns its id first and joins with it, so that a client
    // whose first join times out does not leave an unknown member behind.
    g.pending_members.insert(new_id);
    AddTimerLocked(Now() + params.session_timeout_ms, Timer::kPendingMember, g.group_id, new_id, 0);
    JoinGroupResult r;
    r.error = ErrorCode::kMemberIdRequired;
    r.member_id = new_id;
    d.Add([respond, r] { respond(r); });
    return;
  }
  AddMemberAndRebalanceLocked(g, new_id, std::move(params), std::move(respond), d);
}

void GroupCoordinatorImpl::JoinKnownMemberLocked(GroupMetadata& g, JoinGroupParams params,
                                                 std::function<void(JoinGroupResult)> respond, Deferred& d) {
  const std::string id = params.member_id;
  auto fail = [&](ErrorCode e) {
    JoinGroupResult r;
    r.error = e;
    r.member_id = id;
    d.Add([respond, r] { respond(r); });
  };
  if (g.pending_members.count(id) > 0) {
    if (params.group_instance_id && g.static_members.count(*params.group_instance_id) > 0) {
      return fail(ErrorCode::kFencedInstanceId);
    }
    AddMemberAndRebalanceLocked(g, id, std::move(params), std::move(respond), d);
    return;
  }
  if (ErrorCode e = CheckMemberLocked(g, id, params.group_instance_id); e != ErrorCode::kNone) return fail(e);
  MemberMetadata& m = g.members.at(id);
  auto same_protocols = [&] {
    if (m.protocols.size() != params.protocols.size()) return false;
    for (size_t i = 0; i < m.protocols.size(); ++i) {
      if (m.protocols[i].name != params.protocols[i].name || m.protocols[i].metadata != params.protocols[i].metadata) {
        return false;
      }
    }
    return true;
  };
  switch (g.state) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return fail(ErrorCode::kUnknownMemberId);
    case GroupState::kPreparingRebalance:
      UpdateMemberLocked(m, params, std::move(respond), d);
      RenewHeartbeatLocked(g, m);
      MaybeCompleteJoinLocked(g, d);
      return;
    case GroupState::kCompletingRebalance:
      if (same_protocols()) {
        // It lost the answer to its join: the same generation again.
        RenewHeartbeatLocked(g, m);
        JoinGroupResult r = JoinResultOf(g, m);
        d.Add([respond, r] { respond(r); });
        return;
      }
      UpdateMemberLocked(m, params, std::move(respond), d);
      PrepareRebalanceLocked(g, absl::StrCat("member ", id, " rejoined with new metadata"), d);
      return;
    case GroupState::kStable:
      if (g.leader_id == id || !same_protocols()) {
        // The leader asks for a new assignment (a subscription or the metadata changed).
        UpdateMemberLocked(m, params, std::move(respond), d);
        PrepareRebalanceLocked(g, absl::StrCat(g.leader_id == id ? "the leader " : "member ", id, " rejoined"), d);
        return;
      }
      RenewHeartbeatLocked(g, m);
      JoinGroupResult r = JoinResultOf(g, m);
      d.Add([respond, r] { respond(r); });
      return;
  }
}

void GroupCoordinatorImpl::AddMemberAndRebalanceLocked(GroupMetadata& g, const std::string& id, JoinGroupParams params,
                                                       std::function<void(JoinGroupResult)> respond, Deferred& d) {
  if (g.members.empty()) g.protocol_type = params.protocol_type;
  MemberMetadata& m = g.members[id];
  m.member_id = id;
  m.group_instance_id = params.group_instance_id;
  m.joined_ms = Now();
  m.join_order = ++join_order_;
  m.is_new = true;
  UpdateMemberLocked(m, params, std::move(respond), d);
  if (m.group_instance_id) g.static_members[*m.group_instance_id] = id;
  g.pending_members.erase(id);
  RenewHeartbeatLocked(g, m);
  spdlog::info("group coordinator: member {} joins group {}{}", id, g.group_id,
               m.group_instance_id ? absl::StrCat(" (instance ", *m.group_instance_id, ")") : "");
  if (g.state == GroupState::kPreparingRebalance) {
    g.new_member_added = true;
    MaybeCompleteJoinLocked(g, d);
  } else {
    PrepareRebalanceLocked(g, absl::StrCat("member ", id, " joined"), d);
  }
}

// KIP-345: a static member restarted (a join with its instance id and no member id).
void GroupCoordinatorImpl::ReplaceStaticMemberLocked(GroupMetadata& g, std::string old_id, const std::string& new_id,
                                                     JoinGroupParams params,
                                                     std::function<void(JoinGroupResult)> respond, Deferred& d) {
  auto node = g.members.extract(old_id);
  MemberMetadata& old = node.mapped();
  // The old incarnation's waiting calls are fenced.
  AnswerJoin(old, ErrorCode::kFencedInstanceId, d);
  AnswerSync(old, ErrorCode::kFencedInstanceId, d);
  MemberMetadata m = std::move(old);
  m.member_id = new_id;
  m.client_id = params.client_id;
  m.client_host = params.client_host;
  m.session_timeout_ms = params.session_timeout_ms;
  m.rebalance_timeout_ms = params.rebalance_timeout_ms;
  m.protocols = params.protocols;
  MemberMetadata& placed = g.members[new_id] = std::move(m);
  g.static_members[*params.group_instance_id] = new_id;
  if (g.leader_id == old_id) g.leader_id = new_id;
  RenewHeartbeatLocked(g, placed);
  spdlog::info("group coordinator: static member {} of group {} rejoined as {}", *params.group_instance_id,
               g.group_id, new_id);
  switch (g.state) {
    case GroupState::kStable:
      if (SelectProtocol(g) == g.protocol_name) {
        // No rebalance: the member takes its old assignment back, once the new id is written.
        const std::string group_id = g.group_id;
        const int32_t generation = g.generation_id;
        WriteLocked(g, {GroupRecordOf(g, nullptr)},
                    [this, group_id, generation, new_id, respond](ErrorCode e, Deferred& d)
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
                      GroupMetadata* g = FindLocked(group_id);
                      JoinGroupResult r;
                      r.member_id = new_id;
                      if (e != ErrorCode::kNone || g == nullptr || g->members.count(new_id) == 0) {
                        r.error = e != ErrorCode::kNone ? ClientErrorOfWrite(e, false) : ErrorCode::kUnknownMemberId;
                      } else {
                        r = JoinResultOf(*g, g->members.at(new_id));
                        // Kafka's v9 flag: a returning leader keeps the current assignment.
                        r.skip_assignment = g->leader_id == new_id;
                        if (g->generation_id != generation) r.error = ErrorCode::kRebalanceInProgress;
                      }
                      d.Add([respond, r] { respond(r); });
                    });
        return;
      }
      placed.awaiting_join = std::move(respond);
      PrepareRebalanceLocked(g, absl::StrCat("static member ", new_id, " changed the group's protocol"), d);
      return;
    case GroupState::kCompletingRebalance:
      placed.awaiting_join = std::move(respond);
      PrepareRebalanceLocked(g, absl::StrCat("static member ", new_id, " rejoined during the sync"), d);
      return;
    case GroupState::kPreparingRebalance:
      placed.awaiting_join = std::move(respond);
      MaybeCompleteJoinLocked(g, d);
      return;
    case GroupState::kEmpty:
    case GroupState::kDead:
      ABSL_CHECK(false) << "group " << g.group_id << " has a static member in state " << GroupStateName(g.state);
  }
}

void GroupCoordinatorImpl::PrepareRebalanceLocked(GroupMetadata& g, const std::string& reason, Deferred& d) {
  if (g.state == GroupState::kCompletingRebalance) {
    // The members waiting for their assignment join again.
    for (auto& [id, m] : g.members) AnswerSync(m, ErrorCode::kRebalanceInProgress, d);
    g.assignment_write_pending = false;
  }
  const bool initial = g.state == GroupState::kEmpty;
  TransitionLocked(g, GroupState::kPreparingRebalance);
  int32_t rebalance_timeout = 0;
  for (const auto& [id, m] : g.members) rebalance_timeout = std::max(rebalance_timeout, m.rebalance_timeout_ms);
  int64_t delay = rebalance_timeout;
  g.initial_delay = initial;
  g.new_member_added = false;
  if (initial) {
    delay = std::min<int64_t>(options_.group_initial_rebalance_delay_ms, rebalance_timeout);
    g.initial_delay_remaining_ms = std::max<int64_t>(rebalance_timeout - options_.group_initial_rebalance_delay_ms, 0);
  }
  g.join_timer = ++timer_seq_;
  AddTimerLocked(Now() + delay, Timer::kJoin, g.group_id, "", g.join_timer);
  spdlog::info("group coordinator: preparing to rebalance group {} (generation {}): {}", g.group_id,
               g.generation_id, reason);
  MaybeCompleteJoinLocked(g, d);
}

void GroupCoordinatorImpl::MaybeCompleteJoinLocked(GroupMetadata& g, Deferred& d) {
  if (g.state != GroupState::kPreparingRebalance || g.initial_delay || !g.pending_members.empty()) return;
  for (const auto& [id, m] : g.members) {
    if (!m.awaiting_join) return;
  }
  CompleteJoinLocked(g, d);
}

void GroupCoordinatorImpl::OnJoinDeadlineLocked(GroupMetadata& g, Deferred& d) {
  if (g.initial_delay && g.new_member_added && g.initial_delay_remaining_ms > 0) {
    // Members keep arriving: wait another initial delay, within the rebalance timeout.
    g.new_member_added = false;
    int64_t delay = std::min<int64_t>(options_.group_initial_rebalance_delay_ms, g.initial_delay_remaining_ms);
    g.initial_delay_remaining_ms = std::max<int64_t>(g.initial_delay_remaining_ms - options_.group_initial_rebalance_delay_ms, 0);
    g.join_timer = ++timer_seq_;
    AddTimerLocked(Now() + delay, Timer::kJoin, g.group_id, "", g.join_timer);
    return;
  }
  g.initial_delay = false;
  CompleteJoinLocked(g, d);
}

void GroupCoordinatorImpl::CompleteJoinLocked(GroupMetadata& g, Deferred& d) {
  ABSL_CHECK(g.state == GroupState::kPreparingRebalance);
  g.join_timer = 0;
  std::vector<std::string> gone;
  for (const auto& [id, m] : g.members) {
    if (!m.awaiting_join) gone.push_back(id);
  }
  for (const std::string& id : gone) {
    spdlog::info("group coordinator: member {} of group {} did not rejoin in time; removed", id, g.group_id);
    EraseMemberLocked(g, id, d);
  }
  if (!g.leader_id || g.members.count(*g.leader_id) == 0) {
    g.leader_id.reset();
    if (!g.members.empty()) g.leader_id = MembersInJoinOrder(g).front()->member_id;
  }
  ++g.generation_id;
  if (g.members.empty()) {
    g.protocol_name.reset();
    TransitionLocked(g, GroupState::kEmpty);
    spdlog::info("group coordinator: group {} is empty at generation {}", g.group_id, g.generation_id);
    const std::string group_id = g.group_id;
    WriteLocked(g, {GroupRecordOf(g, nullptr)}, [group_id](ErrorCode e, Deferred&) {
      if (e != ErrorCode::kNone) {
        spdlog::warn("group coordinator: writing empty group {}: {}", group_id, proto::kafka::ErrorName(e));
      }
    });
    return;
  }
  g.protocol_name = SelectProtocol(g);
  TransitionLocked(g, GroupState::kCompletingRebalance);
  ++rebalances_;
  spdlog::info("group coordinator: group {} generation {} ({} {}) with {} members, leader {}", g.group_id,
               g.generation_id, g.protocol_type, *g.protocol_name, g.members.size(), *g.leader_id);
  int32_t rebalance_timeout = 0;
  for (auto& [id, m] : g.members) {
    rebalance_timeout = std::max(rebalance_timeout, m.rebalance_timeout_ms);
    JoinGroupResult r = JoinResultOf(g, m);
    auto cb = std::move(m.awaiting_join);
    m.awaiting_join = nullptr;
    m.is_new = false;
    d.Add([cb, r] { cb(r); });
    RenewHeartbeatLocked(g, m);
  }
  // Members that do not sync within the rebalance timeout are removed (Kafka's pending sync).
  AddTimerLocked(Now() + rebalance_timeout, Timer::kSync, g.group_id, "", static_cast<uint64_t>(g.generation_id));
}

// Removes a member without changing the group's state.
void GroupCoordinatorImpl::EraseMemberLocked(GroupMetadata& g, const std::string& id, Deferred& d) {
  auto it = g.members.find(id);
  if (it == g.members.end()) return;
  AnswerJoin(it->second, ErrorCode::kUnknownMemberId, d);
  AnswerSync(it->second, ErrorCode::kUnknownMemberId, d);
  if (it->second.group_instance_id) g.static_members.erase(*it->second.group_instance_id);
  g.members.erase(it);
}

// A member leaves (LeaveGroup, session expiry): the others rebalance.
void GroupCoordinatorImpl::RemoveMemberLocked(GroupMetadata& g, const std::string& id, const std::string& reason, Deferred& d) {
  EraseMemberLocked(g, id, d);
  switch (g.state) {
    case GroupState::kStable:
    case GroupState::kCompletingRebalance:
      PrepareRebalanceLocked(g, absl::StrCat(reason, " (", id, ")"), d);
      return;
    case GroupState::kPreparingRebalance:
      MaybeCompleteJoinLocked(g, d);
      return;
    case GroupState::kEmpty:
    case GroupState::kDead:
      return;
  }
}

}  // namespace strata::broker
