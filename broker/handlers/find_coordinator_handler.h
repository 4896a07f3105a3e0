#pragma once
// FindCoordinator: the broker that coordinates a group (the leader of its partition of
// __consumer_offsets), for one key (v0-v3) or several (v4+). Asks for __consumer_offsets
// to be created when it does not exist yet (COORDINATOR_NOT_AVAILABLE meanwhile, as
// Kafka). Transaction coordinators: UNSUPPORTED_VERSION, not retriable (no transactions
// yet; docs/compatibility.md).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleFindCoordinator(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
