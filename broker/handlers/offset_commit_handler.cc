#include "broker/handlers/offset_commit_handler.h"

#include <map>

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/offset_commit.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleOffsetCommit(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadOffsetCommitRequest(reader, v); },
      [&](kafka::OffsetCommitRequest r, auto reply) {
        // The answer keeps the request's order of topics and partitions.
        auto answer = [reply, r](std::vector<PartitionError> errors) {
          std::map<std::pair<std::string, int32_t>, ErrorCode> by_partition;
          for (const PartitionError& e : errors) by_partition[{e.topic, e.partition}] = e.error;
          kafka::OffsetCommitResponse out;
          for (const auto& t : r.topics) {
            kafka::OffsetCommitResponse::Topic ot{t.name, {}};
            for (const auto& p : t.partitions) {
              auto it = by_partition.find({t.name, p.partition_index});
              ErrorCode e = it == by_partition.end() ? ErrorCode::kUnknownServerError : it->second;
              ot.partitions.push_back({p.partition_index, static_cast<int16_t>(e)});
            }
            out.topics.push_back(std::move(ot));
          }
          reply(out);
        };
        std::vector<PartitionError> refused;
        OffsetCommitParams params;
        params.group_id = r.group_id;
        params.generation_id = r.generation_id_or_member_epoch;
        params.member_id = r.member_id;
        params.group_instance_id = r.group_instance_id;
        params.retention_time_ms = r.retention_time_ms;
        // Read on the group, and on each topic (as Kafka): refused partitions commit nothing.
        const bool group_readable = AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id);
        std::map<std::string, bool> readable;
        for (const auto& t : r.topics) {
          if (group_readable && !readable.count(t.name)) {
            readable[t.name] = AuthorizedOnTopic(request, security::AclOperation::kRead, t.name);
          }
        }
        context.store.WithImage([&](const controller::MetadataImage& image) {
          for (const auto& t : r.topics) {
            const controller::TopicState* topic = image.FindTopic(t.name);
            for (const auto& p : t.partitions) {
              if (!group_readable || !readable[t.name]) {
                refused.push_back({t.name, p.partition_index,
                                   group_readable ? ErrorCode::kTopicAuthorizationFailed
                                                  : ErrorCode::kGroupAuthorizationFailed});
                continue;
              }
              if (topic == nullptr || topic->partitions.count(p.partition_index) == 0) {
                refused.push_back({t.name, p.partition_index, ErrorCode::kUnknownTopicOrPartition});
                continue;
              }
              params.partitions.push_back(
                  {t.name, p.partition_index, p.committed_offset, p.committed_leader_epoch, p.committed_metadata});
            }
          }
          return 0;
        });
        if (context.group_coordinator == nullptr || params.partitions.empty()) {
          for (const auto& p : params.partitions) refused.push_back({p.topic, p.partition, ErrorCode::kCoordinatorNotAvailable});
          return answer(std::move(refused));
        }
        context.group_coordinator->CommitOffsets(
            std::move(params), [answer, refused](std::vector<PartitionError> errors) {
              errors.insert(errors.end(), refused.begin(), refused.end());
              answer(std::move(errors));
            });
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteOffsetCommitResponse(response, v, writer); });
}

}  // namespace strata::broker
