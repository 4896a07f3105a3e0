#pragma once
// UnregisterBroker (key 64) v0, flexible (kafka-cluster.sh unregister,
// AdminClient.unregisterBroker). Request: the broker id. Response: throttle time, error
// code, nullable error message.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct UnregisterBrokerRequest {
  int32_t broker_id = 0;
  bool operator==(const UnregisterBrokerRequest&) const = default;
};

struct UnregisterBrokerResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  bool operator==(const UnregisterBrokerResponse&) const = default;
};

absl::StatusOr<UnregisterBrokerRequest> ReadUnregisterBrokerRequest(Reader& reader, int16_t version);
void WriteUnregisterBrokerRequest(const UnregisterBrokerRequest& request, int16_t version, Writer& writer);
void WriteUnregisterBrokerResponse(const UnregisterBrokerResponse& response, int16_t version, Writer& writer);
absl::StatusOr<UnregisterBrokerResponse> ReadUnregisterBrokerResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
