#include "broker/handlers/delete_groups_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/delete_groups.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleDeleteGroups(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadDeleteGroupsRequest(reader, v); },
      [&](kafka::DeleteGroupsRequest r, auto reply) {
        auto answer = [reply](const std::vector<std::pair<std::string, ErrorCode>>& results) {
          kafka::DeleteGroupsResponse out;
          for (const auto& [id, e] : results) out.results.push_back({id, static_cast<int16_t>(e)});
          reply(out);
        };
        // Groups the principal may not delete answer GROUP_AUTHORIZATION_FAILED; the rest go
        // to the coordinator, and the two answers are put back in the request's order.
        std::vector<std::string> allowed;
        std::vector<std::pair<std::string, ErrorCode>> denied;
        for (auto& id : r.groups_names) {
          if (AuthorizedOnGroup(request, security::AclOperation::kDelete, id)) {
            allowed.push_back(id);
          } else {
            denied.push_back({id, ErrorCode::kGroupAuthorizationFailed});
          }
        }
        auto with_denied = [answer, denied](std::vector<std::pair<std::string, ErrorCode>> results) {
          results.insert(results.end(), denied.begin(), denied.end());
          answer(results);
        };
        if (context.group_coordinator == nullptr) {
          std::vector<std::pair<std::string, ErrorCode>> none;
          for (const auto& id : allowed) none.push_back({id, ErrorCode::kCoordinatorNotAvailable});
          return with_denied(none);
        }
        if (allowed.empty()) return with_denied({});
        context.group_coordinator->DeleteGroups(std::move(allowed), with_denied);
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDeleteGroupsResponse(response, v, writer); });
}

}  // namespace strata::broker
