#include "broker/group/consumer_group.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "re2/re2.h"

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;

ConsumerHeartbeatResult Refuse(ErrorCode error, std::string message, const ConsumerHeartbeatParams& params) {
  ConsumerHeartbeatResult r;
  r.error = error;
  r.error_message = std::move(message);
  r.member_id = params.member_id;
  r.member_epoch = params.member_epoch;
  return r;
}

// The ids of the existing topics m subscribes to.
std::set<std::string> SubscribedTopicIds(const ConsumerGroup& g, const ConsumerGroupMember& m,
                                         const ConsumerTopics& topics) {
  std::set<std::string> ids;
  for (const std::string& name : SubscribedTopicNames(g, m)) {
    auto it = topics.find(name);
    if (it != topics.end()) ids.insert(it->second.id);
  }
  return ids;
}

// The partition counts of every topic a member subscribes to.
std::map<std::string, int32_t> SubscribedPartitions(const ConsumerGroup& g, const ConsumerTopics& topics) {
  std::set<std::string> names;
  for (const auto& [id, m] : g.members) {
    std::set<std::string> mine = SubscribedTopicNames(g, m);
    names.insert(mine.begin(), mine.end());
  }
  std::map<std::string, int32_t> out;
  for (const std::string& name : names) {
    auto it = topics.find(name);
    if (it != topics.end()) out[it->second.id] = it->second.partitions;
  }
  return out;
}

// The assignor the members prefer most (ties: the earlier in group.consumer.assignors),
// else the first of group.consumer.assignors.
std::string GroupAssignor(const ConsumerGroup& g, const ConsumerGroupSettings& settings) {
  ABSL_CHECK(!settings.assignors.empty()) << "group.consumer.assignors names at least one";
  std::map<std::string, int> votes;
  for (const auto& [id, m] : g.members) {
    if (m.server_assignor) ++votes[*m.server_assignor];
  }
  std::string best = settings.assignors.front();
  int most = 0;
  for (const std::string& name : settings.assignors) {
    auto it = votes.find(name);
    if (it != votes.end() && it->second > most) {
      best = name;
      most = it->second;
    }
  }
  return best;
}

void BumpGroupEpoch(ConsumerGroup& g, ConsumerGroupChanges& changes) {
  ++g.group_epoch;
  changes.group_epoch_changed = true;
}

// A new target when the group epoch passed the assignment epoch (or the subscribed
// topics' partitions changed, which moves the group epoch first).
void MaybeComputeTarget(ConsumerGroup& g, const ConsumerTopics& topics, const ConsumerGroupSettings& settings,
                        ConsumerGroupChanges& changes) {
  std::map<std::string, int32_t> subscribed = SubscribedPartitions(g, topics);
  if (subscribed != g.subscribed_partitions) {
    g.subscribed_partitions = std::move(subscribed);
    if (!changes.group_epoch_changed) BumpGroupEpoch(g, changes);
  }
  if (g.group_epoch <= g.assignment_epoch) return;
  AssignmentInput input;
  for (const auto& [id, m] : g.members) input.members.push_back({id, SubscribedTopicIds(g, m, topics)});
  input.partitions = g.subscribed_partitions;
  input.current = g.target;
  const std::string name = GroupAssignor(g, settings);
  AssignorFn assign = FindAssignor(name);
  ABSL_CHECK(assign != nullptr) << "group.consumer.assignors names an assignor Strata has: " << name;
  g.target = assign(input);
  g.assignment_epoch = g.group_epoch;
  g.assignor = name;
  changes.target_changed = true;
}

template <typename F>
void ForEachHeld(const MemberAssignment& a, F&& f) {
  for (const TopicPartitionSet* set : {&a.assigned, &a.pending_revocation}) {
    for (const auto& [topic, partitions] : *set) {
      for (int32_t p : partitions) f(topic, p);
    }
  }
}

