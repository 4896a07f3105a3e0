#pragma once
// OffsetCommit: a group's committed offsets, answered once written to __consumer_offsets;
// a partition of a topic the cluster does not have is UNKNOWN_TOPIC_OR_PARTITION.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h).
void HandleOffsetCommit(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
