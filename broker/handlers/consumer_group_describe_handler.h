#pragma once
// ConsumerGroupDescribe (KIP-848): consumer groups with their epochs, members, and each
// member's current and target assignment (GroupCoordinator::DescribeConsumerGroup);
// DESCRIBE on each group.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleConsumerGroupDescribe(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
