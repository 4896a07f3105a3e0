#pragma once
// ApiVersions (key 18) v0-v4: the request (client software name and version from v3)
// and the response (error code, the supported api ranges, throttle time from v1; from v3
// the tagged fields SupportedFeatures (0), FinalizedFeaturesEpoch (1) and
// FinalizedFeatures (2); v4 is v3 where a supported feature may start at level 0, which
// v3 omits: KAFKA-17011).  A request of a version the broker does not support is
// answered per KIP-511: a v0 response carrying UNSUPPORTED_VERSION and the supported
// ranges, so the client retries with a version it finds there.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/api.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct ApiVersionsRequest {
  std::string client_software_name;     // v3+
  std::string client_software_version;  // v3+
};

struct SupportedFeatureKey {
  std::string name;
  int16_t min_version = 0;
  int16_t max_version = 0;
  bool operator==(const SupportedFeatureKey&) const = default;
};

struct FinalizedFeatureKey {
  std::string name;
  int16_t max_version_level = 0;
  int16_t min_version_level = 0;
  bool operator==(const FinalizedFeatureKey&) const = default;
};

struct ApiVersionsResponse {
  int16_t error_code = 0;
  std::vector<ApiVersionRange> api_keys;
  int32_t throttle_time_ms = 0;                          // v1+
  std::vector<SupportedFeatureKey> supported_features;   // v3+ (tag 0)
  int64_t finalized_features_epoch = -1;                 // v3+ (tag 1); -1: unknown
  std::vector<FinalizedFeatureKey> finalized_features;   // v3+ (tag 2)
};

absl::StatusOr<ApiVersionsRequest> ReadApiVersionsRequest(Reader& reader, int16_t version);
void WriteApiVersionsRequest(const ApiVersionsRequest& request, int16_t version, Writer& writer);
void WriteApiVersionsResponse(const ApiVersionsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<ApiVersionsResponse> ReadApiVersionsResponse(Reader& reader, int16_t version);

// The response to an ApiVersions request of `request_version`: the supported ranges, or
// UNSUPPORTED_VERSION with them (to be written as v0) when the version is outside
// ApiVersions' own range among them. *response_version says which version to encode it in.
ApiVersionsResponse AnswerApiVersions(const std::vector<ApiVersionRange>& supported, int16_t request_version,
                                      int16_t* response_version);

}  // namespace strata::proto::kafka
