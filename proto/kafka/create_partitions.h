#pragma once
// CreatePartitions (key 37) v0-v3, all served. Request: per topic the name, the new
// total partition count and the new partitions' assignments (nullable: null lets the
// controller place them; else one broker list per new partition, in partition order);
// timeout_ms; validate_only. Response: throttle time, per topic the name, error code
// and message (nullable). Flexible from v2.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct CreatePartitionsRequest {
  struct Topic {
    std::string name;
    int32_t count = 0;
    // One broker-id list per new partition; nullopt: the controller places them.
    std::optional<std::vector<std::vector<int32_t>>> assignments;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
  bool validate_only = false;
};

struct CreatePartitionsResponse {
  struct Result {
    std::string name;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
};

absl::StatusOr<CreatePartitionsRequest> ReadCreatePartitionsRequest(Reader& reader, int16_t version);
void WriteCreatePartitionsRequest(const CreatePartitionsRequest& request, int16_t version, Writer& writer);
void WriteCreatePartitionsResponse(const CreatePartitionsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<CreatePartitionsResponse> ReadCreatePartitionsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