// The partitions' holders after a member went from `before` to `after`: no partition is
// ever held by two members.
void UpdatePartitionEpochs(ConsumerGroup& g, const MemberAssignment& before, const MemberAssignment& after) {
  ForEachHeld(before, [&](const std::string& t, int32_t p) { g.partition_epochs.erase({t, p}); });
  ForEachHeld(after, [&](const std::string& t, int32_t p) {
    bool fresh = g.partition_epochs.emplace(std::make_pair(t, p), after.member_epoch).second;
    ABSL_CHECK(fresh) << "partition " << p << " given to a member while another holds it";
  });
}

ConsumerHeartbeatResult Leave(ConsumerGroup& g, const ConsumerHeartbeatParams& params, const ConsumerTopics& topics,
                              const ConsumerGroupSettings& settings, ConsumerGroupChanges& changes) {
  std::string id = params.member_id;
  if (params.instance_id) {
    auto st = g.static_members.find(*params.instance_id);
    if (st != g.static_members.end()) id = st->second;
  }
  auto it = g.members.find(id);
  if (it == g.members.end()) {
    return Refuse(ErrorCode::kUnknownMemberId, absl::StrCat("member ", params.member_id, " is not in the group"),
                  params);
  }
  ConsumerHeartbeatResult r;
  r.member_id = params.member_id;
  r.member_epoch = params.member_epoch;
  if (params.member_epoch == kLeaveGroupMemberEpoch) {
    RemoveConsumerMember(g, id, topics, settings, changes);
    return r;
  }
  // A static member's temporary leave: it keeps its partitions until its session ends
  // or its instance id joins again.
  it->second.assignment.SetEpoch(kLeaveGroupStaticMemberEpoch);
  changes.members_changed.push_back(id);
  return r;
}

// Validates a heartbeat as Kafka does (INVALID_REQUEST names the field).
std::optional<ConsumerHeartbeatResult> Invalid(const ConsumerHeartbeatParams& params,
                                               const ConsumerGroupSettings& settings) {
  if (params.member_id.empty()) return Refuse(ErrorCode::kInvalidRequest, "MemberId can't be empty.", params);
  if (params.member_epoch < kLeaveGroupStaticMemberEpoch) {
    return Refuse(ErrorCode::kInvalidRequest, "MemberEpoch is invalid.", params);
  }
  if (params.member_epoch == kLeaveGroupStaticMemberEpoch && !params.instance_id) {
    return Refuse(ErrorCode::kInvalidRequest, "InstanceId can't be null.", params);
  }
  if (params.member_epoch == 0) {
    if (params.rebalance_timeout_ms <= 0) {
      return Refuse(ErrorCode::kInvalidRequest, "RebalanceTimeoutMs must be provided in first request.", params);
    }
    if (!params.owned || !params.owned->empty()) {
      return Refuse(ErrorCode::kInvalidRequest, "TopicPartitions must be empty when (re-)joining.", params);
    }
    if (!params.subscribed_topic_names && !params.subscribed_topic_regex) {
      return Refuse(ErrorCode::kInvalidRequest,
                    "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.", params);
    }
  }
  if (params.subscribed_topic_regex && !params.subscribed_topic_regex->empty()) {
    RE2 re(*params.subscribed_topic_regex, RE2::Quiet);
    if (!re.ok()) {
      return Refuse(ErrorCode::kInvalidRegularExpression,
                    absl::StrCat("SubscribedTopicRegex `", *params.subscribed_topic_regex,
                                 "` is not a valid regular expression: ", re.error()),
                    params);
    }
  }
  if (params.server_assignor &&
      std::find(settings.assignors.begin(), settings.assignors.end(), *params.server_assignor) ==
          settings.assignors.end()) {
    return Refuse(ErrorCode::kUnsupportedAssignor,
                  absl::StrCat("ServerAssignor ", *params.server_assignor, " is not supported"), params);
  }
  return std::nullopt;
}

