#pragma once
// DescribeGroups (key 15) v0-v5: the state and members of classic groups. Request: the
// group ids and include_authorized_operations (v3+). Response: throttle time (v1+), and
// per group the error code, group id, state, protocol type and protocol data (Kafka's
// brokers put the selected protocol's name there, for a Stable group only), the members
// (member id, group instance id (v4+, nullable), client id, client host, metadata and
// assignment bytes, these two for a Stable group only) and authorized operations (v3+;
// INT32_MIN when not asked for). v1 and v2 are v0 on the request side; flexible from v5.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DescribeGroupsRequest {
  std::vector<std::string> groups;
  bool include_authorized_operations = false;  // v3+
  bool operator==(const DescribeGroupsRequest&) const = default;
};

struct DescribeGroupsResponse {
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v4+
    std::string client_id;
    std::string client_host;
    std::string member_metadata;
    std::string member_assignment;
    bool operator==(const Member&) const = default;
  };
  struct Group {
    int16_t error_code = 0;
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;  // v3+
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<Group> groups;
  bool operator==(const DescribeGroupsResponse&) const = default;
};

absl::StatusOr<DescribeGroupsRequest> ReadDescribeGroupsRequest(Reader& reader, int16_t version);
void WriteDescribeGroupsRequest(const DescribeGroupsRequest& request, int16_t version, Writer& writer);
void WriteDescribeGroupsResponse(const DescribeGroupsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeGroupsResponse> ReadDescribeGroupsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
