#pragma once
// ListGroups: the groups this broker coordinates, filtered by state (v4+) and type
// (v5+: "classic" is every group here).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleListGroups(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
