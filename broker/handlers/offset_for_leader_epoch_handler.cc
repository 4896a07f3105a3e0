#include "broker/handlers/offset_for_leader_epoch_handler.h"

#include <optional>

#include "broker/common/kafka_error.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/partition_lookup.h"

namespace strata::broker {

namespace kafka = proto::kafka;

kafka::OffsetForLeaderEpochResponse AnswerOffsetForLeaderEpoch(
    const KafkaApisContext& context, const kafka::OffsetForLeaderEpochRequest& request,
    const std::function<bool(const std::string& topic)>& authorized) {
  kafka::OffsetForLeaderEpochResponse response;
  for (const auto& topic : request.topics) {
    kafka::OffsetForLeaderEpochResponse::Topic& rt = response.topics.emplace_back();
    rt.topic = topic.topic;
    const bool allowed = !authorized || authorized(topic.topic);
    for (const auto& p : topic.partitions) {
      kafka::OffsetForLeaderEpochResponse::Partition& rp = rt.partitions.emplace_back();
      rp.partition = p.partition;
      if (!allowed) {
        rp.error_code = static_cast<int16_t>(kafka::ErrorCode::kTopicAuthorizationFailed);
        continue;
      }
      auto partition = LookupPartition(context, topic.topic, p.partition);
      absl::StatusOr<std::pair<int32_t, int64_t>> end =
          partition.ok() ? (*partition)->LastOffsetForLeaderEpoch(p.current_leader_epoch, p.leader_epoch)
                         : absl::StatusOr<std::pair<int32_t, int64_t>>(partition.status());
      if (!end.ok()) {
        rp.error_code = KafkaErrorOf(end.status());
        continue;
      }
      rp.leader_epoch = end->first;
      rp.end_offset = end->second;
    }
  }
  return response;
}

void HandleOffsetForLeaderEpoch(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadOffsetForLeaderEpochRequest(reader, version); },
      [&](const auto& r) {
        // A follower needs ClusterAction; a consumer, Describe on each topic (as Kafka).
        std::optional<bool> follower_allowed;
        auto authorized = [&](const std::string& topic) {
          if (r.replica_id >= 0) {
            if (!follower_allowed) follower_allowed = AuthorizedOnCluster(request, security::AclOperation::kClusterAction);
            return *follower_allowed;
          }
          return AuthorizedOnTopic(request, security::AclOperation::kDescribe, topic);
        };
        return AnswerOffsetForLeaderEpoch(request.broker, r, authorized);
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteOffsetForLeaderEpochResponse(response, version, writer); });
}

}  // namespace strata::broker
