#include "proto/kafka/describe_groups.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kDescribeGroups), version); }

constexpr int16_t kAuthorizedOperations = 3;
constexpr int16_t kInstanceId = 4;

}  // namespace

absl::StatusOr<DescribeGroupsRequest> ReadDescribeGroupsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DescribeGroupsRequest req;
  req.groups = ReadStringArray(r, flexible, "groups");
  if (version >= kAuthorizedOperations) req.include_authorized_operations = r.Bool("include_authorized_operations");
  if (flexible) r.SkipTaggedFields("DescribeGroupsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeGroupsRequest(const DescribeGroupsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  WriteStringArray(req.groups, flexible, w);
  if (version >= kAuthorizedOperations) w.Bool(req.include_authorized_operations);
  if (flexible) w.EmptyTaggedFields();
}

void WriteDescribeGroupsResponse(const DescribeGroupsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.groups.size()), flexible);
  for (const auto& g : resp.groups) {
    w.Int16(g.error_code);
    w.String(g.group_id, flexible);
    w.String(g.group_state, flexible);
    w.String(g.protocol_type, flexible);
    w.String(g.protocol_data, flexible);
    w.ArrayLength(static_cast<int32_t>(g.members.size()), flexible);
    for (const auto& m : g.members) {
      w.String(m.member_id, flexible);
      if (version >= kInstanceId) w.NullableString(m.group_instance_id, flexible);
      w.String(m.client_id, flexible);
      w.String(m.client_host, flexible);
      w.Bytes(m.member_metadata, flexible);
      w.Bytes(m.member_assignment, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (version >= kAuthorizedOperations) w.Int32(g.authorized_operations);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<DescribeGroupsResponse> ReadDescribeGroupsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DescribeGroupsResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t ng = r.ArrayLength(flexible, "groups");
  for (int32_t i = 0; i < ng && r.ok(); ++i) {
    DescribeGroupsResponse::Group g;
    g.error_code = r.Int16("error_code");
    g.group_id = r.String(flexible, "group_id");
    g.group_state = r.String(flexible, "group_state");
    g.protocol_type = r.String(flexible, "protocol_type");
    g.protocol_data = r.String(flexible, "protocol_data");
    int32_t nm = r.ArrayLength(flexible, "members");
    for (int32_t j = 0; j < nm && r.ok(); ++j) {
      DescribeGroupsResponse::Member m;
      m.member_id = r.String(flexible, "member_id");
      if (version >= kInstanceId) m.group_instance_id = r.NullableString(flexible, "group_instance_id");
      m.client_id = r.String(flexible, "client_id");
      m.client_host = r.String(flexible, "client_host");
      m.member_metadata = r.Bytes(flexible, "member_metadata");
      m.member_assignment = r.Bytes(flexible, "member_assignment");
      if (flexible) r.SkipTaggedFields("member tagged fields");
      g.members.push_back(std::move(m));
    }
    if (version >= kAuthorizedOperations) g.authorized_operations = r.Int32("authorized_operations");
    if (flexible) r.SkipTaggedFields("group tagged fields");
    resp.groups.push_back(std::move(g));
  }
  if (flexible) r.SkipTaggedFields("DescribeGroupsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
