#pragma once
// Heartbeat (key 12) v0-v4: a member of a classic group tells the coordinator it is
// alive; the error code says whether to rejoin (REBALANCE_IN_PROGRESS) or start over.
// Request: group id, generation id, member id, group instance id (v3+, nullable).
// Response: throttle time (v1+), error code. v1 and v2 are v0 on the request side;
// flexible from v4.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct HeartbeatRequest {
  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  bool operator==(const HeartbeatRequest&) const = default;
};

struct HeartbeatResponse {
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  bool operator==(const HeartbeatResponse&) const = default;
};

absl::StatusOr<HeartbeatRequest> ReadHeartbeatRequest(Reader& reader, int16_t version);
void WriteHeartbeatRequest(const HeartbeatRequest& request, int16_t version, Writer& writer);
void WriteHeartbeatResponse(const HeartbeatResponse& response, int16_t version, Writer& writer);
absl::StatusOr<HeartbeatResponse> ReadHeartbeatResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
