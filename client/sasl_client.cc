#include "client/sasl_client.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/sasl.h"
#include "security/scram.h"

namespace strata::client {

namespace kafka = strata::proto::kafka;

namespace {

constexpr int16_t kHandshakeVersion = 1;
constexpr int16_t kAuthenticateVersion = 2;

// One SaslAuthenticate round: the broker's bytes, or its refusal.
absl::StatusOr<kafka::SaslAuthenticateResponse> Round(const SaslCall& call, const std::string& name,
                                                       std::string bytes) {
  std::string body;
  kafka::Writer writer(&body);
  kafka::WriteSaslAuthenticateRequest({std::move(bytes)}, kAuthenticateVersion, writer);
  auto answer = call(static_cast<int16_t>(kafka::ApiKey::kSaslAuthenticate), kAuthenticateVersion, body);
  if (!answer.ok()) return answer.status();
  kafka::Reader reader(*answer);
  auto response = kafka::ReadSaslAuthenticateResponse(reader, kAuthenticateVersion);
  if (!response.ok()) {
    return absl::DataLossError(absl::StrCat(name, " answered a bad SaslAuthenticate: ",
                                            response.status().message()));
  }
  if (response->error_code != 0) {
    return absl::UnauthenticatedError(
        absl::StrCat(name, " refused the SASL authentication: ",
                     response->error_message.value_or(
                         std::string(kafka::ErrorName(static_cast<kafka::ErrorCode>(response->error_code))))));
  }
  return response;
}

}  // namespace

absl::StatusOr<std::chrono::milliseconds> SaslAuthenticate(const SaslCall& call, const std::string& name,
                                                           const ClientSecurity& security) {
  {
    std::string body;
    kafka::Writer writer(&body);
    kafka::WriteSaslHandshakeRequest({security.sasl_mechanism}, kHandshakeVersion, writer);
    auto answer = call(static_cast<int16_t>(kafka::ApiKey::kSaslHandshake), kHandshakeVersion, body);
    if (!answer.ok()) return answer.status();
    kafka::Reader reader(*answer);
    auto response = kafka::ReadSaslHandshakeResponse(reader, kHandshakeVersion);
    if (!response.ok()) {
      return absl::DataLossError(absl::StrCat(name, " answered a bad SaslHandshake: ",
                                              response.status().message()));
    }
    if (response->error_code != 0) {
      return absl::FailedPreconditionError(absl::StrCat(name, " does not enable SASL mechanism ",
                                                        security.sasl_mechanism, " (it enables ",
                                                        absl::StrJoin(response->mechanisms, ", "), ")"));
    }
  }
  kafka::SaslAuthenticateResponse last;
  if (security.sasl_mechanism == "PLAIN") {
    auto answer = Round(call, name, absl::StrCat(std::string(1, '\0'), security.username, std::string(1, '\0'),
                                                 security.password));
    if (!answer.ok()) return answer.status();
    last = *std::move(answer);
  } else {
    auto mechanism = security::ScramMechanismNamed(security.sasl_mechanism);
    if (!mechanism) return absl::InvalidArgumentError(absl::StrCat("sasl.mechanism ", security.sasl_mechanism));
    security::ScramClient scram(*mechanism, security.username, security.password);
    auto server_first = Round(call, name, scram.FirstMessage());
    if (!server_first.ok()) return server_first.status();
    auto client_final = scram.FinalMessage(server_first->auth_bytes);
    if (!client_final.ok()) return client_final.status();
    auto server_final = Round(call, name, *std::move(client_final));
    if (!server_final.ok()) return server_final.status();
    if (absl::Status verified = scram.Verify(server_final->auth_bytes); !verified.ok()) {
      return absl::UnauthenticatedError(
          absl::StrCat(name, " did not prove it knows the SCRAM credential: ", verified.message()));
    }
    last = *std::move(server_final);
  }
  return std::chrono::milliseconds(last.session_lifetime_ms);
}

}  // namespace strata::client
