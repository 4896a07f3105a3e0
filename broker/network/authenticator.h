#pragma once
// How a connection of a SASL listener (SASL_PLAINTEXT, SASL_SSL) authenticates: the
// listener hands each connection's authenticator the SaslHandshake and SaslAuthenticate
// requests (and, after a v0 handshake, the raw token frames), serves ApiVersions before
// authentication as Kafka does, and closes the connection on any other request until
// authenticated() — and, once the session expired (KIP-368), on any request but a
// re-authentication. sasl_authenticator.h is the implementation.
// Not thread-safe: one per connection, called on its network thread.

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace strata::broker {

class ConnectionAuthenticator {
 public:
  struct Answer {
    std::string body;    // the response body (after a v0 handshake: the raw token)
    bool close = false;  // close the connection once the answer is written (a failure)
    bool respond = true;  // false: close without an answer (a failed v0 exchange)
    std::string why;     // for the log when closing
  };
  virtual ~ConnectionAuthenticator() = default;

  virtual Answer Handshake(int16_t version, absl::string_view body) = 0;
  virtual Answer Authenticate(int16_t version, absl::string_view body) = 0;
  virtual Answer RawToken(absl::string_view token) = 0;
  // After a v0 handshake the next frame is a token without a Kafka header.
  virtual bool expects_raw_token() const = 0;
  // Authenticated, and not in the middle of a re-authentication.
  virtual bool authenticated() const = 0;
  // "User:<name>" once authenticated.
  virtual const std::string& principal() const = 0;
  // When the session ends (time_point::max(): never); requests after it close the
  // connection unless they re-authenticate.
  virtual std::chrono::steady_clock::time_point session_expiry() const = 0;
};

}  // namespace strata::broker
