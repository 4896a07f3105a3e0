#include "proto/kafka/find_coordinator.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kFindCoordinator), version); }

constexpr int16_t kBatched = 4;  // the first version with coordinator_keys / coordinators

}  // namespace

absl::StatusOr<FindCoordinatorRequest> ReadFindCoordinatorRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  FindCoordinatorRequest req;
  if (version < kBatched) req.key = r.String(flexible, "key");
  if (version >= 1) req.key_type = r.Int8("key_type");
  if (version >= kBatched) req.coordinator_keys = ReadStringArray(r, flexible, "coordinator_keys");
  if (flexible) r.SkipTaggedFields("FindCoordinatorRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteFindCoordinatorRequest(const FindCoordinatorRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version < kBatched) w.String(req.key, flexible);
  if (version >= 1) w.Int8(req.key_type);
  if (version >= kBatched) WriteStringArray(req.coordinator_keys, flexible, w);
  if (flexible) w.EmptyTaggedFields();
}

void WriteFindCoordinatorResponse(const FindCoordinatorResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  if (version < kBatched) {
    w.Int16(resp.error_code);
    if (version >= 1) w.NullableString(resp.error_message, flexible);
    w.Int32(resp.node_id);
    w.String(resp.host, flexible);
    w.Int32(resp.port);
  } else {
    w.ArrayLength(static_cast<int32_t>(resp.coordinators.size()), flexible);
    for (const auto& c : resp.coordinators) {
      w.String(c.key, flexible);
      w.Int32(c.node_id);
      w.String(c.host, flexible);
      w.Int32(c.port);
      w.Int16(c.error_code);
      w.NullableString(c.error_message, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<FindCoordinatorResponse> ReadFindCoordinatorResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  FindCoordinatorResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version < kBatched) {
    resp.error_code = r.Int16("error_code");
    if (version >= 1) resp.error_message = r.NullableString(flexible, "error_message");
    resp.node_id = r.Int32("node_id");
    resp.host = r.String(flexible, "host");
    resp.port = r.Int32("port");
  } else {
    int32_t n = r.ArrayLength(flexible, "coordinators");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      FindCoordinatorResponse::Coordinator c;
      c.key = r.String(flexible, "key");
      c.node_id = r.Int32("node_id");
      c.host = r.String(flexible, "host");
      c.port = r.Int32("port");
      c.error_code = r.Int16("error_code");
      c.error_message = r.NullableString(flexible, "error_message");
      if (flexible) r.SkipTaggedFields("coordinator tagged fields");
      resp.coordinators.push_back(std::move(c));
    }
  }
  if (flexible) r.SkipTaggedFields("FindCoordinatorResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
