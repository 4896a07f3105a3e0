#include "broker/handlers/consumer_group_heartbeat_handler.h"

#include "broker/group/group_coordinator.h"
#include "broker/handlers/authorization.h"
#include "proto/kafka/consumer_group_heartbeat.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

TopicPartitionSet ToSet(const std::vector<kafka::TopicIdPartitions>& topics) {
  TopicPartitionSet set;
  for (const auto& t : topics) set[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  return set;
}

std::vector<kafka::TopicIdPartitions> FromSet(const TopicPartitionSet& set) {
  std::vector<kafka::TopicIdPartitions> topics;
  for (const auto& [id, partitions] : set) topics.push_back({id, {partitions.begin(), partitions.end()}});
  return topics;
}

}  // namespace

kafka::ConsumerGroupHeartbeatResponse ConsumerHeartbeatResponseOf(const ConsumerHeartbeatResult& result) {
  kafka::ConsumerGroupHeartbeatResponse out;
  out.error_code = static_cast<int16_t>(result.error);
  out.error_message = result.error_message;
  out.member_id = result.member_id;
  out.member_epoch = result.member_epoch;
  out.heartbeat_interval_ms = result.heartbeat_interval_ms;
  if (result.assignment) out.assignment = FromSet(*result.assignment);
  return out;
}

void HandleConsumerGroupHeartbeat(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  const int16_t version = request.header.api_version;
  std::string client_id = request.header.client_id.value_or("");
  std::string client_host = request.header.client_host;
  AnswerLater(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadConsumerGroupHeartbeatRequest(reader, v); },
      [&, version, client_id, client_host](kafka::ConsumerGroupHeartbeatRequest r, auto reply) {
        auto answer = [reply](const ConsumerHeartbeatResult& result) { reply(ConsumerHeartbeatResponseOf(result)); };
        auto refuse = [&](ErrorCode e) {
          ConsumerHeartbeatResult refused;
          refused.error = e;
          refused.member_id = r.member_id;
          refused.member_epoch = r.member_epoch;
          answer(refused);
        };
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          return refuse(ErrorCode::kGroupAuthorizationFailed);
        }
        if (context.group_coordinator == nullptr) return refuse(ErrorCode::kCoordinatorNotAvailable);
        ConsumerHeartbeatParams params;
        params.group_id = std::move(r.group_id);
        params.member_id = std::move(r.member_id);
        params.member_epoch = r.member_epoch;
        params.instance_id = std::move(r.instance_id);
        params.rack_id = std::move(r.rack_id);
        params.rebalance_timeout_ms = r.rebalance_timeout_ms;
        params.subscribed_topic_names = std::move(r.subscribed_topic_names);
        params.subscribed_topic_regex = std::move(r.subscribed_topic_regex);
        params.server_assignor = std::move(r.server_assignor);
        if (r.topic_partitions) params.owned = ToSet(*r.topic_partitions);
        params.client_id = client_id;
        params.client_host = client_host;
        params.api_version = version;
        context.group_coordinator->ConsumerGroupHeartbeat(std::move(params), answer);
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteConsumerGroupHeartbeatResponse(response, v, writer);
      });
}

}  // namespace strata::broker
