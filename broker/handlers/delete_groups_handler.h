#pragma once
// DeleteGroups: removes empty groups and their offsets (NON_EMPTY_GROUP when members
// remain, GROUP_ID_NOT_FOUND for none).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleDeleteGroups(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
