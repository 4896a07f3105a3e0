#include "proto/kafka/leave_group.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kLeaveGroup), version); }

constexpr int16_t kBatched = 3;  // members instead of member_id
constexpr int16_t kReason = 5;

}  // namespace

absl::StatusOr<LeaveGroupRequest> ReadLeaveGroupRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  LeaveGroupRequest req;
  req.group_id = r.String(flexible, "group_id");
  if (version < kBatched) {
    req.member_id = r.String(flexible, "member_id");
  } else {
    int32_t n = r.ArrayLength(flexible, "members");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      LeaveGroupRequest::Member m;
      m.member_id = r.String(flexible, "member member_id");
      m.group_instance_id = r.NullableString(flexible, "member group_instance_id");
      if (version >= kReason) m.reason = r.NullableString(flexible, "member reason");
      if (flexible) r.SkipTaggedFields("member tagged fields");
      req.members.push_back(std::move(m));
    }
  }
  if (flexible) r.SkipTaggedFields("LeaveGroupRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteLeaveGroupRequest(const LeaveGroupRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.group_id, flexible);
  if (version < kBatched) {
    w.String(req.member_id, flexible);
  } else {
    w.ArrayLength(static_cast<int32_t>(req.members.size()), flexible);
    for (const auto& m : req.members) {
      w.String(m.member_id, flexible);
      w.NullableString(m.group_instance_id, flexible);
      if (version >= kReason) w.NullableString(m.reason, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteLeaveGroupResponse(const LeaveGroupResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  if (version >= kBatched) {
    w.ArrayLength(static_cast<int32_t>(resp.members.size()), flexible);
    for (const auto& m : resp.members) {
      w.String(m.member_id, flexible);
      w.NullableString(m.group_instance_id, flexible);
      w.Int16(m.error_code);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<LeaveGroupResponse> ReadLeaveGroupResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  LeaveGroupResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  if (version >= kBatched) {
    int32_t n = r.ArrayLength(flexible, "members");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      LeaveGroupResponse::Member m;
      m.member_id = r.String(flexible, "member member_id");
      m.group_instance_id = r.NullableString(flexible, "member group_instance_id");
      m.error_code = r.Int16("member error_code");
      if (flexible) r.SkipTaggedFields("member tagged fields");
      resp.members.push_back(std::move(m));
    }
  }
  if (flexible) r.SkipTaggedFields("LeaveGroupResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
