#pragma once
// OffsetFetch: a group's committed offsets (-1 for none), for one group (v0-v7) or
// several (v8+), of the partitions named or all (null topics, v2+).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleOffsetFetch(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
