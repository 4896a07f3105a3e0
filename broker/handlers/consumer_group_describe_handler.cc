#include "broker/handlers/consumer_group_describe_handler.h"

#include "broker/group/group_coordinator.h"
#include "broker/handlers/authorization.h"
#include "proto/kafka/consumer_group_describe.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

constexpr int8_t kConsumerMember = 1;  // MemberType v1+: every member uses the new protocol here

}  // namespace

std::vector<kafka::ConsumerGroupDescribeResponse::TopicPartitions> DescribedTopicsOf(
    const std::vector<ConsumerGroupDescription::Topic>& topics) {
  std::vector<kafka::ConsumerGroupDescribeResponse::TopicPartitions> out;
  for (const auto& t : topics) out.push_back({t.topic_id, t.topic_name, t.partitions});
  return out;
}

ConsumerGroupDescription UndescribedGroup(const std::string& group_id, ErrorCode error) {
  ConsumerGroupDescription d;
  d.group_id = group_id;
  d.state = "Dead";
  d.error = error;
  return d;
}

void HandleConsumerGroupDescribe(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadConsumerGroupDescribeRequest(reader, v); },
      [&](const kafka::ConsumerGroupDescribeRequest& r) {
        kafka::ConsumerGroupDescribeResponse out;
        for (const std::string& id : r.group_ids) {
          ConsumerGroupDescription d =
              !AuthorizedOnGroup(request, security::AclOperation::kDescribe, id)
                  ? UndescribedGroup(id, ErrorCode::kGroupAuthorizationFailed)
              : context.group_coordinator == nullptr ? UndescribedGroup(id, ErrorCode::kCoordinatorNotAvailable)
                                                     : context.group_coordinator->DescribeConsumerGroup(id);
          kafka::ConsumerGroupDescribeResponse::Group g;
          g.error_code = static_cast<int16_t>(d.error);
          g.error_message = d.error_message;
          g.group_id = id;
          g.group_state = d.state;
          g.group_epoch = d.group_epoch;
          g.assignment_epoch = d.assignment_epoch;
          g.assignor_name = d.assignor;
          for (const auto& m : d.members) {
            kafka::ConsumerGroupDescribeResponse::Member dm;
            dm.member_id = m.member_id;
            dm.instance_id = m.instance_id;
            dm.rack_id = m.rack_id;
            dm.member_epoch = m.member_epoch;
            dm.client_id = m.client_id;
            dm.client_host = m.client_host;
            dm.subscribed_topic_names = m.subscribed_topic_names;
            dm.subscribed_topic_regex = m.subscribed_topic_regex;
            dm.assignment = DescribedTopicsOf(m.assignment);
            dm.target_assignment = DescribedTopicsOf(m.target_assignment);
            dm.member_type = kConsumerMember;
            g.members.push_back(std::move(dm));
          }
          g.authorized_operations = r.include_authorized_operations ? kGroupOperations : kOperationsNotAsked;
          out.groups.push_back(std::move(g));
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteConsumerGroupDescribeResponse(response, v, writer);
      });
}

}  // namespace strata::broker
