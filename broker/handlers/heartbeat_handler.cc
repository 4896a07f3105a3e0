#include "broker/handlers/heartbeat_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/heartbeat.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleHeartbeat(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadHeartbeatRequest(reader, v); },
      [&](const kafka::HeartbeatRequest& r) {
        kafka::HeartbeatResponse out;
        ErrorCode e = !AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)
                          ? ErrorCode::kGroupAuthorizationFailed
                      : context.group_coordinator == nullptr
                          ? ErrorCode::kCoordinatorNotAvailable
                          : context.group_coordinator->Heartbeat(r.group_id, r.member_id, r.group_instance_id,
                                                                 r.generation_id);
        out.error_code = static_cast<int16_t>(e);
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteHeartbeatResponse(response, v, writer); });
}

}  // namespace strata::broker
