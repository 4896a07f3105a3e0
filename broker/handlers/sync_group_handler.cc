#include "broker/handlers/sync_group_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/sync_group.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleSyncGroup(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadSyncGroupRequest(reader, v); },
      [&](kafka::SyncGroupRequest r, auto reply) {
        auto answer = [reply](const SyncGroupResult& result) {
          kafka::SyncGroupResponse out;
          out.error_code = static_cast<int16_t>(result.error);
          out.protocol_type = result.protocol_type;
          out.protocol_name = result.protocol_name;
          out.assignment = result.assignment;
          reply(out);
        };
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          SyncGroupResult denied;
          denied.error = ErrorCode::kGroupAuthorizationFailed;
          return answer(denied);
        }
        if (context.group_coordinator == nullptr) {
          SyncGroupResult none;
          none.error = ErrorCode::kCoordinatorNotAvailable;
          return answer(none);
        }
        SyncGroupParams params;
        params.group_id = std::move(r.group_id);
        params.generation_id = r.generation_id;
        params.member_id = std::move(r.member_id);
        params.group_instance_id = std::move(r.group_instance_id);
        params.protocol_type = std::move(r.protocol_type);
        params.protocol_name = std::move(r.protocol_name);
        for (auto& a : r.assignments) params.assignments.emplace_back(std::move(a.member_id), std::move(a.assignment));
        context.group_coordinator->SyncGroup(std::move(params), answer);
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteSyncGroupResponse(response, v, writer); });
}

}  // namespace strata::broker
