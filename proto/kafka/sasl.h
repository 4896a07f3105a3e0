#pragma once
// The SASL exchange on a Kafka connection (KIP-43, KIP-152, KIP-368).
// SaslHandshake (key 17) v0-v1: the client names a mechanism; the response lists the
// broker's. After v0 the tokens follow as raw size-prefixed frames without a Kafka
// header; after v1 each token travels in a SaslAuthenticate request.
// SaslAuthenticate (key 36) v0-v2: one token each way; v1 adds the session lifetime
// (KIP-368: the client re-authenticates within it), v2 is flexible.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct SaslHandshakeRequest {
  std::string mechanism;
  bool operator==(const SaslHandshakeRequest&) const = default;
};

struct SaslHandshakeResponse {
  int16_t error_code = 0;
  std::vector<std::string> mechanisms;
  bool operator==(const SaslHandshakeResponse&) const = default;
};

struct SaslAuthenticateRequest {
  std::string auth_bytes;
  bool operator==(const SaslAuthenticateRequest&) const = default;
};

struct SaslAuthenticateResponse {
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::string auth_bytes;
  int64_t session_lifetime_ms = 0;  // v1+; 0: no limit
  bool operator==(const SaslAuthenticateResponse&) const = default;
};

absl::StatusOr<SaslHandshakeRequest> ReadSaslHandshakeRequest(Reader& reader, int16_t version);
void WriteSaslHandshakeRequest(const SaslHandshakeRequest& request, int16_t version, Writer& writer);
void WriteSaslHandshakeResponse(const SaslHandshakeResponse& response, int16_t version, Writer& writer);
absl::StatusOr<SaslHandshakeResponse> ReadSaslHandshakeResponse(Reader& reader, int16_t version);

absl::StatusOr<SaslAuthenticateRequest> ReadSaslAuthenticateRequest(Reader& reader, int16_t version);
void WriteSaslAuthenticateRequest(const SaslAuthenticateRequest& request, int16_t version, Writer& writer);
void WriteSaslAuthenticateResponse(const SaslAuthenticateResponse& response, int16_t version, Writer& writer);
absl::StatusOr<SaslAuthenticateResponse> ReadSaslAuthenticateResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
