#pragma once
// The share coordinator's state APIs (KIP-932), sent by share-partition leaders and the
// group coordinator to the broker that leads a share partition's partition of
// `__share_group_state` (broker/share/share_coordinator.h):
// InitializeShareGroupState (83), ReadShareGroupState (84), WriteShareGroupState (85),
// DeleteShareGroupState (86), ReadShareGroupStateSummary (87). Each partition of a request
// is one share partition (group, topic id, partition), answered by the coordinator's
// rules (NOT_COORDINATOR where this broker does not lead its state partition,
// COORDINATOR_LOAD_IN_PROGRESS while it loads, FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH);
// the response comes once every partition is answered, each once what it wrote is
// committed. As Kafka: ClusterAction on the cluster is required (else every partition is
// CLUSTER_AUTHORIZATION_FAILED), and a topic or partition the metadata does not have is
// UNKNOWN_TOPIC_OR_PARTITION.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entries (api_registry.h).
void HandleInitializeShareGroupState(const ApiRequest& request, ApiResponder respond);
void HandleReadShareGroupState(const ApiRequest& request, ApiResponder respond);
void HandleWriteShareGroupState(const ApiRequest& request, ApiResponder respond);
void HandleDeleteShareGroupState(const ApiRequest& request, ApiResponder respond);
void HandleReadShareGroupStateSummary(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
