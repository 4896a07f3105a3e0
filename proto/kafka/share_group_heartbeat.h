#pragma once
// ShareGroupHeartbeat (key 76) v1, flexible: a member of a KIP-932 share group joins
// (member epoch 0; the member id is the client's), heartbeats, or leaves (-1). Request:
// group id, member id, member epoch, rack id, subscribed topic names (null when unchanged
// since the last heartbeat). Response: throttle time, error code and message, member id,
// member epoch, heartbeat interval, and the assignment (topic ids and partitions; null
// when unchanged).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/consumer_group_heartbeat.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct ShareGroupHeartbeatRequest {
  std::string group_id;
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<std::string> rack_id;
  std::optional<std::vector<std::string>> subscribed_topic_names;
  bool operator==(const ShareGroupHeartbeatRequest&) const = default;
};

// Field for field ConsumerGroupHeartbeat's response (its v0 and v1 alike).
using ShareGroupHeartbeatResponse = ConsumerGroupHeartbeatResponse;

absl::StatusOr<ShareGroupHeartbeatRequest> ReadShareGroupHeartbeatRequest(Reader& r, int16_t version);
void WriteShareGroupHeartbeatRequest(const ShareGroupHeartbeatRequest& req, int16_t version, Writer& w);
inline void WriteShareGroupHeartbeatResponse(const ShareGroupHeartbeatResponse& resp, Writer& w) {
  WriteConsumerGroupHeartbeatResponse(resp, /*version=*/1, w);
}
inline absl::StatusOr<ShareGroupHeartbeatResponse> ReadShareGroupHeartbeatResponse(Reader& r) {
  return ReadConsumerGroupHeartbeatResponse(r, /*version=*/1);
}

}  // namespace strata::proto::kafka
