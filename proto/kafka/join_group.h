#pragma once
// JoinGroup (key 11) v0-v9: a member joins (or rejoins) a classic group. Request: group
// id, session timeout, rebalance timeout (v1+; -1 when absent: the session timeout
// applies), member id (empty on a first join; from v4 the coordinator answers
// MEMBER_ID_REQUIRED with one to join again with), group instance id (v5+, nullable:
// static membership), protocol type, the protocols the member supports (name and
// metadata bytes, for "consumer" the ConsumerProtocolSubscription of
// consumer_protocol.h), and the reason (v8+, nullable). Response: throttle time (v2+),
// error code, generation id, protocol type (v7+, nullable), protocol name (nullable v7+;
// an empty string before), leader, skip_assignment (v9+), member id, and the members
// (for the leader: member id, group instance id v5+, metadata). Flexible from v6.
// Versions that add no field: the request's v2-v4, v7 and v9; the response's v1, v3, v4
// and v8.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct JoinGroupRequest {
  struct Protocol {
    std::string name;
    std::string metadata;
    bool operator==(const Protocol&) const = default;
  };
  std::string group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;             // v1+
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v5+
  std::string protocol_type;
  std::vector<Protocol> protocols;
  std::optional<std::string> reason;             // v8+
  bool operator==(const JoinGroupRequest&) const = default;
};

struct JoinGroupResponse {
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v5+
    std::string metadata;
    bool operator==(const Member&) const = default;
  };
  int32_t throttle_time_ms = 0;                          // v2+
  int16_t error_code = 0;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;              // v7+
  std::optional<std::string> protocol_name = std::string();  // nullable v7+ (written as "" before)
  std::string leader;
  bool skip_assignment = false;                          // v9+
  std::string member_id;
  std::vector<Member> members;
  bool operator==(const JoinGroupResponse&) const = default;
};

absl::StatusOr<JoinGroupRequest> ReadJoinGroupRequest(Reader& reader, int16_t version);
void WriteJoinGroupRequest(const JoinGroupRequest& request, int16_t version, Writer& writer);
void WriteJoinGroupResponse(const JoinGroupResponse& response, int16_t version, Writer& writer);
absl::StatusOr<JoinGroupResponse> ReadJoinGroupResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
