#pragma once
// KIP-932's share group membership APIs (GroupCoordinator::ShareGroupHeartbeat and
// DescribeShareGroup; broker/group/coordinator_share.cc):
// ShareGroupHeartbeat (76): a share consumer joins, heartbeats and leaves; READ on the group.
// ShareGroupDescribe (77): share groups with their epochs, members and assignments;
// DESCRIBE on each group.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entries (api_registry.h).
void HandleShareGroupHeartbeat(const ApiRequest& request, ApiResponder respond);
void HandleShareGroupDescribe(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
