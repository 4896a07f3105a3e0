#include "broker/group/share_group_log.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "broker/group/consumer_group_record.h"

namespace strata::broker {
namespace {

GroupLogRecord Record(ConsumerRecordType type, const std::string& group_id, const std::string& member_id,
                      std::optional<std::string> value) {
  return {EncodeGroupRecordKey(ConsumerGroupKey{type, group_id, member_id}), std::move(value)};
}

void TombstoneMember(const std::string& group_id, const std::string& member_id, std::vector<GroupLogRecord>& out) {
  out.push_back(Record(ConsumerRecordType::kShareMemberAssignment, group_id, member_id, std::nullopt));
  out.push_back(Record(ConsumerRecordType::kShareMemberMetadata, group_id, member_id, std::nullopt));
}

}  // namespace

std::vector<GroupLogRecord> ShareRecordsOf(const std::string& group_id, const ShareGroup& g,
                                           const ShareGroupChanges& changes) {
  std::vector<GroupLogRecord> out;
  for (const std::string& id : changes.members_removed) {
    if (g.members.count(id) == 0) TombstoneMember(group_id, id, out);
  }
  if (changes.group_epoch_changed) {
    out.push_back(Record(ConsumerRecordType::kShareGroupMetadata, group_id, "",
                         EncodeConsumerGroupMetadataValue({g.group_epoch, g.subscribed_partitions})));
  }
  for (const std::string& id : changes.members_changed) {
    auto it = g.members.find(id);
    if (it == g.members.end()) continue;
    const ShareGroupMember& m = it->second;
    ConsumerMemberMetadataValue metadata;
    metadata.rack_id = m.rack_id;
    metadata.client_id = m.client_id;
    metadata.client_host = m.client_host;
    metadata.subscribed_topic_names = m.subscribed_topic_names;
    out.push_back(
        Record(ConsumerRecordType::kShareMemberMetadata, group_id, id, EncodeConsumerMemberMetadataValue(metadata)));
    MemberAssignment assignment;
    assignment.member_epoch = m.member_epoch;
    assignment.assigned = m.assignment;
    out.push_back(Record(ConsumerRecordType::kShareMemberAssignment, group_id, id,
                         EncodeConsumerCurrentAssignmentValue(assignment)));
  }
  return out;
}

std::vector<GroupLogRecord> ShareTombstonesOf(const std::string& group_id, const ShareGroup& g) {
  std::vector<GroupLogRecord> out;
  for (const auto& [id, m] : g.members) TombstoneMember(group_id, id, out);
  out.push_back(Record(ConsumerRecordType::kShareGroupMetadata, group_id, "", std::nullopt));
  return out;
}

absl::Status ApplyShareRecord(ShareGroup& g, const ConsumerGroupKey& key, const std::optional<std::string>& value) {
  ABSL_CHECK(IsShareRecordType(key.type)) << "not a share group record: " << static_cast<int>(key.type);
  if (key.type == ConsumerRecordType::kShareGroupMetadata) {
    if (!value) {
      g = ShareGroup{};
      return absl::OkStatus();
    }
    STRATA_ASSIGN_OR_RETURN(ConsumerGroupMetadataValue v, DecodeConsumerGroupMetadataValue(*value));
    g.group_epoch = v.group_epoch;
    g.assignment_epoch = v.group_epoch;
    g.subscribed_partitions = std::move(v.subscribed_partitions);
    return absl::OkStatus();
  }
  if (!value) {
    g.members.erase(key.member_id);  // a member's tombstones: 10 before 9
    return absl::OkStatus();
  }
  if (key.type == ConsumerRecordType::kShareMemberMetadata) {
    STRATA_ASSIGN_OR_RETURN(ConsumerMemberMetadataValue v, DecodeConsumerMemberMetadataValue(*value));
    ShareGroupMember& m = g.members[key.member_id];
    m.member_id = key.member_id;
    m.rack_id = std::move(v.rack_id);
    m.client_id = std::move(v.client_id);
    m.client_host = std::move(v.client_host);
    m.subscribed_topic_names = std::move(v.subscribed_topic_names);
    return absl::OkStatus();
  }
  STRATA_ASSIGN_OR_RETURN(MemberAssignment v, DecodeConsumerCurrentAssignmentValue(*value));
  auto it = g.members.find(key.member_id);
  if (it == g.members.end()) {
    return absl::DataLossError(absl::StrCat("share group ", key.group_id, ": an assignment of member ", key.member_id,
                                            " before its metadata"));
  }
  it->second.member_epoch = v.member_epoch;
  it->second.assignment = std::move(v.assigned);
  return absl::OkStatus();
}

}  // namespace strata::broker
