#pragma once
// SyncGroup (key 14) v0-v5: after a join, the leader hands out the assignments and every
// member collects its own. Request: group id, generation id, member id, group instance
// id (v3+, nullable), protocol type and name (v5+, nullable; the coordinator checks them
// against the group's), and the assignments (the leader's: member id and assignment
// bytes, for "consumer" the ConsumerProtocolAssignment of consumer_protocol.h; empty from
// the other members). Response: throttle time (v1+), error code, protocol type and name
// (v5+, nullable), and this member's assignment bytes. v1 and v2 are v0 on the request
// side; flexible from v4.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct SyncGroupRequest {
  struct Assignment {
    std::string member_id;
    std::string assignment;
    bool operator==(const Assignment&) const = default;
  };
  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  std::optional<std::string> protocol_type;      // v5+
  std::optional<std::string> protocol_name;      // v5+
  std::vector<Assignment> assignments;
  bool operator==(const SyncGroupRequest&) const = default;
};

struct SyncGroupResponse {
  int32_t throttle_time_ms = 0;              // v1+
  int16_t error_code = 0;
  std::optional<std::string> protocol_type;  // v5+
  std::optional<std::string> protocol_name;  // v5+
  std::string assignment;
  bool operator==(const SyncGroupResponse&) const = default;
};

absl::StatusOr<SyncGroupRequest> ReadSyncGroupRequest(Reader& reader, int16_t version);
void WriteSyncGroupRequest(const SyncGroupRequest& request, int16_t version, Writer& writer);
void WriteSyncGroupResponse(const SyncGroupResponse& response, int16_t version, Writer& writer);
absl::StatusOr<SyncGroupResponse> ReadSyncGroupResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
