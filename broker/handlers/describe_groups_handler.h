#pragma once
// DescribeGroups: state, protocol and members (with metadata and assignment when Stable)
// of each group; an unknown group is Dead with no members, as Kafka describes it.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleDescribeGroups(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
