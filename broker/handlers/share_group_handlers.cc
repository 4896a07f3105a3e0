#include "broker/handlers/share_group_handlers.h"

#include "broker/group/group_coordinator.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/consumer_group_describe_handler.h"
#include "broker/handlers/consumer_group_heartbeat_handler.h"
#include "proto/kafka/share_group_describe.h"
#include "proto/kafka/share_group_heartbeat.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleShareGroupHeartbeat(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  std::string client_id = request.header.client_id.value_or("");
  std::string client_host = request.header.client_host;
  AnswerLater(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadShareGroupHeartbeatRequest(reader, v); },
      [&, client_id, client_host](kafka::ShareGroupHeartbeatRequest r, auto reply) {
        auto answer = [reply](const ShareHeartbeatResult& result) { reply(ConsumerHeartbeatResponseOf(result)); };
        auto refuse = [&](ErrorCode e) {
          ShareHeartbeatResult refused;
          refused.error = e;
          refused.member_id = r.member_id;
          refused.member_epoch = r.member_epoch;
          answer(refused);
        };
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          return refuse(ErrorCode::kGroupAuthorizationFailed);
        }
        if (context.group_coordinator == nullptr) return refuse(ErrorCode::kCoordinatorNotAvailable);
        ShareHeartbeatParams params;
        params.member_id = std::move(r.member_id);
        params.member_epoch = r.member_epoch;
        params.rack_id = std::move(r.rack_id);
        params.subscribed_topic_names = std::move(r.subscribed_topic_names);
        params.client_id = client_id;
        params.client_host = client_host;
        context.group_coordinator->ShareGroupHeartbeat(std::move(r.group_id), std::move(params), answer);
      },
      [](const auto& response, int16_t, kafka::Writer& writer) {
        kafka::WriteShareGroupHeartbeatResponse(response, writer);
      });
}

void HandleShareGroupDescribe(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadShareGroupDescribeRequest(reader, v); },
      [&](const kafka::ShareGroupDescribeRequest& r) {
        kafka::ShareGroupDescribeResponse out;
        for (const std::string& id : r.group_ids) {
          ShareGroupDescription d =
              !AuthorizedOnGroup(request, security::AclOperation::kDescribe, id)
                  ? UndescribedGroup(id, ErrorCode::kGroupAuthorizationFailed)
              : context.group_coordinator == nullptr ? UndescribedGroup(id, ErrorCode::kCoordinatorNotAvailable)
                                                     : context.group_coordinator->DescribeShareGroup(id);
          kafka::ShareGroupDescribeResponse::Group g;
          g.error_code = static_cast<int16_t>(d.error);
          g.error_message = d.error_message;
          g.group_id = id;
          g.group_state = d.state;
          g.group_epoch = d.group_epoch;
          g.assignment_epoch = d.assignment_epoch;
          g.assignor_name = d.assignor;
          for (const auto& m : d.members) {
            g.members.push_back({m.member_id, m.rack_id, m.member_epoch, m.client_id, m.client_host,
                                 m.subscribed_topic_names, DescribedTopicsOf(m.assignment)});
          }
          g.authorized_operations = r.include_authorized_operations ? kGroupOperations : kOperationsNotAsked;
          out.groups.push_back(std::move(g));
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteShareGroupDescribeResponse(response, v, writer);
      });
}

}  // namespace strata::broker
