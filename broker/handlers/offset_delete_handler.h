#pragma once
// OffsetDelete: removes a group's committed offsets of the partitions named, refusing the
// topics its members subscribe to (GROUP_SUBSCRIBED_TO_TOPIC).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleOffsetDelete(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
