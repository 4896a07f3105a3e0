#pragma once
// OffsetDelete (key 47) v0: deletes a group's committed offsets of some partitions (an
// empty group's, or of topics the group no longer subscribes to:
// GROUP_SUBSCRIBED_TO_TOPIC otherwise). Request: group id, per topic the partition
// indexes. Response: a top-level error code, throttle time, and per topic per partition
// an error code. Never flexible.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct OffsetDeleteRequest {
  struct Partition {
    int32_t partition_index = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::string group_id;
  std::vector<Topic> topics;
  bool operator==(const OffsetDeleteRequest&) const = default;
};

struct OffsetDeleteResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int16_t error_code = 0;
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  bool operator==(const OffsetDeleteResponse&) const = default;
};

// REQUIRES (all four): version == 0.
absl::StatusOr<OffsetDeleteRequest> ReadOffsetDeleteRequest(Reader& reader, int16_t version);
void WriteOffsetDeleteRequest(const OffsetDeleteRequest& request, int16_t version, Writer& writer);
void WriteOffsetDeleteResponse(const OffsetDeleteResponse& response, int16_t version, Writer& writer);
absl::StatusOr<OffsetDeleteResponse> ReadOffsetDeleteResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
