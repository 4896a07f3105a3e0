#pragma once
// The client's side of Kafka's SASL exchange on a KafkaConnection: SaslHandshake v1 naming
// the mechanism, then SaslAuthenticate v2 frames carrying PLAIN's token (RFC 4616) or
// SCRAM's messages (RFC 5802, security/scram.h; the broker's signature is checked, so a
// broker that does not know the credential cannot pass itself off as one that does).
// Thread-safe (a function; the connection is the caller's).

#include <chrono>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/client_security.h"

namespace strata::client {

// One request-response exchange with the broker (a KafkaConnection's Call): the
// response body.
using SaslCall = std::function<absl::StatusOr<std::string>(int16_t api_key, int16_t api_version,
                                                           absl::string_view body)>;

// Authenticates the connection `call` reaches (`name`: the broker, for messages; no
// request in flight) with security's mechanism and credentials; returns the session
// lifetime the broker gave (0: unlimited, KIP-368). UNAUTHENTICATED with the broker's
// reason when it refuses the credentials, FAILED_PRECONDITION when it does not enable
// the mechanism.
absl::StatusOr<std::chrono::milliseconds> SaslAuthenticate(const SaslCall& call, const std::string& name,
                                                           const ClientSecurity& security);

}  // namespace strata::client