// The member a join (epoch 0) is for: new, the same member again (it lost its
// partitions: they are released and it starts over), or a static member's new
// incarnation replacing the one that left temporarily. nullptr with `refused` set when
// it may not join.
ConsumerGroupMember* JoiningMember(ConsumerGroup& g, const ConsumerHeartbeatParams& params,
                                   const ConsumerGroupSettings& settings, ConsumerGroupChanges& changes,
                                   std::optional<ConsumerHeartbeatResult>& refused) {
  const std::string& id = params.member_id;
  if (params.instance_id) {
    auto st = g.static_members.find(*params.instance_id);
    if (st != g.static_members.end() && st->second != id) {
      ConsumerGroupMember& old = g.members.at(st->second);
      if (old.assignment.member_epoch != kLeaveGroupStaticMemberEpoch) {
        refused = Refuse(ErrorCode::kUnreleasedInstanceId,
                         absl::StrCat("static member ", *params.instance_id, " is still in use by member ", old.member_id),
                         params);
        return nullptr;
      }
      // It takes over the old incarnation's partitions, epoch and part of the target.
      ConsumerGroupMember replacement = old;
      replacement.member_id = id;
      replacement.assignment.member_epoch = old.assignment.previous_member_epoch;
      const std::string old_id = old.member_id;
      auto target = g.target.find(old_id);
      if (target != g.target.end()) {
        g.target[id] = std::move(target->second);
        g.target.erase(old_id);
      }
      g.members.erase(old_id);
      changes.members_removed.push_back(old_id);
      changes.target_changed = true;
      st->second = id;
      return &(g.members[id] = std::move(replacement));
    }
  }
  auto it = g.members.find(id);
  if (it != g.members.end()) {
    UpdatePartitionEpochs(g, it->second.assignment, MemberAssignment{});
    it->second.assignment = MemberAssignment{};
    return &it->second;
  }
  if (static_cast<int64_t>(g.members.size()) >= settings.max_size) {
    refused = Refuse(ErrorCode::kGroupMaxSizeReached,
                     absl::StrCat("the group has reached its maximum size of ", settings.max_size, " members"), params);
    return nullptr;
  }
  ConsumerGroupMember& m = g.members[id];
  m.member_id = id;
  BumpGroupEpoch(g, changes);
  return &m;
}

// A heartbeat of a member in its epoch: it must be the member's epoch, or its previous
// one from a member that did not get the answer moving it on (it owns what it had).
std::optional<ConsumerHeartbeatResult> Fenced(const ConsumerGroup& g, const ConsumerGroupMember& m,
                                              const ConsumerHeartbeatParams& params) {
  if (params.instance_id) {
    auto st = g.static_members.find(*params.instance_id);
    if (st == g.static_members.end() || st->second != m.member_id) {
      return Refuse(ErrorCode::kFencedInstanceId,
                    absl::StrCat("static member ", *params.instance_id, " is not member ", m.member_id), params);
    }
  }
  const MemberAssignment& a = m.assignment;
  if (params.member_epoch == a.member_epoch) return std::nullopt;
  if (params.member_epoch < a.member_epoch && params.member_epoch == a.previous_member_epoch && params.owned &&
      *params.owned == a.assigned) {
    return std::nullopt;
  }
  return Refuse(ErrorCode::kFencedMemberEpoch,
                absl::StrCat("member epoch ", params.member_epoch, " is not member ", m.member_id, "'s epoch ",
                             a.member_epoch),
                params);
}

