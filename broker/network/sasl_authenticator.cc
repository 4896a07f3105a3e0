#include "broker/network/sasl_authenticator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/sasl.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using Clock = std::chrono::steady_clock;

std::string HandshakeBody(int16_t version, const kafka::SaslHandshakeResponse& response) {
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteSaslHandshakeResponse(response, version, w);
  return body;
}

std::string AuthenticateBody(int16_t version, const kafka::SaslAuthenticateResponse& response) {
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteSaslAuthenticateResponse(response, version, w);
  return body;
}

ConnectionAuthenticator::Answer Refuse(std::string body, std::string why) {
  return {.body = std::move(body), .close = true, .why = std::move(why)};
}

}  // namespace

void SaslAuthenticator::CountFailure() {
  state_ = State::kFailed;
  if (config_->metrics != nullptr) ++config_->metrics->failed;
}

ConnectionAuthenticator::Answer SaslAuthenticator::Handshake(int16_t version, absl::string_view body) {
  kafka::Reader reader(body);
  auto request = kafka::ReadSaslHandshakeRequest(reader, version);
  if (!request.ok()) return {.close = true, .respond = false, .why = std::string(request.status().message())};
  kafka::SaslHandshakeResponse response;
  response.mechanisms = config_->mechanisms;
  if (state_ == State::kAuthenticated && version >= 1) {
    reauthenticating_ = true;  // KIP-368: the session goes on meanwhile
  } else if (state_ != State::kHandshake) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kIllegalSaslState);
    return Refuse(HandshakeBody(version, response), "an unexpected SaslHandshake");
  }
  if (std::find(config_->mechanisms.begin(), config_->mechanisms.end(), request->mechanism) ==
      config_->mechanisms.end()) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kUnsupportedSaslMechanism);
    CountFailure();
    return Refuse(HandshakeBody(version, response),
                  absl::StrCat("SASL mechanism '", request->mechanism, "' is not enabled (",
                               absl::StrJoin(config_->mechanisms, ","), ")"));
  }
  if (reauthenticating_ && request->mechanism != mechanism_) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kIllegalSaslState);
    CountFailure();
    return Refuse(HandshakeBody(version, response), "a re-authentication must keep the mechanism");
  }
  mechanism_ = request->mechanism;
  scram_.reset();
  if (auto scram = security::ScramMechanismNamed(mechanism_)) {
    auto lookup = [config = config_, m = *scram](const std::string& user) {
      return config->scram_credential ? config->scram_credential(m, user) : std::nullopt;
    };
    scram_ = std::make_unique<security::ScramServer>(*scram, lookup);
  }
  state_ = version == 0 ? State::kRawToken : State::kAuthenticate;
  return {.body = HandshakeBody(version, response)};
}

absl::StatusOr<SaslAuthenticator::Step> SaslAuthenticator::Exchange(absl::string_view token) {
  if (scram_ != nullptr) {
    auto answer = scram_->Step(token);
    if (!answer.ok()) return answer.status();
    return Step{.token = *std::move(answer), .complete = scram_->complete(), .user = scram_->username()};
  }
  if (mechanism_ == "OAUTHBEARER" && config_->oauth_jwks != nullptr) {
    auto identity = security::AuthenticateOAuthBearer(token, *config_->oauth_jwks, config_->oauth_validation,
                                                      absl::ToUnixMillis(absl::Now()));
    if (!identity.ok()) return identity.status();
    return Step{.complete = true, .user = identity->subject, .expires_at_ms = identity->expires_at_ms};
  }
  if (mechanism_ == "PLAIN" && config_->plain_users != nullptr) {
    auto user = config_->plain_users->Authenticate(token);
    if (!user.ok()) return user.status();
    return Step{.complete = true, .user = *std::move(user)};
  }
  return absl::UnauthenticatedError(absl::StrCat("SASL mechanism ", mechanism_, " is not served"));
}

absl::Status SaslAuthenticator::Complete(const Step& step) {
  std::string principal = absl::StrCat("User:", step.user);
  if (reauthenticating_ && principal != principal_) {
    return absl::UnauthenticatedError("a re-authentication must keep the principal");
  }
  if (config_->metrics != nullptr) ++(reauthenticating_ ? config_->metrics->reauthenticated : config_->metrics->successful);
  principal_ = std::move(principal);
  reauthenticating_ = false;
  state_ = State::kAuthenticated;
  expiry_ = Clock::time_point::max();
  if (config_->max_reauth_ms > 0) {
    // KIP-368: the session ends at connections.max.reauth.ms, or with the credential.
    int64_t lifetime_ms = config_->max_reauth_ms;
    if (step.expires_at_ms > 0) {
      lifetime_ms = std::min(lifetime_ms, std::max<int64_t>(0, step.expires_at_ms - absl::ToUnixMillis(absl::Now())));
    }
    expiry_ = Clock::now() + std::chrono::milliseconds(lifetime_ms);
  }
  return absl::OkStatus();
}

ConnectionAuthenticator::Answer SaslAuthenticator::Authenticate(int16_t version, absl::string_view body) {
  kafka::Reader reader(body);
  auto request = kafka::ReadSaslAuthenticateRequest(reader, version);
  if (!request.ok()) return {.close = true, .respond = false, .why = std::string(request.status().message())};
  kafka::SaslAuthenticateResponse response;
  if (state_ != State::kAuthenticate) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kIllegalSaslState);
    response.error_message = "SaslAuthenticate before SaslHandshake";
    return Refuse(AuthenticateBody(version, response), "SaslAuthenticate before SaslHandshake");
  }
  absl::StatusOr<Step> step = Exchange(request->auth_bytes);
  absl::Status done = step.ok() && step->complete ? Complete(*step) : absl::OkStatus();
  if (!step.ok() || !done.ok()) {
    absl::Status failure = step.ok() ? done : step.status();
    CountFailure();
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kSaslAuthenticationFailed);
    response.error_message = std::string(failure.message());
    return Refuse(AuthenticateBody(version, response),
                  absl::StrCat(mechanism_, " authentication failed: ", failure.message()));
  }
  response.auth_bytes = step->token;
  if (step->complete && expiry_ != Clock::time_point::max()) {
    response.session_lifetime_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(expiry_ - Clock::now()).count();
  }
  return {.body = AuthenticateBody(version, response)};
}

ConnectionAuthenticator::Answer SaslAuthenticator::RawToken(absl::string_view token) {
  absl::StatusOr<Step> step = Exchange(token);
  absl::Status done = step.ok() && step->complete ? Complete(*step) : absl::OkStatus();
  if (!step.ok() || !done.ok()) {
    CountFailure();
    return {.close = true,
            .respond = false,
            .why = absl::StrCat(mechanism_, " authentication failed: ", (step.ok() ? done : step.status()).message())};
  }
  return {.body = step->token};
}

}  // namespace strata::broker
