#pragma once
// Heartbeat: a member of the current generation stays in its group; REBALANCE_IN_PROGRESS
// tells it to rejoin.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleHeartbeat(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
