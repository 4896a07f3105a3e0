#include "broker/handlers/delete_groups_handler.h"

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
        if (context.group_coordinator == nullptr) {
          std::vector<std::pair<std::string, ErrorCode>> none;
          for (const auto& id : r.groups_names) none.push_back({id, ErrorCode::kCoordinatorNotAvailable});
          return answer(none);
        }
        context.group_coordinator->DeleteGroups(std::move(r.groups_names), answer);
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDeleteGroupsResponse(response, v, writer); });
}

}  // namespace strata::broker
