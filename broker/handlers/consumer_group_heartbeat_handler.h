#pragma once
// ConsumerGroupHeartbeat (KIP-848): a consumer group member joins, heartbeats, reconciles
// and leaves (GroupCoordinator::ConsumerGroupHeartbeat); READ on the group.
// Thread-safe.

#include "broker/group/group_types.h"
#include "broker/handlers/request_context.h"
#include "proto/kafka/consumer_group_heartbeat.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleConsumerGroupHeartbeat(const ApiRequest& request, ApiResponder respond);

// The coordinator's answer as the response (ShareGroupHeartbeat's too, whose response is
// the same).
proto::kafka::ConsumerGroupHeartbeatResponse ConsumerHeartbeatResponseOf(const ConsumerHeartbeatResult& result);

}  // namespace strata::broker
