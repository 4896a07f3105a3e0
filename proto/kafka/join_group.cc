#include "proto/kafka/join_group.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kJoinGroup), version); }

constexpr int16_t kInstanceId = 5;      // group_instance_id
constexpr int16_t kProtocolType = 7;    // the response's protocol_type; protocol_name nullable
constexpr int16_t kReason = 8;          // the request's reason
constexpr int16_t kSkipAssignment = 9;

}  // namespace

absl::StatusOr<JoinGroupRequest> ReadJoinGroupRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  JoinGroupRequest req;
  req.group_id = r.String(flexible, "group_id");
  req.session_timeout_ms = r.Int32("session_timeout_ms");
  if (version >= 1) req.rebalance_timeout_ms = r.Int32("rebalance_timeout_ms");
  req.member_id = r.String(flexible, "member_id");
  if (version >= kInstanceId) req.group_instance_id = r.NullableString(flexible, "group_instance_id");
  req.protocol_type = r.String(flexible, "protocol_type");
  int32_t n = r.ArrayLength(flexible, "protocols");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    JoinGroupRequest::Protocol p;
    p.name = r.String(flexible, "protocol name");
    p.metadata = r.Bytes(flexible, "protocol metadata");
    if (flexible) r.SkipTaggedFields("protocol tagged fields");
    req.protocols.push_back(std::move(p));
  }
  if (version >= kReason) req.reason = r.NullableString(flexible, "reason");
  if (flexible) r.SkipTaggedFields("JoinGroupRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteJoinGroupRequest(const JoinGroupRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.group_id, flexible);
  w.Int32(req.session_timeout_ms);
  if (version >= 1) w.Int32(req.rebalance_timeout_ms);
  w.String(req.member_id, flexible);
  if (version >= kInstanceId) w.NullableString(req.group_instance_id, flexible);
  w.String(req.protocol_type, flexible);
  w.ArrayLength(static_cast<int32_t>(req.protocols.size()), flexible);
  for (const auto& p : req.protocols) {
    w.String(p.name, flexible);
    w.Bytes(p.metadata, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= kReason) w.NullableString(req.reason, flexible);
  if (flexible) w.EmptyTaggedFields();
}

void WriteJoinGroupResponse(const JoinGroupResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 2) w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.Int32(resp.generation_id);
  if (version >= kProtocolType) {
    w.NullableString(resp.protocol_type, flexible);
    w.NullableString(resp.protocol_name, flexible);
  } else {
    w.String(resp.protocol_name.value_or(""), flexible);
  }
  w.String(resp.leader, flexible);
  if (version >= kSkipAssignment) w.Bool(resp.skip_assignment);
  w.String(resp.member_id, flexible);
  w.ArrayLength(static_cast<int32_t>(resp.members.size()), flexible);
  for (const auto& m : resp.members) {
    w.String(m.member_id, flexible);
    if (version >= kInstanceId) w.NullableString(m.group_instance_id, flexible);
    w.Bytes(m.metadata, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<JoinGroupResponse> ReadJoinGroupResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  JoinGroupResponse resp;
  if (version >= 2) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.generation_id = r.Int32("generation_id");
  if (version >= kProtocolType) {
    resp.protocol_type = r.NullableString(flexible, "protocol_type");
    resp.protocol_name = r.NullableString(flexible, "protocol_name");
  } else {
    resp.protocol_name = r.String(flexible, "protocol_name");
  }
  resp.leader = r.String(flexible, "leader");
  if (version >= kSkipAssignment) resp.skip_assignment = r.Bool("skip_assignment");
  resp.member_id = r.String(flexible, "member_id");
  int32_t n = r.ArrayLength(flexible, "members");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    JoinGroupResponse::Member m;
    m.member_id = r.String(flexible, "member member_id");
    if (version >= kInstanceId) m.group_instance_id = r.NullableString(flexible, "member group_instance_id");
    m.metadata = r.Bytes(flexible, "member metadata");
    if (flexible) r.SkipTaggedFields("member tagged fields");
    resp.members.push_back(std::move(m));
  }
  if (flexible) r.SkipTaggedFields("JoinGroupResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
