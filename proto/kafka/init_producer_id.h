#pragma once
// InitProducerId (key 22) v0-v5: a producer asks for its producer id and epoch.
// Request: transactional id (nullable; null for an idempotent producer), transaction
// timeout, and from v3 the producer id and epoch it already has (-1, -1 when none).
// Response: throttle time, error code, producer id, producer epoch. v1 is v0; flexible
// from v2; v4 and v5 only add error codes a broker may answer.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int64_t kNoProducerId = -1;
inline constexpr int16_t kNoProducerEpoch = -1;

struct InitProducerIdRequest {
  std::optional<std::string> transactional_id;  // nullopt: an idempotent producer
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = kNoProducerId;            // v3+
  int16_t producer_epoch = kNoProducerEpoch;      // v3+
};

struct InitProducerIdResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
};

absl::StatusOr<InitProducerIdRequest> ReadInitProducerIdRequest(Reader& reader, int16_t version);
void WriteInitProducerIdRequest(const InitProducerIdRequest& request, int16_t version, Writer& writer);
void WriteInitProducerIdResponse(const InitProducerIdResponse& response, int16_t version, Writer& writer);
absl::StatusOr<InitProducerIdResponse> ReadInitProducerIdResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
