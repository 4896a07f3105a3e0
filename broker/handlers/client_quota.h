#pragma once
// What the Produce and Fetch handlers ask of the broker's client quotas
// (quota/client_quota_manager.h): the client a request counts against, and its bytes
// recorded with the throttle time they come to.
// Thread-safe.

#include <chrono>
#include <cstdint>

#include "broker/handlers/request_context.h"
#include "broker/quota/client_quota_manager.h"

namespace strata::broker {

// The principal's name (without "User:") and the header's client id.
QuotaClient QuotaClientOf(const proto::kafka::RequestHeader& header);

// Counts bytes of the request's client; its throttle time (zero without a quota, or
// without a quota manager).
std::chrono::milliseconds RecordClientBytes(const KafkaApisContext& context, const proto::kafka::RequestHeader& header,
                                            QuotaKind kind, int64_t bytes);

}  // namespace strata::broker
