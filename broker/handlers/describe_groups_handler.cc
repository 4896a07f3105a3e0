#include "broker/handlers/describe_groups_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/describe_groups.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleDescribeGroups(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadDescribeGroupsRequest(reader, v); },
      [&](const kafka::DescribeGroupsRequest& r) {
        kafka::DescribeGroupsResponse out;
        for (const std::string& id : r.groups) {
          GroupDescription d;
          d.group_id = id;
          if (!AuthorizedOnGroup(request, security::AclOperation::kDescribe, id)) {
            d.error = ErrorCode::kGroupAuthorizationFailed;
          } else if (context.group_coordinator == nullptr) {
            d.error = ErrorCode::kCoordinatorNotAvailable;
          } else {
            d = context.group_coordinator->DescribeGroup(id);
          }
          kafka::DescribeGroupsResponse::Group g;
          g.error_code = static_cast<int16_t>(d.error);
          g.group_id = id;
          g.group_state = d.error == ErrorCode::kNone ? GroupStateName(d.state) : "";
          g.protocol_type = d.protocol_type;
          g.protocol_data = d.protocol_name;
          for (const auto& m : d.members) {
            g.members.push_back({m.member_id, m.group_instance_id, m.client_id, m.client_host, m.metadata, m.assignment});
          }
          g.authorized_operations = r.include_authorized_operations ? kGroupOperations : kOperationsNotAsked;
          out.groups.push_back(std::move(g));
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDescribeGroupsResponse(response, v, writer); });
}

}  // namespace strata::broker
