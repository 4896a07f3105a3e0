#include "broker/handlers/client_quota.h"

#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace strata::broker {

QuotaClient QuotaClientOf(const proto::kafka::RequestHeader& header) {
  absl::string_view user = header.principal;
  absl::ConsumePrefix(&user, "User:");
  return QuotaClient{std::string(user), header.client_id.value_or("")};
}

std::chrono::milliseconds RecordClientBytes(const KafkaApisContext& context, const proto::kafka::RequestHeader& header,
                                            QuotaKind kind, int64_t bytes) {
  // The produce path's usual case, no quota at all: not even the client is named.
  if (context.client_quotas == nullptr || !context.client_quotas->active()) return std::chrono::milliseconds(0);
  return context.client_quotas->Record(kind, QuotaClientOf(header), bytes, std::chrono::steady_clock::now());
}

}  // namespace strata::broker
