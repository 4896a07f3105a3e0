#pragma once
// JoinGroup: a member joins (or rejoins) a group; answered when the rebalance completes
// (GroupCoordinator::JoinGroup). KIP-394's member id requirement from v4.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleJoinGroup(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
