#include "proto/kafka/consumer_group_describe.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // every version
constexpr int16_t kMemberType = 1;

using Response = ConsumerGroupDescribeResponse;

void WriteMember(const Response::Member& m, int16_t version, Writer& w) {
  w.String(m.member_id, kFlexible);
  w.NullableString(m.instance_id, kFlexible);
  w.NullableString(m.rack_id, kFlexible);
  w.Int32(m.member_epoch);
  w.String(m.client_id, kFlexible);
  w.String(m.client_host, kFlexible);
  WriteStringArray(m.subscribed_topic_names, kFlexible, w);
  w.NullableString(m.subscribed_topic_regex, kFlexible);
  WriteDescribedAssignment(m.assignment, w);
  WriteDescribedAssignment(m.target_assignment, w);
  if (version >= kMemberType) w.Int8(m.member_type);
  w.EmptyTaggedFields();
}

Response::Member ReadMember(Reader& r, int16_t version) {
  Response::Member m;
  m.member_id = r.String(kFlexible, "member_id");
  m.instance_id = r.NullableString(kFlexible, "instance_id");
  m.rack_id = r.NullableString(kFlexible, "rack_id");
  m.member_epoch = r.Int32("member_epoch");
  m.client_id = r.String(kFlexible, "client_id");
  m.client_host = r.String(kFlexible, "client_host");
  m.subscribed_topic_names = ReadStringArray(r, kFlexible, "subscribed_topic_names");
  m.subscribed_topic_regex = r.NullableString(kFlexible, "subscribed_topic_regex");
  m.assignment = ReadDescribedAssignment(r);
  m.target_assignment = ReadDescribedAssignment(r);
  if (version >= kMemberType) m.member_type = r.Int8("member_type");
  r.SkipTaggedFields("Member tagged fields");
  return m;
}

}  // namespace

void WriteDescribedAssignment(const std::vector<Response::TopicPartitions>& topics, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(topics.size()), kFlexible);
  for (const Response::TopicPartitions& t : topics) {
    w.Uuid(t.topic_id);
    w.String(t.topic_name, kFlexible);
    WriteInt32Array(t.partitions, kFlexible, w);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();  // Assignment's
}

std::vector<Response::TopicPartitions> ReadDescribedAssignment(Reader& r) {
  std::vector<Response::TopicPartitions> out;
  int32_t n = r.ArrayLength(kFlexible, "topic_partitions");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    Response::TopicPartitions t;
    t.topic_id = r.Uuid("topic_id");
    t.topic_name = r.String(kFlexible, "topic_name");
    t.partitions = ReadInt32Array(r, kFlexible, "partitions");
    r.SkipTaggedFields("TopicPartitions tagged fields");
    out.push_back(std::move(t));
  }
  r.SkipTaggedFields("Assignment tagged fields");
  return out;
}

absl::StatusOr<ConsumerGroupDescribeRequest> ReadConsumerGroupDescribeRequest(Reader& r, int16_t version) {
  ConsumerGroupDescribeRequest req;
  req.group_ids = ReadStringArray(r, kFlexible, "group_ids");
  req.include_authorized_operations = r.Bool("include_authorized_operations");
  r.SkipTaggedFields("ConsumerGroupDescribeRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteConsumerGroupDescribeRequest(const ConsumerGroupDescribeRequest& req, int16_t version, Writer& w) {
  WriteStringArray(req.group_ids, kFlexible, w);
  w.Bool(req.include_authorized_operations);
  w.EmptyTaggedFields();
}

void WriteConsumerGroupDescribeResponse(const ConsumerGroupDescribeResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.groups.size()), kFlexible);
  for (const Response::Group& g : resp.groups) {
    w.Int16(g.error_code);
    w.NullableString(g.error_message, kFlexible);
    w.String(g.group_id, kFlexible);
    w.String(g.group_state, kFlexible);
    w.Int32(g.group_epoch);
    w.Int32(g.assignment_epoch);
    w.String(g.assignor_name, kFlexible);
    w.ArrayLength(static_cast<int32_t>(g.members.size()), kFlexible);
    for (const Response::Member& m : g.members) WriteMember(m, version, w);
    w.Int32(g.authorized_operations);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<ConsumerGroupDescribeResponse> ReadConsumerGroupDescribeResponse(Reader& r, int16_t version) {
  ConsumerGroupDescribeResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(kFlexible, "groups");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    Response::Group g;
    g.error_code = r.Int16("error_code");
    g.error_message = r.NullableString(kFlexible, "error_message");
    g.group_id = r.String(kFlexible, "group_id");
    g.group_state = r.String(kFlexible, "group_state");
    g.group_epoch = r.Int32("group_epoch");
    g.assignment_epoch = r.Int32("assignment_epoch");
    g.assignor_name = r.String(kFlexible, "assignor_name");
    int32_t members = r.ArrayLength(kFlexible, "members");
    for (int32_t j = 0; r.ok() && j < members; ++j) g.members.push_back(ReadMember(r, version));
    g.authorized_operations = r.Int32("authorized_operations");
    r.SkipTaggedFields("DescribedGroup tagged fields");
    resp.groups.push_back(std::move(g));
  }
  r.SkipTaggedFields("ConsumerGroupDescribeResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
