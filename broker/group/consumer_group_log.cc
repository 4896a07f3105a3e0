#include "broker/group/consumer_group_log.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "broker/group/consumer_group_record.h"

namespace strata::broker {
namespace {

GroupLogRecord Record(ConsumerRecordType type, const std::string& group_id, const std::string& member_id,
                      std::optional<std::string> value) {
  return {EncodeGroupRecordKey(ConsumerGroupKey{type, group_id, member_id}), std::move(value)};
}

ConsumerMemberMetadataValue MemberValueOf(const ConsumerGroupMember& m) {
  ConsumerMemberMetadataValue v;
  v.instance_id = m.instance_id;
  v.rack_id = m.rack_id;
  v.client_id = m.client_id;
  v.client_host = m.client_host;
  v.rebalance_timeout_ms = m.rebalance_timeout_ms;
  v.subscribed_topic_names = m.subscribed_topic_names;
  v.subscribed_topic_regex = m.subscribed_topic_regex;
  v.server_assignor = m.server_assignor;
  return v;
}

void TombstoneMember(const std::string& group_id, const std::string& member_id, std::vector<GroupLogRecord>& out) {
  for (ConsumerRecordType type :
       {ConsumerRecordType::kCurrentAssignment, ConsumerRecordType::kTargetMember, ConsumerRecordType::kMemberMetadata}) {
    out.push_back(Record(type, group_id, member_id, std::nullopt));
  }
}

}  // namespace

std::vector<GroupLogRecord> ConsumerRecordsOf(const std::string& group_id, const ConsumerGroup& g,
                                              const ConsumerGroupChanges& changes) {
  std::vector<GroupLogRecord> out;
  for (const std::string& id : changes.members_removed) {
    if (g.members.count(id) == 0) TombstoneMember(group_id, id, out);
  }
  for (const std::string& id : changes.members_changed) {
    auto it = g.members.find(id);
    if (it == g.members.end()) continue;
    out.push_back(Record(ConsumerRecordType::kMemberMetadata, group_id, id,
                         EncodeConsumerMemberMetadataValue(MemberValueOf(it->second))));
  }
  if (changes.group_epoch_changed) {
    out.push_back(Record(ConsumerRecordType::kGroupMetadata, group_id, "",
                         EncodeConsumerGroupMetadataValue({g.group_epoch, g.subscribed_partitions})));
  }
  if (changes.target_changed) {
    for (const auto& [id, m] : g.members) {
      auto target = g.target.find(id);
      static const TopicPartitionSet kNothing;
      out.push_back(Record(ConsumerRecordType::kTargetMember, group_id, id,
                           EncodeConsumerTargetMemberValue(target == g.target.end() ? kNothing : target->second)));
    }
    out.push_back(Record(ConsumerRecordType::kTargetMetadata, group_id, "",
                         EncodeConsumerTargetMetadataValue({g.assignment_epoch, g.assignor})));
  }
  for (const std::string& id : changes.members_changed) {
    auto it = g.members.find(id);
    if (it == g.members.end()) continue;
    out.push_back(Record(ConsumerRecordType::kCurrentAssignment, group_id, id,
                         EncodeConsumerCurrentAssignmentValue(it->second.assignment)));
  }
  return out;
}

std::vector<GroupLogRecord> ConsumerTombstonesOf(const std::string& group_id, const ConsumerGroup& g) {
  std::vector<GroupLogRecord> out;
  for (const auto& [id, m] : g.members) TombstoneMember(group_id, id, out);
  out.push_back(Record(ConsumerRecordType::kTargetMetadata, group_id, "", std::nullopt));
  out.push_back(Record(ConsumerRecordType::kGroupMetadata, group_id, "", std::nullopt));
  return out;
}

absl::Status ApplyConsumerRecord(ConsumerGroup& g, const ConsumerGroupKey& key, const std::optional<std::string>& value) {
  switch (key.type) {
    case ConsumerRecordType::kGroupMetadata: {
      if (!value) {
        g = ConsumerGroup{};
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(ConsumerGroupMetadataValue v, DecodeConsumerGroupMetadataValue(*value));
      g.group_epoch = v.group_epoch;
      g.subscribed_partitions = std::move(v.subscribed_partitions);
      return absl::OkStatus();
    }
    case ConsumerRecordType::kMemberMetadata: {
      if (!value) {
        g.members.erase(key.member_id);
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(ConsumerMemberMetadataValue v, DecodeConsumerMemberMetadataValue(*value));
      ConsumerGroupMember& m = g.members[key.member_id];
      m.member_id = key.member_id;
      m.instance_id = std::move(v.instance_id);
      m.rack_id = std::move(v.rack_id);
      m.client_id = std::move(v.client_id);
      m.client_host = std::move(v.client_host);
      m.rebalance_timeout_ms = v.rebalance_timeout_ms;
      m.subscribed_topic_names = std::move(v.subscribed_topic_names);
      m.subscribed_topic_regex = std::move(v.subscribed_topic_regex);
      m.server_assignor = std::move(v.server_assignor);
      return absl::OkStatus();
    }
    case ConsumerRecordType::kTargetMetadata: {
      if (!value) {
        g.assignment_epoch = 0;
        g.assignor.clear();
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(ConsumerTargetMetadataValue v, DecodeConsumerTargetMetadataValue(*value));
      g.assignment_epoch = v.assignment_epoch;
      g.assignor = std::move(v.assignor);
      return absl::OkStatus();
    }
    case ConsumerRecordType::kTargetMember: {
      if (!value) {
        g.target.erase(key.member_id);
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(TopicPartitionSet v, DecodeConsumerTargetMemberValue(*value));
      if (v.empty()) {
        g.target.erase(key.member_id);
      } else {
        g.target[key.member_id] = std::move(v);
      }
      return absl::OkStatus();
    }
    case ConsumerRecordType::kCurrentAssignment: {
      auto it = g.members.find(key.member_id);
      if (!value) {
        if (it != g.members.end()) it->second.assignment = MemberAssignment{};
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(MemberAssignment v, DecodeConsumerCurrentAssignmentValue(*value));
      if (it == g.members.end()) {
        return absl::DataLossError(absl::StrCat("consumer group ", key.group_id, ": a current assignment of member ",
                                                key.member_id, " before its metadata"));
      }
      it->second.assignment = std::move(v);
      return absl::OkStatus();
    }
    case ConsumerRecordType::kShareGroupMetadata:
    case ConsumerRecordType::kShareMemberMetadata:
    case ConsumerRecordType::kShareMemberAssignment:
      break;  // a share group's (share_group_log.h)
  }
  return absl::DataLossError(absl::StrCat("consumer group record type ", static_cast<int>(key.type)));
}

absl::Status FinishConsumerGroupLoad(ConsumerGroup& g) {
  g.static_members.clear();
  g.partition_epochs.clear();
  for (const auto& [id, m] : g.members) {
    if (m.instance_id) g.static_members[*m.instance_id] = id;
    for (const TopicPartitionSet* set : {&m.assignment.assigned, &m.assignment.pending_revocation}) {
      for (const auto& [topic, partitions] : *set) {
        for (int32_t p : partitions) {
          if (!g.partition_epochs.emplace(std::make_pair(topic, p), m.assignment.member_epoch).second) {
            return absl::DataLossError(absl::StrCat("consumer group: partition ", p, " of a topic held by two members (",
                                                    id, " and another)"));
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::broker
