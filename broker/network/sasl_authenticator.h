#pragma once
// SaslAuthenticator: the server side of SASL on a Kafka connection (KIP-43 SaslHandshake
// v0-v1, KIP-152 SaslAuthenticate v0-v2, KIP-368 re-authentication) with the
// mechanisms PLAIN (security/sasl_plain.h), SCRAM-SHA-256/512 (security/scram.h,
// credentials from the metadata image) and OAUTHBEARER (security/oauthbearer.h: JWTs
// checked against a JWKS; with connections.max.reauth.ms, the session also ends with
// the token). A handshake naming a mechanism the listener
// does not enable answers UNSUPPORTED_SASL_MECHANISM with the enabled ones; a failed
// authentication answers SASL_AUTHENTICATION_FAILED with a reason that names nothing of
// the user, counts, and closes the connection (a v0 exchange closes without an answer,
// as Kafka's). Sessions last connections.max.reauth.ms when it is set (0: for ever):
// SaslAuthenticate v1+ tells the client, which re-authenticates in time as the same
// principal; a different principal fails.
// Not thread-safe: one per connection (SaslServerConfig is shared, and thread-safe).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/network/authenticator.h"
#include "security/oauthbearer.h"
#include "security/sasl_plain.h"
#include "security/scram.h"

namespace strata::broker {

// Kafka's successful-authentication-total, failed-authentication-total and
// successful-reauthentication-total, per listener.
struct SaslMetrics {
  std::atomic<int64_t> successful{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> reauthenticated{0};
};

struct SaslServerConfig {
  std::string listener;                 // for the log
  std::vector<std::string> mechanisms;  // sasl.enabled.mechanisms, as named
  std::shared_ptr<const security::PlainUsers> plain_users;  // PLAIN enabled
  // A user's SCRAM credential from the metadata image; nullopt: unknown.
  std::function<std::optional<security::ScramCredential>(security::ScramMechanism, const std::string& user)>
      scram_credential;
  // OAUTHBEARER: the JWKS the tokens are checked against, and the claims' rules.
  std::shared_ptr<security::JwksSource> oauth_jwks;
  security::JwtValidation oauth_validation;
  int64_t max_reauth_ms = 0;  // connections.max.reauth.ms (0: sessions never expire)
  SaslMetrics* metrics = nullptr;
};

class SaslAuthenticator final : public ConnectionAuthenticator {
 public:
  explicit SaslAuthenticator(std::shared_ptr<const SaslServerConfig> config) : config_(std::move(config)) {}

  Answer Handshake(int16_t version, absl::string_view body) override;
  Answer Authenticate(int16_t version, absl::string_view body) override;
  Answer RawToken(absl::string_view token) override;
  bool expects_raw_token() const override { return state_ == State::kRawToken; }
  bool authenticated() const override { return state_ == State::kAuthenticated; }
  const std::string& principal() const override { return principal_; }
  std::chrono::steady_clock::time_point session_expiry() const override { return expiry_; }

 private:
  enum class State { kHandshake, kAuthenticate, kRawToken, kAuthenticated, kFailed };
  // One token of the mechanism's exchange: the server's answer, whether it completed,
  // or the failure.
  struct Step {
    std::string token;
    bool complete = false;
    std::string user;  // once complete
    int64_t expires_at_ms = 0;  // the credential's end (an OAUTHBEARER token's exp); 0: none
  };
  absl::StatusOr<Step> Exchange(absl::string_view token);
  // Completes a successful exchange; the failure when a re-authentication changed the
  // principal.
  absl::Status Complete(const Step& step);
  void CountFailure();

  const std::shared_ptr<const SaslServerConfig> config_;
  State state_ = State::kHandshake;
  bool reauthenticating_ = false;
  std::string mechanism_;
  std::unique_ptr<security::ScramServer> scram_;
  std::string principal_ = "User:ANONYMOUS";
  std::chrono::steady_clock::time_point expiry_ = std::chrono::steady_clock::time_point::max();
};

}  // namespace strata::broker
