#pragma once
// SyncGroup: the leader hands in the assignment, every member gets its part once it is
// written (GroupCoordinator::SyncGroup).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleSyncGroup(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
