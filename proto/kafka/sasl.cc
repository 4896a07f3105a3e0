#include "proto/kafka/sasl.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kSaslAuthenticate), version); }

}  // namespace

absl::StatusOr<SaslHandshakeRequest> ReadSaslHandshakeRequest(Reader& r, int16_t) {
  SaslHandshakeRequest req;
  req.mechanism = r.String(false, "mechanism");
  if (!r.ok()) return r.status();
  return req;
}

void WriteSaslHandshakeRequest(const SaslHandshakeRequest& req, int16_t, Writer& w) { w.String(req.mechanism, false); }

void WriteSaslHandshakeResponse(const SaslHandshakeResponse& resp, int16_t, Writer& w) {
  w.Int16(resp.error_code);
  w.ArrayLength(static_cast<int32_t>(resp.mechanisms.size()), false);
  for (const std::string& m : resp.mechanisms) w.String(m, false);
}

absl::StatusOr<SaslHandshakeResponse> ReadSaslHandshakeResponse(Reader& r, int16_t) {
  SaslHandshakeResponse resp;
  resp.error_code = r.Int16("error_code");
  int32_t n = r.ArrayLength(false, "mechanisms");
  for (int32_t i = 0; i < n && r.ok(); ++i) resp.mechanisms.push_back(r.String(false, "mechanism"));
  if (!r.ok()) return r.status();
  return resp;
}

absl::StatusOr<SaslAuthenticateRequest> ReadSaslAuthenticateRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  SaslAuthenticateRequest req;
  req.auth_bytes = r.Bytes(flexible, "auth_bytes");
  if (flexible) r.SkipTaggedFields("SaslAuthenticateRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteSaslAuthenticateRequest(const SaslAuthenticateRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Bytes(req.auth_bytes, flexible);
  if (flexible) w.EmptyTaggedFields();
}

void WriteSaslAuthenticateResponse(const SaslAuthenticateResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, flexible);
  w.Bytes(resp.auth_bytes, flexible);
  if (version >= 1) w.Int64(resp.session_lifetime_ms);
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<SaslAuthenticateResponse> ReadSaslAuthenticateResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  SaslAuthenticateResponse resp;
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(flexible, "error_message");
  resp.auth_bytes = r.Bytes(flexible, "auth_bytes");
  if (version >= 1) resp.session_lifetime_ms = r.Int64("session_lifetime_ms");
  if (flexible) r.SkipTaggedFields("SaslAuthenticateResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