// Takes the heartbeat's fields that are set; true when the subscription changed.
bool UpdateMember(ConsumerGroup& g, ConsumerGroupMember& m, const ConsumerHeartbeatParams& params) {
  bool changed = false;
  if (params.subscribed_topic_names) {
    std::vector<std::string> names = *params.subscribed_topic_names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    if (names != m.subscribed_topic_names) {
      m.subscribed_topic_names = std::move(names);
      changed = true;
    }
  }
  if (params.subscribed_topic_regex) {
    // An empty expression is none (the member subscribes by name only).
    std::optional<std::string> regex;
    if (!params.subscribed_topic_regex->empty()) regex = params.subscribed_topic_regex;
    if (regex != m.subscribed_topic_regex) {
      m.subscribed_topic_regex = std::move(regex);
      changed = true;
    }
  }
  if (params.server_assignor && params.server_assignor != m.server_assignor) {
    m.server_assignor = params.server_assignor;
    changed = true;
  }
  if (params.rebalance_timeout_ms > 0) m.rebalance_timeout_ms = params.rebalance_timeout_ms;
  if (params.rack_id) m.rack_id = params.rack_id;
  if (params.instance_id) {
    m.instance_id = params.instance_id;
    g.static_members[*params.instance_id] = m.member_id;
  }
  m.client_id = params.client_id;
  m.client_host = params.client_host;
  return changed;
}

// What __consumer_offsets keeps of a member (its metadata and current assignment):
// a heartbeat that changes none of it writes nothing.
bool SamePersisted(const ConsumerGroupMember& a, const ConsumerGroupMember& b) {
  auto persisted = [](const ConsumerGroupMember& m) {
    return std::tie(m.instance_id, m.rack_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
                    m.subscribed_topic_names, m.subscribed_topic_regex, m.server_assignor, m.assignment);
  };
  return persisted(a) == persisted(b);
}

}  // namespace

const char* ConsumerGroupPhaseName(ConsumerGroupPhase phase) {
  switch (phase) {
    case ConsumerGroupPhase::kEmpty:
      return "Empty";
    case ConsumerGroupPhase::kAssigning:
      return "Assigning";
    case ConsumerGroupPhase::kReconciling:
      return "Reconciling";
    case ConsumerGroupPhase::kStable:
      return "Stable";
  }
  return "Unknown";
}

ConsumerGroupPhase ConsumerGroup::phase() const {
  if (members.empty()) return ConsumerGroupPhase::kEmpty;
  if (group_epoch > assignment_epoch) return ConsumerGroupPhase::kAssigning;
  for (const auto& [id, m] : members) {
    if (m.assignment.member_epoch != assignment_epoch || m.assignment.state != ConsumerMemberState::kStable) {
      return ConsumerGroupPhase::kReconciling;
    }
  }
  return ConsumerGroupPhase::kStable;
}

int32_t ConsumerGroup::PartitionEpoch(const std::string& topic, int32_t partition) const {
  auto it = partition_epochs.find({topic, partition});
  return it == partition_epochs.end() ? -1 : it->second;
}

