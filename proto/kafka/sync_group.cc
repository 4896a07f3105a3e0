#include "proto/kafka/sync_group.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kSyncGroup), version); }

constexpr int16_t kInstanceId = 3;  // group_instance_id
constexpr int16_t kProtocol = 5;    // protocol_type and protocol_name

}  // namespace

absl::StatusOr<SyncGroupRequest> ReadSyncGroupRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  SyncGroupRequest req;
  req.group_id = r.String(flexible, "group_id");
  req.generation_id = r.Int32("generation_id");
  req.member_id = r.String(flexible, "member_id");
  if (version >= kInstanceId) req.group_instance_id = r.NullableString(flexible, "group_instance_id");
  if (version >= kProtocol) {
    req.protocol_type = r.NullableString(flexible, "protocol_type");
    req.protocol_name = r.NullableString(flexible, "protocol_name");
  }
  int32_t n = r.ArrayLength(flexible, "assignments");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    SyncGroupRequest::Assignment a;
    a.member_id = r.String(flexible, "assignment member_id");
    a.assignment = r.Bytes(flexible, "assignment");
    if (flexible) r.SkipTaggedFields("assignment tagged fields");
    req.assignments.push_back(std::move(a));
  }
  if (flexible) r.SkipTaggedFields("SyncGroupRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteSyncGroupRequest(const SyncGroupRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.group_id, flexible);
  w.Int32(req.generation_id);
  w.String(req.member_id, flexible);
  if (version >= kInstanceId) w.NullableString(req.group_instance_id, flexible);
  if (version >= kProtocol) {
    w.NullableString(req.protocol_type, flexible);
    w.NullableString(req.protocol_name, flexible);
  }
  w.ArrayLength(static_cast<int32_t>(req.assignments.size()), flexible);
  for (const auto& a : req.assignments) {
    w.String(a.member_id, flexible);
    w.Bytes(a.assignment, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteSyncGroupResponse(const SyncGroupResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  if (version >= kProtocol) {
    w.NullableString(resp.protocol_type, flexible);
    w.NullableString(resp.protocol_name, flexible);
  }
  w.Bytes(resp.assignment, flexible);
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<SyncGroupResponse> ReadSyncGroupResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  SyncGroupResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  if (version >= kProtocol) {
    resp.protocol_type = r.NullableString(flexible, "protocol_type");
    resp.protocol_name = r.NullableString(flexible, "protocol_name");
  }
  resp.assignment = r.Bytes(flexible, "assignment");
  if (flexible) r.SkipTaggedFields("SyncGroupResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
