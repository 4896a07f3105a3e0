#include "broker/handlers/unregister_broker_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

kafka::UnregisterBrokerResponse AnswerUnregisterBroker(const KafkaApisContext& context,
                                                       const kafka::UnregisterBrokerRequest& request, bool authorized) {
  kafka::UnregisterBrokerResponse response;
  ForwardOutcome outcome;
  if (!authorized) {
    outcome = {kafka::ErrorCode::kClusterAuthorizationFailed, "not authorized to unregister a broker (Alter on the cluster)"};
  } else {
    admin::v1::UnregisterBrokerRequest forward;
    forward.set_broker_id(request.broker_id);
    // The request has no timeout of its own: the longest wait (the client's request
    // timeout, 30 s by default, is as long).
    outcome = ForwardForOutcome(context.controller, &admin::v1::AdminService::Stub::UnregisterBroker, forward,
                                kMaxForwardDeadline);
  }
  response.error_code = static_cast<int16_t>(outcome.code);
  response.error_message = outcome.message;
  return response;
}

void HandleUnregisterBroker(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadUnregisterBrokerRequest(reader, v); },
      [&](const auto& r) {
        return AnswerUnregisterBroker(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteUnregisterBrokerResponse(response, v, writer);
      });
}

}  // namespace strata::broker
