#include "broker/handlers/sasl_handlers.h"

#include "proto/kafka/error_code.h"
#include "proto/kafka/sasl.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

void HandleSaslHandshake(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadSaslHandshakeRequest(reader, v); },
      [](const auto&) {
        kafka::SaslHandshakeResponse response;
        response.error_code = static_cast<int16_t>(ErrorCode::kIllegalSaslState);
        return response;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteSaslHandshakeResponse(response, v, writer); });
}

void HandleSaslAuthenticate(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadSaslAuthenticateRequest(reader, v); },
      [](const auto&) {
        kafka::SaslAuthenticateResponse response;
        response.error_code = static_cast<int16_t>(ErrorCode::kIllegalSaslState);
        response.error_message = "no SASL authentication is due on this connection";
        return response;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteSaslAuthenticateResponse(response, v, writer);
      });
}

}  // namespace strata::broker
