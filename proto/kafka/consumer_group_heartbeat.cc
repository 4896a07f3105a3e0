#include "proto/kafka/consumer_group_heartbeat.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;   // every version
constexpr int16_t kRegex = 1;      // subscribed_topic_regex

}  // namespace

void WriteTopicIdPartitions(const std::vector<TopicIdPartitions>& topics, Writer& w) {
  for (const TopicIdPartitions& t : topics) {
    w.Uuid(t.topic_id);
    WriteInt32Array(t.partitions, kFlexible, w);
    w.EmptyTaggedFields();
  }
}

std::vector<TopicIdPartitions> ReadTopicIdPartitions(Reader& r, int32_t count, const char* field) {
  std::vector<TopicIdPartitions> out;
  for (int32_t i = 0; r.ok() && i < count; ++i) {
    TopicIdPartitions t;
    t.topic_id = r.Uuid("topic_id");
    t.partitions = ReadInt32Array(r, kFlexible, "partitions");
    r.SkipTaggedFields(field);
    out.push_back(std::move(t));
  }
  return out;
}

absl::StatusOr<ConsumerGroupHeartbeatRequest> ReadConsumerGroupHeartbeatRequest(Reader& r, int16_t version) {
  ConsumerGroupHeartbeatRequest req;
  req.group_id = r.String(kFlexible, "group_id");
  req.member_id = r.String(kFlexible, "member_id");
  req.member_epoch = r.Int32("member_epoch");
  req.instance_id = r.NullableString(kFlexible, "instance_id");
  req.rack_id = r.NullableString(kFlexible, "rack_id");
  req.rebalance_timeout_ms = r.Int32("rebalance_timeout_ms");
  req.subscribed_topic_names = ReadNullableStringArray(r, kFlexible, "subscribed_topic_names");
  if (version >= kRegex) req.subscribed_topic_regex = r.NullableString(kFlexible, "subscribed_topic_regex");
  req.server_assignor = r.NullableString(kFlexible, "server_assignor");
  int32_t n = r.ArrayLength(kFlexible, "topic_partitions");
  if (n >= 0) req.topic_partitions = ReadTopicIdPartitions(r, n, "TopicPartitions tagged fields");
  r.SkipTaggedFields("ConsumerGroupHeartbeatRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteConsumerGroupHeartbeatRequest(const ConsumerGroupHeartbeatRequest& req, int16_t version, Writer& w) {
  w.String(req.group_id, kFlexible);
  w.String(req.member_id, kFlexible);
  w.Int32(req.member_epoch);
  w.NullableString(req.instance_id, kFlexible);
  w.NullableString(req.rack_id, kFlexible);
  w.Int32(req.rebalance_timeout_ms);
  WriteNullableStringArray(req.subscribed_topic_names, kFlexible, w);
  if (version >= kRegex) w.NullableString(req.subscribed_topic_regex, kFlexible);
  w.NullableString(req.server_assignor, kFlexible);
  if (req.topic_partitions) {
    w.ArrayLength(static_cast<int32_t>(req.topic_partitions->size()), kFlexible);
    WriteTopicIdPartitions(*req.topic_partitions, w);
  } else {
    w.ArrayLength(-1, kFlexible);
  }
  w.EmptyTaggedFields();
}

void WriteConsumerGroupHeartbeatResponse(const ConsumerGroupHeartbeatResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  w.NullableString(resp.member_id, kFlexible);
  w.Int32(resp.member_epoch);
  w.Int32(resp.heartbeat_interval_ms);
  if (resp.assignment) {
    w.Int8(1);  // a nullable struct: present
    w.ArrayLength(static_cast<int32_t>(resp.assignment->size()), kFlexible);
    WriteTopicIdPartitions(*resp.assignment, w);
    w.EmptyTaggedFields();  // Assignment's
  } else {
    w.Int8(-1);
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<ConsumerGroupHeartbeatResponse> ReadConsumerGroupHeartbeatResponse(Reader& r, int16_t version) {
  ConsumerGroupHeartbeatResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  resp.member_id = r.NullableString(kFlexible, "member_id");
  resp.member_epoch = r.Int32("member_epoch");
  resp.heartbeat_interval_ms = r.Int32("heartbeat_interval_ms");
  if (r.Int8("assignment") >= 0) {
    int32_t n = r.ArrayLength(kFlexible, "topic_partitions");
    resp.assignment = ReadTopicIdPartitions(r, n, "TopicPartitions tagged fields");
    r.SkipTaggedFields("Assignment tagged fields");
  }
  r.SkipTaggedFields("ConsumerGroupHeartbeatResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
