#pragma once
// DescribeUserScramCredentials (key 50), answered from the broker's metadata image, and
// AlterUserScramCredentials (key 51), forwarded to the active controller, which keeps
// the credentials as metadata records (controller/scram_control.h has the rules).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entries (api_registry.h).
void HandleDescribeUserScramCredentials(const ApiRequest& request, ApiResponder respond);
void HandleAlterUserScramCredentials(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
