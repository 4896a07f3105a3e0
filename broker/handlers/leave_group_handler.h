#pragma once
// LeaveGroup: one member (v0-v2) or several, by member id or group.instance.id (v3+).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleLeaveGroup(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
