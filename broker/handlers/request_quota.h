#pragma once
// Kafka's request quota (request_percentage, ClientRequestQuotaManager) around a handler:
// the time the handler's call takes on the request thread is counted against the
// client's quota entity (quota/client_quota_manager.h, QuotaKind::kRequest) in percent
// of one thread, and the request is answered with the throttle its client's measure
// stood at when the request came: throttle_time_ms in the answer (where the API holds it
// at a fixed place, proto/kafka/api.h ThrottleTimeOffset; Produce puts it in itself) and
// the connection left unread for that time (KIP-219); an answerless acks=0 produce only
// mutes it. Exempt, as Kafka's are: the brokers' own requests (a follower's fetch, which
// the fetch handler marks; WriteTxnMarkers; AddPartitionsToTxn v4+, the brokers'
// verification) — and a request's time waiting in a purgatory is not counted, only
// its handler's call. Counting time costs two clock reads and is done only while some
// request_percentage quota is set. Thread-safe.

#include <chrono>

#include "broker/handlers/api_registry.h"
#include "broker/handlers/request_context.h"
#include "broker/network/api_response.h"

namespace strata::broker {

// Whether request is under the request quota: one is set somewhere and the API is not a
// broker's.
bool UnderRequestQuota(const KafkaApisContext& context, const proto::kafka::RequestHeader& header);

// Calls api's handler for request (under the request quota, UnderRequestQuota) as above.
void HandleUnderRequestQuota(const ApiEntry& api, const ApiRequest& request, ApiResponder respond);

// Throttles an encoded answer of api_key at version by throttle: the longer of its own and
// throttle for the connection and, where the API holds it at a fixed place, in its
// throttle_time_ms.
void ApplyRequestThrottle(ApiResponse& response, int16_t api_key, int16_t version, std::chrono::milliseconds throttle);

}  // namespace strata::broker
