#pragma once
// SaslHandshake (key 17) and SaslAuthenticate (key 36) where no SASL exchange is due: on
// a listener without SASL, or after authentication (a SASL listener's connection hands
// its exchange to its authenticator before any handler, broker/network/authenticator.h).
// Both answer ILLEGAL_SASL_STATE, as Kafka does.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entries (api_registry.h).
void HandleSaslHandshake(const ApiRequest& request, ApiResponder respond);
void HandleSaslAuthenticate(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
