#pragma once
// LeaveGroup (key 13) v0-v5: members leave a classic group (a rebalance follows).
// Request: group id; v0-v2 a single member_id; v3+ a batch of members instead (member
// id, group instance id (nullable), reason (v5+, nullable)), so static members can be
// removed by instance id. Response: throttle time (v1+), error code, and from v3 one
// result per member (member id, group instance id (nullable), error code). Both request
// shapes live in one struct: a handler reads `member_id` below v3 and `members` from v3.
// v1 and v2 are v0 on the request side; flexible from v4; v5's response is v4's.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct LeaveGroupRequest {
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> reason;  // v5+
    bool operator==(const Member&) const = default;
  };
  std::string group_id;
  std::string member_id;        // v0-v2
  std::vector<Member> members;  // v3+
  bool operator==(const LeaveGroupRequest&) const = default;
};

struct LeaveGroupResponse {
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    int16_t error_code = 0;
    bool operator==(const Member&) const = default;
  };
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::vector<Member> members;   // v3+
  bool operator==(const LeaveGroupResponse&) const = default;
};

absl::StatusOr<LeaveGroupRequest> ReadLeaveGroupRequest(Reader& reader, int16_t version);
void WriteLeaveGroupRequest(const LeaveGroupRequest& request, int16_t version, Writer& writer);
void WriteLeaveGroupResponse(const LeaveGroupResponse& response, int16_t version, Writer& writer);
absl::StatusOr<LeaveGroupResponse> ReadLeaveGroupResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
