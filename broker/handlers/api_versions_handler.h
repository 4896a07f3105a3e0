#pragma once
// ApiVersions (v0-v3): the ranges of the registry (api_registry.h), which the request
// carries as ApiRequest::advertised, so the versions advertised are the versions served.
// A version newer than ApiVersions' own range is answered per KIP-511: UNSUPPORTED_VERSION
// in a v0 response carrying the ranges, so the client retries with one it finds there;
// such a request's body is not parsed (its layout is unknown). Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleApiVersions(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
