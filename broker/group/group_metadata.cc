#include "broker/group/group_metadata.h"

#include <algorithm>

#include "base/check.h"
#include "broker/group/consumer_group_log.h"
#include "broker/group/share_group_log.h"
#include "proto/kafka/consumer_protocol.h"

namespace strata::broker {

bool SupportsProtocols(const GroupMetadata& g, const std::string& type, const std::vector<JoinProtocol>& protocols) {
  if (type.empty() || protocols.empty()) return false;
  if (g.members.empty()) return true;  // the first member sets the protocol type
  if (type != g.protocol_type) return false;
  for (const JoinProtocol& p : protocols) {
    bool everyone = true;
    for (const auto& [id, m] : g.members) {
      if (std::none_of(m.protocols.begin(), m.protocols.end(), [&](const JoinProtocol& q) { return q.name == p.name; })) {
        everyone = false;
        break;
      }
    }
    if (everyone) return true;
  }
  return false;
}

std::vector<const MemberMetadata*> MembersInJoinOrder(const GroupMetadata& g) {
  std::vector<const MemberMetadata*> out;
  for (const auto& [id, m] : g.members) out.push_back(&m);
  std::sort(out.begin(), out.end(), [](const MemberMetadata* a, const MemberMetadata* b) { return a->join_order < b->join_order; });
  return out;
}

std::string SelectProtocol(const GroupMetadata& g) {
  std::vector<const MemberMetadata*> members = MembersInJoinOrder(g);
  ABSL_CHECK(!members.empty());
  auto everyone_supports = [&](const std::string& name) {
    return std::all_of(members.begin(), members.end(), [&](const MemberMetadata* m) {
      return std::any_of(m->protocols.begin(), m->protocols.end(), [&](const JoinProtocol& p) { return p.name == name; });
    });
  };
  std::map<std::string, int> votes;
  std::vector<std::string> order;
  for (const MemberMetadata* m : members) {
    for (const JoinProtocol& p : m->protocols) {
      if (!everyone_supports(p.name)) continue;
      if (votes[p.name]++ == 0) order.push_back(p.name);
      break;
    }
  }
  ABSL_CHECK(!order.empty()) << "group " << g.group_id << " has no protocol every member supports";
  std::string best = order.front();
  for (const std::string& name : order) {
    if (votes[name] > votes[best]) best = name;
  }
  return best;
}

std::string MetadataFor(const MemberMetadata& m, const std::string& protocol) {
  for (const JoinProtocol& p : m.protocols) {
    if (p.name == protocol) return p.metadata;
  }
  return "";
}

JoinGroupResult JoinResultOf(const GroupMetadata& g, const MemberMetadata& m) {
  JoinGroupResult r;
  r.generation_id = g.generation_id;
  r.protocol_type = g.protocol_type;
  r.protocol_name = g.protocol_name;
  r.leader_id = g.leader_id.value_or("");
  r.member_id = m.member_id;
  if (g.leader_id == m.member_id) {
    for (const MemberMetadata* other : MembersInJoinOrder(g)) {
      r.members.push_back({other->member_id, other->group_instance_id, MetadataFor(*other, g.protocol_name.value_or(""))});
    }
  }
  return r;
}

SyncGroupResult SyncResultOf(const GroupMetadata& g, const MemberMetadata& m) {
  SyncGroupResult r;
  r.protocol_type = g.protocol_type;
  r.protocol_name = g.protocol_name;
  r.assignment = m.assignment;
  return r;
}

bool ShouldKeepAlive(const MemberMetadata& m, int64_t now) {
  if (m.awaiting_join) return !m.is_new || m.joined_ms + kNewMemberJoinTimeoutMs > now;
  return static_cast<bool>(m.awaiting_sync);  // the sync deadline decides
}

GroupLogRecord GroupRecordOf(const GroupMetadata& g, const std::map<std::string, std::string>* assignment) {
  GroupValue v;
  v.protocol_type = g.protocol_type;
  v.generation_id = g.generation_id;
  v.protocol_name = g.protocol_name;
  v.leader_id = g.leader_id;
  v.state_timestamp_ms = g.state_timestamp_ms;
  for (const MemberMetadata* m : MembersInJoinOrder(g)) {
    GroupValue::Member vm;
    vm.member_id = m->member_id;
    vm.group_instance_id = m->group_instance_id;
    vm.client_id = m->client_id;
    vm.client_host = m->client_host;
    vm.rebalance_timeout_ms = m->rebalance_timeout_ms;
    vm.session_timeout_ms = m->session_timeout_ms;
    vm.subscription = MetadataFor(*m, g.protocol_name.value_or(""));
    if (assignment != nullptr) {
      auto it = assignment->find(m->member_id);
      vm.assignment = it != assignment->end() ? it->second : "";
    } else {
      vm.assignment = m->assignment;
    }
    v.members.push_back(std::move(vm));
  }
  return {EncodeGroupRecordKey(GroupKey{g.group_id}), EncodeGroupValue(v)};
}

std::vector<GroupLogRecord> GroupTombstonesOf(const GroupMetadata& g) {
  if (g.type == GroupType::kConsumer) return ConsumerTombstonesOf(g.group_id, g.consumer);
  if (g.type == GroupType::kShare) return ShareTombstonesOf(g.group_id, g.share);
  return {{EncodeGroupRecordKey(GroupKey{g.group_id}), std::nullopt}};
}

std::vector<GroupLogRecord> TombstonesOf(const GroupMetadata& g) {
  std::vector<GroupLogRecord> out;
  for (const auto& [tp, v] : g.offsets) {
    out.push_back({EncodeGroupRecordKey(OffsetKey{g.group_id, tp.topic, tp.partition}), std::nullopt});
  }
  std::vector<GroupLogRecord> group = GroupTombstonesOf(g);
  out.insert(out.end(), std::make_move_iterator(group.begin()), std::make_move_iterator(group.end()));
  return out;
}

std::set<std::string> SubscribedTopics(const GroupMetadata& g) {
  std::set<std::string> topics;
  for (const auto& [id, m] : g.consumer.members) {
    topics.insert(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
  }
  for (const auto& [id, m] : g.members) {
    auto sub = proto::kafka::ReadConsumerSubscription(MetadataFor(m, g.protocol_name.value_or("")));
    if (!sub.ok()) continue;
    topics.insert(sub->topics.begin(), sub->topics.end());
  }
  return topics;
}

}  // namespace strata::broker
