#pragma once
// ConsumerGroupHeartbeat (KIP-848): a consumer group member joins, heartbeats, reconciles
// and leaves (GroupCoordinator::ConsumerGroupHeartbeat); READ on the group.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleConsumerGroupHeartbeat(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
