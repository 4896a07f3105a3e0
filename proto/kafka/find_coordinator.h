#pragma once
// FindCoordinator (key 10) v0-v6: which broker coordinates a group (or a transactional
// id). Request: v0-v3 one key; key_type v1+ (0: group, 1: transaction); v4+ a batch of
// coordinator_keys instead of the single key (KIP-699). Response: throttle time (v1+);
// v0-v3 one answer (error code, error message v1+ (nullable), node id, host, port); v4+
// one Coordinator per key instead. Both shapes live in one struct: a handler reads `key`
// below v4 and `coordinator_keys` from v4, and answers in the same shape. v2 is v1; v5
// and v6 only add error codes a broker may answer. Flexible from v3.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int8_t kCoordinatorKeyTypeGroup = 0;
inline constexpr int8_t kCoordinatorKeyTypeTransaction = 1;
inline constexpr int8_t kCoordinatorKeyTypeShare = 2;  // v6+: "group:topicId:partition" (KIP-932)

struct FindCoordinatorRequest {
  std::string key;                             // v0-v3
  int8_t key_type = kCoordinatorKeyTypeGroup;  // v1+
  std::vector<std::string> coordinator_keys;   // v4+
  bool operator==(const FindCoordinatorRequest&) const = default;
};

struct FindCoordinatorResponse {
  struct Coordinator {
    std::string key;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Coordinator&) const = default;
  };
  int32_t throttle_time_ms = 0;              // v1+
  int16_t error_code = 0;                    // v0-v3
  std::optional<std::string> error_message;  // v1-v3
  int32_t node_id = 0;                       // v0-v3
  std::string host;                          // v0-v3
  int32_t port = 0;                          // v0-v3
  std::vector<Coordinator> coordinators;     // v4+
  bool operator==(const FindCoordinatorResponse&) const = default;
};

absl::StatusOr<FindCoordinatorRequest> ReadFindCoordinatorRequest(Reader& reader, int16_t version);
void WriteFindCoordinatorRequest(const FindCoordinatorRequest& request, int16_t version, Writer& writer);
void WriteFindCoordinatorResponse(const FindCoordinatorResponse& response, int16_t version, Writer& writer);
absl::StatusOr<FindCoordinatorResponse> ReadFindCoordinatorResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
