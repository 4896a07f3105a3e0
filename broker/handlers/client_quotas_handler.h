#pragma once
// DescribeClientQuotas (key 48), answered from the broker's metadata image, and
// AlterClientQuotas (key 49), forwarded to the active controller, which keeps the
// quotas as metadata records (controller/client_quotas_image.h has the rules). As
// Kafka: DescribeConfigs on the cluster to describe, AlterConfigs on the cluster to
// alter (CLUSTER_AUTHORIZATION_FAILED at the top, or on every entry).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entries (api_registry.h).
void HandleDescribeClientQuotas(const ApiRequest& request, ApiResponder respond);
void HandleAlterClientQuotas(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
