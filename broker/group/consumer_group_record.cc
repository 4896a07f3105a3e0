#include "broker/group/consumer_group_record.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "broker/group/group_record.h"
#include "proto/kafka/wire.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;

constexpr int16_t kValueVersion = 0;
constexpr bool kClassic = false;  // int16 string lengths, int32 array counts

void WritePartitions(const TopicPartitionSet& set, kafka::Writer& w) {
  w.ArrayLength(static_cast<int32_t>(set.size()), kClassic);
  for (const auto& [topic, partitions] : set) {
    w.Uuid(topic);
    w.ArrayLength(static_cast<int32_t>(partitions.size()), kClassic);
    for (int32_t p : partitions) w.Int32(p);
  }
}

TopicPartitionSet ReadPartitions(kafka::Reader& r, const char* field) {
  TopicPartitionSet set;
  int32_t topics = r.ArrayLength(kClassic, field);
  for (int32_t i = 0; r.ok() && i < topics; ++i) {
    std::string topic = r.Uuid("topic_id");
    int32_t n = r.ArrayLength(kClassic, "partitions");
    std::set<int32_t>& partitions = set[topic];
    for (int32_t j = 0; r.ok() && j < n; ++j) partitions.insert(r.Int32("partition"));
  }
  return set;
}

}  // namespace

std::string EncodeConsumerGroupMetadataValue(const ConsumerGroupMetadataValue& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.Int32(v.group_epoch);
  w.ArrayLength(static_cast<int32_t>(v.subscribed_partitions.size()), kClassic);
  for (const auto& [topic, n] : v.subscribed_partitions) {
    w.Uuid(topic);
    w.Int32(n);
  }
  return out;
}

absl::StatusOr<ConsumerGroupMetadataValue> DecodeConsumerGroupMetadataValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "consumer group metadata value"); !s.ok()) return s;
  ConsumerGroupMetadataValue v;
  v.group_epoch = r.Int32("group_epoch");
  int32_t n = r.ArrayLength(kClassic, "subscribed_partitions");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    std::string topic = r.Uuid("topic_id");
    v.subscribed_partitions[topic] = r.Int32("partitions");
  }
  if (absl::Status s = RecordFullyRead(r, "consumer group metadata value"); !s.ok()) return s;
  return v;
}

std::string EncodeConsumerMemberMetadataValue(const ConsumerMemberMetadataValue& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.NullableString(v.instance_id, kClassic);
  w.NullableString(v.rack_id, kClassic);
  w.String(v.client_id, kClassic);
  w.String(v.client_host, kClassic);
  w.Int32(v.rebalance_timeout_ms);
  w.ArrayLength(static_cast<int32_t>(v.subscribed_topic_names.size()), kClassic);
  for (const std::string& name : v.subscribed_topic_names) w.String(name, kClassic);
  w.NullableString(v.subscribed_topic_regex, kClassic);
  w.NullableString(v.server_assignor, kClassic);
  return out;
}

absl::StatusOr<ConsumerMemberMetadataValue> DecodeConsumerMemberMetadataValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "consumer member metadata value"); !s.ok()) return s;
  ConsumerMemberMetadataValue v;
  v.instance_id = r.NullableString(kClassic, "instance_id");
  v.rack_id = r.NullableString(kClassic, "rack_id");
  v.client_id = r.String(kClassic, "client_id");
  v.client_host = r.String(kClassic, "client_host");
  v.rebalance_timeout_ms = r.Int32("rebalance_timeout_ms");
  int32_t n = r.ArrayLength(kClassic, "subscribed_topic_names");
  for (int32_t i = 0; r.ok() && i < n; ++i) v.subscribed_topic_names.push_back(r.String(kClassic, "topic"));
  v.subscribed_topic_regex = r.NullableString(kClassic, "subscribed_topic_regex");
  v.server_assignor = r.NullableString(kClassic, "server_assignor");
  if (absl::Status s = RecordFullyRead(r, "consumer member metadata value"); !s.ok()) return s;
  return v;
}

std::string EncodeConsumerTargetMetadataValue(const ConsumerTargetMetadataValue& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.Int32(v.assignment_epoch);
  w.String(v.assignor, kClassic);
  return out;
}

absl::StatusOr<ConsumerTargetMetadataValue> DecodeConsumerTargetMetadataValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "consumer target metadata value"); !s.ok()) return s;
  ConsumerTargetMetadataValue v;
  v.assignment_epoch = r.Int32("assignment_epoch");
  v.assignor = r.String(kClassic, "assignor");
  if (absl::Status s = RecordFullyRead(r, "consumer target metadata value"); !s.ok()) return s;
  return v;
}

std::string EncodeConsumerTargetMemberValue(const TopicPartitionSet& partitions) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  WritePartitions(partitions, w);
  return out;
}

absl::StatusOr<TopicPartitionSet> DecodeConsumerTargetMemberValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "consumer target member value"); !s.ok()) return s;
  TopicPartitionSet v = ReadPartitions(r, "partitions");
  if (absl::Status s = RecordFullyRead(r, "consumer target member value"); !s.ok()) return s;
  return v;
}

std::string EncodeConsumerCurrentAssignmentValue(const MemberAssignment& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.Int32(v.member_epoch);
  w.Int32(v.previous_member_epoch);
  w.Int8(static_cast<int8_t>(v.state));
  WritePartitions(v.assigned, w);
  WritePartitions(v.pending_revocation, w);
  return out;
}

absl::StatusOr<MemberAssignment> DecodeConsumerCurrentAssignmentValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "consumer current assignment value"); !s.ok()) return s;
  MemberAssignment v;
  v.member_epoch = r.Int32("member_epoch");
  v.previous_member_epoch = r.Int32("previous_member_epoch");
  int8_t state = r.Int8("state");
  if (r.ok() && (state < 0 || state > static_cast<int8_t>(ConsumerMemberState::kUnreleasedPartitions))) {
    return absl::DataLossError(absl::StrCat("consumer current assignment value: member state ", state,
                                            " is not one this broker reads"));
  }
  v.state = static_cast<ConsumerMemberState>(state);
  v.assigned = ReadPartitions(r, "assigned");
  v.pending_revocation = ReadPartitions(r, "pending_revocation");
  if (absl::Status s = RecordFullyRead(r, "consumer current assignment value"); !s.ok()) return s;
  return v;
}

}  // namespace strata::broker
