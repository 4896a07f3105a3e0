#pragma once
// DeleteGroups (key 42) v0-v2: deletes empty groups and their committed offsets.
// Request: the group names. Response: throttle time, and per group its id and error code
// (NON_EMPTY_GROUP for a group with members, GROUP_ID_NOT_FOUND for none). v1 is v0;
// flexible from v2.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DeleteGroupsRequest {
  std::vector<std::string> groups_names;
  bool operator==(const DeleteGroupsRequest&) const = default;
};

struct DeleteGroupsResponse {
  struct Result {
    std::string group_id;
    int16_t error_code = 0;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const DeleteGroupsResponse&) const = default;
};

absl::StatusOr<DeleteGroupsRequest> ReadDeleteGroupsRequest(Reader& reader, int16_t version);
void WriteDeleteGroupsRequest(const DeleteGroupsRequest& request, int16_t version, Writer& writer);
void WriteDeleteGroupsResponse(const DeleteGroupsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DeleteGroupsResponse> ReadDeleteGroupsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