ConsumerHeartbeatResult ConsumerHeartbeat(ConsumerGroup& g, const ConsumerHeartbeatParams& params,
                                          const ConsumerTopics& topics, const ConsumerGroupSettings& settings,
                                          int64_t now, ConsumerGroupChanges& changes) {
  if (std::optional<ConsumerHeartbeatResult> invalid = Invalid(params, settings)) return *invalid;
  if (params.member_epoch < 0) return Leave(g, params, topics, settings, changes);
  std::optional<ConsumerGroupMember> previous;
  if (auto it = g.members.find(params.member_id); it != g.members.end()) previous = it->second;
  ConsumerGroupMember* m = nullptr;
  if (params.member_epoch == 0) {
    std::optional<ConsumerHeartbeatResult> refused;
    m = JoiningMember(g, params, settings, changes, refused);
    if (m == nullptr) return *refused;
  } else {
    auto it = g.members.find(params.member_id);
    if (it == g.members.end()) {
      return Refuse(ErrorCode::kUnknownMemberId, absl::StrCat("member ", params.member_id, " is not in the group"),
                    params);
    }
    m = &it->second;
    if (std::optional<ConsumerHeartbeatResult> fenced = Fenced(g, *m, params)) return *fenced;
  }
  if (UpdateMember(g, *m, params) && !changes.group_epoch_changed) BumpGroupEpoch(g, changes);
  if (m->subscribed_topic_regex && g.resolved_regexes.count(*m->subscribed_topic_regex) == 0) {
    ResolveConsumerRegexes(g, topics);
  }
  MaybeComputeTarget(g, topics, settings, changes);

  const MemberAssignment before = m->assignment;
  auto target = g.target.find(m->member_id);
  static const TopicPartitionSet kNothing;
  m->assignment = Reconcile(before, g.assignment_epoch, target == g.target.end() ? kNothing : target->second,
                            params.owned, [&g](const std::string& t, int32_t p) { return g.PartitionEpoch(t, p); });
  UpdatePartitionEpochs(g, before, m->assignment);
  if (!previous || !SamePersisted(*previous, *m)) changes.members_changed.push_back(m->member_id);

  m->session_deadline_ms = now + settings.session_timeout_ms;
  if (m->assignment.state != ConsumerMemberState::kUnrevokedPartitions) {
    m->revocation_deadline_ms = 0;
  } else if (before.state != ConsumerMemberState::kUnrevokedPartitions ||
             before.pending_revocation != m->assignment.pending_revocation) {
    m->revocation_deadline_ms = now + m->rebalance_timeout_ms;
  }

  ConsumerHeartbeatResult r;
  r.member_id = m->member_id;
  r.member_epoch = m->assignment.member_epoch;
  r.heartbeat_interval_ms = settings.heartbeat_interval_ms;
  if (params.member_epoch == 0 || m->assignment.assigned != before.assigned ||
      (params.owned && *params.owned != m->assignment.assigned)) {
    r.assignment = m->assignment.assigned;
  }
  return r;
}

void RemoveConsumerMember(ConsumerGroup& g, const std::string& member_id, const ConsumerTopics& topics,
                          const ConsumerGroupSettings& settings, ConsumerGroupChanges& changes) {
  auto it = g.members.find(member_id);
  if (it == g.members.end()) return;
  UpdatePartitionEpochs(g, it->second.assignment, MemberAssignment{});
  if (it->second.instance_id) {
    auto st = g.static_members.find(*it->second.instance_id);
    if (st != g.static_members.end() && st->second == member_id) g.static_members.erase(st);
  }
  g.members.erase(it);
  g.target.erase(member_id);
  changes.members_removed.push_back(member_id);
  BumpGroupEpoch(g, changes);
  MaybeComputeTarget(g, topics, settings, changes);
}

void OnConsumerTopicsChanged(ConsumerGroup& g, const ConsumerTopics& topics, const ConsumerGroupSettings& settings,
                             ConsumerGroupChanges& changes) {
  ResolveConsumerRegexes(g, topics);
  MaybeComputeTarget(g, topics, settings, changes);
}

std::set<std::string> SubscribedTopicNames(const ConsumerGroup& g, const ConsumerGroupMember& m) {
  std::set<std::string> names(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
  if (m.subscribed_topic_regex) {
    auto it = g.resolved_regexes.find(*m.subscribed_topic_regex);
    if (it != g.resolved_regexes.end()) names.insert(it->second.begin(), it->second.end());
  }
  return names;
}

void ResolveConsumerRegexes(ConsumerGroup& g, const ConsumerTopics& topics) {
  std::map<std::string, std::set<std::string>> resolved;
  for (const auto& [id, m] : g.members) {
    if (!m.subscribed_topic_regex || resolved.count(*m.subscribed_topic_regex) > 0) continue;
    std::set<std::string>& matched = resolved[*m.subscribed_topic_regex];
    RE2 re(*m.subscribed_topic_regex, RE2::Quiet);
    if (!re.ok()) continue;  // refused when it was subscribed; matches nothing if one came from a log
    for (const auto& [name, t] : topics) {
      if (absl::StartsWith(name, "__")) continue;  // internal topics
      if (RE2::FullMatch(name, re)) matched.insert(name);
    }
  }
  g.resolved_regexes = std::move(resolved);
}

}  // namespace strata::broker
