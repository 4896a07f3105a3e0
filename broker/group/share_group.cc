#include "broker/group/share_group.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;

std::vector<std::string> SortedUnique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The subscribed topics' partition counts, by topic id.
std::map<std::string, int32_t> SubscribedPartitions(const ShareGroup& g, const ConsumerTopics& topics) {
  std::map<std::string, int32_t> out;
  for (const auto& [id, m] : g.members) {
    for (const std::string& name : m.subscribed_topic_names) {
      auto t = topics.find(name);
      if (t != topics.end()) out[t->second.id] = t->second.partitions;
    }
  }
  return out;
}

// The group epoch moves on and the assignment is computed again; members whose part
// changed are recorded as changed (their epoch moves when they next heartbeat).
void Reassign(ShareGroup& g, const ConsumerTopics& topics, ShareGroupChanges& changes) {
  g.group_epoch++;
  changes.group_epoch_changed = true;
  g.subscribed_partitions = SubscribedPartitions(g, topics);
  std::map<std::string, std::vector<std::string>> subscriptions;
  for (const auto& [id, m] : g.members) subscriptions[id] = m.subscribed_topic_names;
  TargetAssignment target = SimpleShareAssignment(subscriptions, topics);
  for (auto& [id, m] : g.members) {
    TopicPartitionSet& next = target[id];
    if (next != m.assignment) {
      m.assignment = std::move(next);
      changes.members_changed.push_back(id);
    }
  }
  g.assignment_epoch = g.group_epoch;
}

ShareHeartbeatResult Refuse(ShareHeartbeatResult r, ErrorCode error, std::string message) {
  r.error = error;
  r.error_message = std::move(message);
  return r;
}

}  // namespace

const char* ShareGroupPhaseName(ShareGroupPhase phase) {
  return phase == ShareGroupPhase::kEmpty ? "Empty" : "Stable";
}

TargetAssignment SimpleShareAssignment(const std::map<std::string, std::vector<std::string>>& subscriptions,
                                       const ConsumerTopics& topics) {
  TargetAssignment out;
  std::map<std::string, std::vector<std::string>> members_of;  // topic name -> members, in id order
  for (const auto& [member, names] : subscriptions) {
    out[member];
    for (const std::string& name : names) {
      if (topics.count(name) > 0) members_of[name].push_back(member);
    }
  }
  // Each topic's partitions dealt round the members subscribed to it, the deal starting
  // where the last topic's stopped, so that many small topics spread over the members.
  size_t next = 0;
  for (const auto& [name, members] : members_of) {
    const ConsumerTopic& topic = topics.at(name);
    const size_t m = members.size();
    const size_t p = static_cast<size_t>(std::max(topic.partitions, 0));
    if (p == 0) continue;
    if (m <= p) {
      for (size_t i = 0; i < p; ++i) out[members[(next + i) % m]][topic.id].insert(static_cast<int32_t>(i));
      next = (next + p) % m;
    } else {  // more members than partitions: each member one partition, partitions shared
      for (size_t j = 0; j < m; ++j) out[members[j]][topic.id].insert(static_cast<int32_t>(j % p));
    }
  }
  return out;
}

ShareHeartbeatResult ShareHeartbeat(ShareGroup& g, const ShareHeartbeatParams& params, const ConsumerTopics& topics,
                                    const ShareGroupSettings& settings, int64_t now, ShareGroupChanges& changes) {
  ShareHeartbeatResult r;
  r.member_id = params.member_id;
  r.member_epoch = params.member_epoch;
  r.heartbeat_interval_ms = settings.heartbeat_interval_ms;
  if (params.member_id.empty()) return Refuse(r, ErrorCode::kInvalidRequest, "MemberId is required");
  auto it = g.members.find(params.member_id);
  if (params.member_epoch == kLeaveGroupMemberEpoch) {
    if (it == g.members.end()) return Refuse(r, ErrorCode::kUnknownMemberId, "not a member of the group");
    RemoveShareMember(g, params.member_id, topics, changes);
    return r;
  }
  if (params.member_epoch < 0) {
    return Refuse(r, ErrorCode::kInvalidRequest, absl::StrCat("MemberEpoch ", params.member_epoch));
  }
  bool reassign = false;
  if (params.member_epoch == 0) {
    if (it == g.members.end()) {
      if (static_cast<int32_t>(g.members.size()) >= settings.max_size) {
        return Refuse(r, ErrorCode::kGroupMaxSizeReached, absl::StrCat("the group has ", settings.max_size, " members"));
      }
      if (!params.subscribed_topic_names) {
        return Refuse(r, ErrorCode::kInvalidRequest, "SubscribedTopicNames must be set when joining");
      }
      it = g.members.emplace(params.member_id, ShareGroupMember{}).first;
      it->second.member_id = params.member_id;
      reassign = true;
    }
    it->second.member_epoch = 0;  // a join (or a rejoin) gets the whole assignment below
  } else if (it == g.members.end()) {
    return Refuse(r, ErrorCode::kUnknownMemberId, "not a member of the group");
  } else if (params.member_epoch != it->second.member_epoch) {
    return Refuse(r, ErrorCode::kFencedMemberEpoch,
                  absl::StrCat("member epoch ", params.member_epoch, ", the member's is ", it->second.member_epoch));
  }
  ShareGroupMember& m = it->second;
  bool changed = reassign;
  if (params.subscribed_topic_names) {
    std::vector<std::string> names = SortedUnique(*params.subscribed_topic_names);
    if (names != m.subscribed_topic_names) {
      m.subscribed_topic_names = std::move(names);
      reassign = changed = true;
    }
  }
  if (params.rack_id && params.rack_id != m.rack_id) {
    m.rack_id = params.rack_id;
    changed = true;
  }
  if (m.client_id != params.client_id || m.client_host != params.client_host) {
    m.client_id = params.client_id;
    m.client_host = params.client_host;
    changed = true;
  }
  m.session_deadline_ms = now + settings.session_timeout_ms;
  if (reassign) Reassign(g, topics, changes);
  if (m.member_epoch < g.assignment_epoch) {
    m.member_epoch = g.assignment_epoch;
    r.assignment = m.assignment;
    changed = true;
  }
  if (changed && std::find(changes.members_changed.begin(), changes.members_changed.end(), m.member_id) ==
                     changes.members_changed.end()) {
    changes.members_changed.push_back(m.member_id);
  }
  r.member_epoch = m.member_epoch;
  return r;
}

void RemoveShareMember(ShareGroup& g, const std::string& member_id, const ConsumerTopics& topics,
                       ShareGroupChanges& changes) {
  if (g.members.erase(member_id) == 0) return;
  changes.members_removed.push_back(member_id);
  Reassign(g, topics, changes);
}

void OnShareTopicsChanged(ShareGroup& g, const ConsumerTopics& topics, ShareGroupChanges& changes) {
  if (g.members.empty() || SubscribedPartitions(g, topics) == g.subscribed_partitions) return;
  Reassign(g, topics, changes);
}

}  // namespace strata::broker
