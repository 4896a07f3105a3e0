#include "proto/kafka/share_group_describe.h"

#include <utility>

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // every version

using Response = ShareGroupDescribeResponse;

void WriteMember(const Response::Member& m, Writer& w) {
  w.String(m.member_id, kFlexible);
  w.NullableString(m.rack_id, kFlexible);
  w.Int32(m.member_epoch);
  w.String(m.client_id, kFlexible);
  w.String(m.client_host, kFlexible);
  WriteStringArray(m.subscribed_topic_names, kFlexible, w);
  WriteDescribedAssignment(m.assignment, w);
  w.EmptyTaggedFields();
}

Response::Member ReadMember(Reader& r) {
  Response::Member m;
  m.member_id = r.String(kFlexible, "member_id");
  m.rack_id = r.NullableString(kFlexible, "rack_id");
  m.member_epoch = r.Int32("member_epoch");
  m.client_id = r.String(kFlexible, "client_id");
  m.client_host = r.String(kFlexible, "client_host");
  m.subscribed_topic_names = ReadStringArray(r, kFlexible, "subscribed_topic_names");
  m.assignment = ReadDescribedAssignment(r);
  r.SkipTaggedFields("Member tagged fields");
  return m;
}

}  // namespace

void WriteShareGroupDescribeResponse(const ShareGroupDescribeResponse& resp, int16_t /*version*/, Writer& w) {
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
    for (const Response::Member& m : g.members) WriteMember(m, w);
    w.Int32(g.authorized_operations);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<ShareGroupDescribeResponse> ReadShareGroupDescribeResponse(Reader& r, int16_t /*version*/) {
  ShareGroupDescribeResponse resp;
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
    for (int32_t j = 0; r.ok() && j < members; ++j) g.members.push_back(ReadMember(r));
    g.authorized_operations = r.Int32("authorized_operations");
    r.SkipTaggedFields("DescribedGroup tagged fields");
    resp.groups.push_back(std::move(g));
  }
  r.SkipTaggedFields("ShareGroupDescribeResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
