#include "proto/kafka/heartbeat.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kHeartbeat), version); }

constexpr int16_t kInstanceId = 3;  // group_instance_id

}  // namespace

absl::StatusOr<HeartbeatRequest> ReadHeartbeatRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  HeartbeatRequest req;
  req.group_id = r.String(flexible, "group_id");
  req.generation_id = r.Int32("generation_id");
  req.member_id = r.String(flexible, "member_id");
  if (version >= kInstanceId) req.group_instance_id = r.NullableString(flexible, "group_instance_id");
  if (flexible) r.SkipTaggedFields("HeartbeatRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteHeartbeatRequest(const HeartbeatRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.group_id, flexible);
  w.Int32(req.generation_id);
  w.String(req.member_id, flexible);
  if (version >= kInstanceId) w.NullableString(req.group_instance_id, flexible);
  if (flexible) w.EmptyTaggedFields();
}

void WriteHeartbeatResponse(const HeartbeatResponse& resp, int16_t version, Writer& w) {
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  if (Flexible(version)) w.EmptyTaggedFields();
}

absl::StatusOr<HeartbeatResponse> ReadHeartbeatResponse(Reader& r, int16_t version) {
  HeartbeatResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  if (Flexible(version)) r.SkipTaggedFields("HeartbeatResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
