#pragma once
// FindCoordinator: the broker that coordinates a key, for one key (v0-v3) or several
// (v4+): a group (the leader of its partition of __consumer_offsets), a transactional id
// (of __transaction_state), or from v6 a share partition's state ("group:topicId:partition",
// of __share_group_state, asked by brokers with ClusterAction). Asks for the topic to be
// created when it does not exist yet (COORDINATOR_NOT_AVAILABLE meanwhile, as Kafka).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleFindCoordinator(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
