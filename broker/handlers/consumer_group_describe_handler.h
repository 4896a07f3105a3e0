#pragma once
// ConsumerGroupDescribe (KIP-848): consumer groups with their epochs, members, and each
// member's current and target assignment (GroupCoordinator::DescribeConsumerGroup);
// DESCRIBE on each group.
// Thread-safe.

#include "broker/group/group_types.h"
#include "broker/handlers/request_context.h"
#include "proto/kafka/consumer_group_describe.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleConsumerGroupDescribe(const ApiRequest& request, ApiResponder respond);

// A described assignment as the response has it (ShareGroupDescribe's too).
std::vector<proto::kafka::ConsumerGroupDescribeResponse::TopicPartitions> DescribedTopicsOf(
    const std::vector<ConsumerGroupDescription::Topic>& topics);
// What a group the caller may not describe, or no coordinator, is answered ("Dead").
ConsumerGroupDescription UndescribedGroup(const std::string& group_id, ErrorCode error);

}  // namespace strata::broker
