#pragma once
// AlterConfigs (key 33) v0-v2 and IncrementalAlterConfigs (key 44) v0-v1: change the
// configs of resources (TOPIC 2, BROKER 4; a BROKER named "" is the cluster-wide
// default). AlterConfigs replaces a resource's whole dynamic set with the configs named
// (a null value: not set); IncrementalAlterConfigs applies an operation per config:
// SET 0, DELETE 1, APPEND 2, SUBTRACT 3 (the last two on list-valued configs).
// validate_only checks without changing anything. The two share the response: throttle
// time, and per resource its error code, nullable message, type and name. Flexible from
// AlterConfigs v2 and IncrementalAlterConfigs v1.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

enum class ConfigOperation : int8_t { kSet = 0, kDelete = 1, kAppend = 2, kSubtract = 3 };

struct AlterConfigsRequest {
  struct Config {
    std::string name;
    // IncrementalAlterConfigs only (AlterConfigs: always kSet, a null value unsets).
    int8_t operation = static_cast<int8_t>(ConfigOperation::kSet);
    std::optional<std::string> value;
    bool operator==(const Config&) const = default;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    bool operator==(const Resource&) const = default;
  };
  std::vector<Resource> resources;
  bool validate_only = false;
  bool operator==(const AlterConfigsRequest&) const = default;
};

struct AlterConfigsResponse {
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> responses;
  bool operator==(const AlterConfigsResponse&) const = default;
};

// api_key: kAlterConfigs or kIncrementalAlterConfigs (the request's config entries
// differ: the operation is IncrementalAlterConfigs'; the flexible versions differ).
absl::StatusOr<AlterConfigsRequest> ReadAlterConfigsRequest(Reader& reader, int16_t api_key, int16_t version);
void WriteAlterConfigsRequest(const AlterConfigsRequest& request, int16_t api_key, int16_t version, Writer& writer);
void WriteAlterConfigsResponse(const AlterConfigsResponse& response, int16_t api_key, int16_t version, Writer& writer);
absl::StatusOr<AlterConfigsResponse> ReadAlterConfigsResponse(Reader& reader, int16_t api_key, int16_t version);

}  // namespace strata::proto::kafka
