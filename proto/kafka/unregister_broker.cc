#include "proto/kafka/unregister_broker.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kUnregisterBroker), version); }

}  // namespace

absl::StatusOr<UnregisterBrokerRequest> ReadUnregisterBrokerRequest(Reader& r, int16_t version) {
  UnregisterBrokerRequest req;
  req.broker_id = r.Int32("broker_id");
  if (Flexible(version)) r.SkipTaggedFields("UnregisterBrokerRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteUnregisterBrokerRequest(const UnregisterBrokerRequest& req, int16_t version, Writer& w) {
  w.Int32(req.broker_id);
  if (Flexible(version)) w.EmptyTaggedFields();
}

void WriteUnregisterBrokerResponse(const UnregisterBrokerResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, flexible);
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<UnregisterBrokerResponse> ReadUnregisterBrokerResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  UnregisterBrokerResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(flexible, "error_message");
  if (flexible) r.SkipTaggedFields("UnregisterBrokerResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
