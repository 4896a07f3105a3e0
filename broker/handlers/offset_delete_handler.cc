#include "broker/handlers/offset_delete_handler.h"

#include <map>

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/offset_delete.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleOffsetDelete(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadOffsetDeleteRequest(reader, v); },
      [&](kafka::OffsetDeleteRequest r, auto reply) {
        auto answer = [reply, r](ErrorCode error, const std::vector<PartitionError>& errors) {
          kafka::OffsetDeleteResponse out;
          out.error_code = static_cast<int16_t>(error);
          if (error != ErrorCode::kNone) return reply(out);
          std::map<std::pair<std::string, int32_t>, ErrorCode> by_partition;
          for (const PartitionError& e : errors) by_partition[{e.topic, e.partition}] = e.error;
          for (const auto& t : r.topics) {
            kafka::OffsetDeleteResponse::Topic ot{t.name, {}};
            for (const auto& p : t.partitions) {
              auto it = by_partition.find({t.name, p.partition_index});
              ErrorCode e = it == by_partition.end() ? ErrorCode::kNone : it->second;
              ot.partitions.push_back({p.partition_index, static_cast<int16_t>(e)});
            }
            out.topics.push_back(std::move(ot));
          }
          reply(out);
        };
        if (!AuthorizedOnGroup(request, security::AclOperation::kDelete, r.group_id)) {
          return answer(ErrorCode::kGroupAuthorizationFailed, {});
        }
        if (context.group_coordinator == nullptr) return answer(ErrorCode::kCoordinatorNotAvailable, {});
        // Partitions of topics the principal may not read answer TOPIC_AUTHORIZATION_FAILED
        // and keep their offsets.
        std::vector<storage::TopicPartition> partitions;
        std::vector<PartitionError> denied;
        for (const auto& t : r.topics) {
          const bool readable = AuthorizedOnTopic(request, security::AclOperation::kRead, t.name);
          for (const auto& p : t.partitions) {
            if (readable) {
              partitions.push_back({t.name, p.partition_index});
            } else {
              denied.push_back({t.name, p.partition_index, ErrorCode::kTopicAuthorizationFailed});
            }
          }
        }
        context.group_coordinator->DeleteOffsets(
            r.group_id, std::move(partitions),
            [answer, denied](ErrorCode error, std::vector<PartitionError> errors) {
              errors.insert(errors.end(), denied.begin(), denied.end());
              answer(error, errors);
            });
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteOffsetDeleteResponse(response, v, writer); });
}

}  // namespace strata::broker
