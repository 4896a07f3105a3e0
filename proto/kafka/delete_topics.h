#pragma once
// DeleteTopics (key 20) v0-v6; the broker serves v1-v6. Request: the topics by name
// (v0-v5: an array of names; v6: an array of {name (nullable), topic id}) and
// timeout_ms. Response: throttle time (v1+), per topic the name (nullable v6+), topic id
// (v6+), error code and message (v5+, nullable). Flexible from v4.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DeleteTopicsRequest {
  struct Topic {
    std::optional<std::string> name;  // always set before v6
    std::string topic_id = std::string(16, '\0');  // v6+ (all zero: by name)
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
};

struct DeleteTopicsResponse {
  struct Topic {
    std::optional<std::string> name;               // nullable v6+
    std::string topic_id = std::string(16, '\0');  // v6+
    int16_t error_code = 0;
    std::optional<std::string> error_message;      // v5+
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<Topic> topics;
};

absl::StatusOr<DeleteTopicsRequest> ReadDeleteTopicsRequest(Reader& reader, int16_t version);
void WriteDeleteTopicsRequest(const DeleteTopicsRequest& request, int16_t version, Writer& writer);
void WriteDeleteTopicsResponse(const DeleteTopicsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DeleteTopicsResponse> ReadDeleteTopicsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
