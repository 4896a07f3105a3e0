#include "broker/handlers/request_quota.h"

#include <algorithm>
#include <memory>

#include "base/check.h"
#include "broker/handlers/client_quota.h"
#include "proto/kafka/api.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

bool UnderRequestQuota(const KafkaApisContext& context, const kafka::RequestHeader& header) {
  if (context.client_quotas == nullptr || !context.client_quotas->requests_active()) return false;
  switch (static_cast<kafka::ApiKey>(header.api_key)) {
    case kafka::ApiKey::kWriteTxnMarkers:
      return false;
    case kafka::ApiKey::kAddPartitionsToTxn:
      return header.api_version < 4;  // v4+: the brokers' verification (KIP-890)
    default:
      return true;
  }
}

void ApplyRequestThrottle(ApiResponse& response, int16_t api_key, int16_t version, std::chrono::milliseconds throttle) {
  if (throttle.count() <= 0) return;
  response.throttle = std::max(response.throttle, throttle);
  std::optional<size_t> offset = kafka::ThrottleTimeOffset(api_key, version);
  if (!offset || response.silent || response.body.size() < *offset + 4) return;
  for (const kafka::Splice& s : response.splices) {
    ABSL_CHECK_GE(s.position, *offset + 4) << kafka::ApiName(api_key) << ": a splice before throttle_time_ms";
  }
  auto* at = reinterpret_cast<unsigned char*>(response.body.data() + *offset);
  const uint32_t own = (uint32_t{at[0]} << 24) | (uint32_t{at[1]} << 16) | (uint32_t{at[2]} << 8) | uint32_t{at[3]};
  const int64_t ms = std::max<int64_t>(static_cast<int32_t>(own), throttle.count());
  const auto value = static_cast<uint32_t>(std::min<int64_t>(ms, INT32_MAX));
  at[0] = static_cast<unsigned char>(value >> 24);
  at[1] = static_cast<unsigned char>(value >> 16);
  at[2] = static_cast<unsigned char>(value >> 8);
  at[3] = static_cast<unsigned char>(value);
}

void HandleUnderRequestQuota(const ApiEntry& api, const ApiRequest& request, ApiResponder respond) {
  ClientQuotaManager& quotas = *request.broker.client_quotas;
  const QuotaClient client = QuotaClientOf(request.header);
  const auto started = ClientQuotaManager::Clock::now();
  auto ticket = std::make_shared<RequestQuotaTicket>();
  ticket->throttle = quotas.ThrottleTime(QuotaKind::kRequest, client, started);
  ApiRequest metered = request;
  metered.request_quota = ticket.get();
  const int16_t key = request.header.api_key;
  const int16_t version = request.header.api_version;
  api.handle(metered, [ticket, key, version, respond = std::move(respond)](
                          absl::StatusOr<std::optional<ApiResponse>> answer) mutable {
    if (answer.ok() && !ticket->exempt.load() && ticket->throttle.count() > 0) {
      // An answerless request (acks=0) still mutes the connection.
      if (!answer->has_value()) {
        ApiResponse muted;
        muted.silent = true;
        *answer = std::optional<ApiResponse>(std::move(muted));
      }
      ApplyRequestThrottle(**answer, key, version, ticket->throttle);
    }
    respond(std::move(answer));
  });
  if (ticket->exempt.load()) return;
  const auto took = ClientQuotaManager::Clock::now() - started;
  // Kafka's nanosToPercentage: a thread's whole second is 100.
  quotas.Record(QuotaKind::kRequest, client, std::chrono::duration<double>(took).count() * 100.0,
                ClientQuotaManager::Clock::now());
}

}  // namespace strata::broker
