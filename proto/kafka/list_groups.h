#pragma once
// ListGroups (key 16) v0-v5: the groups a broker coordinates. Request: nothing before
// v4; states_filter (v4+, KIP-518) and types_filter (v5+, KIP-848), empty for every
// group. Response: throttle time (v1+), error code, and per group the group id,
// protocol type, group state (v4+) and group type (v5+). v1 and v2 are v0 on the request
// side; flexible from v3.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct ListGroupsRequest {
  std::vector<std::string> states_filter;  // v4+
  std::vector<std::string> types_filter;   // v5+
  bool operator==(const ListGroupsRequest&) const = default;
};

struct ListGroupsResponse {
  struct Group {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;  // v4+
    std::string group_type;   // v5+
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::vector<Group> groups;
  bool operator==(const ListGroupsResponse&) const = default;
};

absl::StatusOr<ListGroupsRequest> ReadListGroupsRequest(Reader& reader, int16_t version);
void WriteListGroupsRequest(const ListGroupsRequest& request, int16_t version, Writer& writer);
void WriteListGroupsResponse(const ListGroupsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<ListGroupsResponse> ReadListGroupsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
