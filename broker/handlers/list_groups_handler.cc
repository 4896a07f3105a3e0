#include "broker/handlers/list_groups_handler.h"

#include <algorithm>

#include "broker/handlers/authorization.h"
#include "absl/strings/match.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/list_groups.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleListGroups(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadListGroupsRequest(reader, v); },
      [&](const kafka::ListGroupsRequest& r) {
        kafka::ListGroupsResponse out;
        if (context.group_coordinator == nullptr) {
          out.error_code = static_cast<int16_t>(ErrorCode::kCoordinatorNotAvailable);
          return out;
        }
        auto [error, groups] = context.group_coordinator->ListGroups();
        out.error_code = static_cast<int16_t>(error);
        auto listed = [](const std::vector<std::string>& filter, absl::string_view value) {
          return filter.empty() || std::any_of(filter.begin(), filter.end(), [&](const std::string& f) {
                   return absl::EqualsIgnoreCase(f, value);
                 });
        };
        // Describe on the cluster lists every group; else the groups the principal may describe.
        const bool every_group = AuthorizedOnCluster(request, security::AclOperation::kDescribe);
        for (const GroupOverview& g : groups) {
          if (!listed(r.states_filter, g.state_name) || !listed(r.types_filter, GroupTypeName(g.type))) continue;
          if (!every_group && !AuthorizedOnGroup(request, security::AclOperation::kDescribe, g.group_id)) continue;
          out.groups.push_back({g.group_id, g.protocol_type, g.state_name, GroupTypeName(g.type)});
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteListGroupsResponse(response, v, writer); });
}

}  // namespace strata::broker
