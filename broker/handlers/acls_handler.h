#pragma once
// DescribeAcls (key 29) v0-v3, answered from the broker's metadata image, and CreateAcls
// (key 30) and DeleteAcls (key 31) v0-v3, forwarded to the active controller, which keeps
// the bindings as metadata records (controller/acl_control.h has the rules). Without an
// authorizer (authorizer.class.name empty) each answers SECURITY_DISABLED, as Kafka.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entries (api_registry.h).
void HandleDescribeAcls(const ApiRequest& request, ApiResponder respond);
void HandleCreateAcls(const ApiRequest& request, ApiResponder respond);
void HandleDeleteAcls(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
