#include "broker/handlers/join_group_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/join_group.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {
constexpr int16_t kRequiresKnownMemberId = 4;  // KIP-394
constexpr int16_t kNullableProtocol = 7;       // protocol_type / protocol_name may be null
}  // namespace

void HandleJoinGroup(const ApiRequest& request, ApiResponder respond) {
  const int16_t version = request.header.api_version;
  const KafkaApisContext& context = request.broker;
  std::string client_id = request.header.client_id.value_or("");
  std::string client_host = request.header.client_host;
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadJoinGroupRequest(reader, v); },
      [&, version, client_id, client_host](kafka::JoinGroupRequest r, auto reply) {
        auto answer = [reply, version](const JoinGroupResult& result) {
          kafka::JoinGroupResponse out;
          out.error_code = static_cast<int16_t>(result.error);
          out.generation_id = result.generation_id;
          out.protocol_type = result.protocol_type;
          out.protocol_name = result.protocol_name;
          if (version < kNullableProtocol) out.protocol_name = result.protocol_name.value_or("");
          out.leader = result.leader_id;
          out.skip_assignment = result.skip_assignment;
          out.member_id = result.member_id;
          for (const auto& m : result.members) out.members.push_back({m.member_id, m.group_instance_id, m.metadata});
          reply(out);
        };
        const bool authorized = AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id);
        if (!authorized || context.group_coordinator == nullptr) {
          JoinGroupResult none;
          none.error = !authorized ? ErrorCode::kGroupAuthorizationFailed : ErrorCode::kCoordinatorNotAvailable;
          none.member_id = r.member_id;
          return answer(none);
        }
        JoinGroupParams params;
        params.group_id = std::move(r.group_id);
        params.member_id = std::move(r.member_id);
        params.group_instance_id = std::move(r.group_instance_id);
        params.client_id = client_id;
        params.client_host = client_host;
        params.session_timeout_ms = r.session_timeout_ms;
        params.rebalance_timeout_ms = r.rebalance_timeout_ms;
        params.protocol_type = std::move(r.protocol_type);
        for (auto& p : r.protocols) params.protocols.push_back({std::move(p.name), std::move(p.metadata)});
        params.require_known_member_id = version >= kRequiresKnownMemberId;
        context.group_coordinator->JoinGroup(std::move(params), answer);
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteJoinGroupResponse(response, v, writer); });
}

}  // namespace strata::broker
