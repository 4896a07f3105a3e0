#pragma once
// UpdateFeatures (key 57) v0-v2, all served; flexible in every version (kafka-features.sh
// upgrade / downgrade / disable, AdminClient.updateFeatures). Request: timeout_ms, the
// feature updates (feature name, max_version_level, allow_downgrade v0 only,
// upgrade_type v1+), validate_only (v1+). Response: throttle time, a top-level error code
// and nullable message, and (v0-v1 only) per feature its error code and nullable message.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

// Kafka's upgrade types (FeatureUpdate.UpgradeType); v0 has allow_downgrade instead.
enum class FeatureUpgradeType : int8_t {
  kUnknown = 0,
  kUpgrade = 1,
  kSafeDowngrade = 2,
  kUnsafeDowngrade = 3,
};

struct UpdateFeaturesRequest {
  struct FeatureUpdate {
    std::string feature;
    int16_t max_version_level = 0;
    bool allow_downgrade = false;                                    // v0 only
    int8_t upgrade_type = static_cast<int8_t>(FeatureUpgradeType::kUpgrade);  // v1+
    bool operator==(const FeatureUpdate&) const = default;
  };
  int32_t timeout_ms = 60000;
  std::vector<FeatureUpdate> feature_updates;
  bool validate_only = false;  // v1+
  bool operator==(const UpdateFeaturesRequest&) const = default;
};

// The upgrade type an update asks for in `version`: v0's allow_downgrade is a safe
// downgrade (as Kafka's brokers read it), else an upgrade; v1+ the type as sent.
FeatureUpgradeType UpgradeTypeOf(const UpdateFeaturesRequest::FeatureUpdate& update, int16_t version);

struct UpdateFeaturesResponse {
  struct Result {
    std::string feature;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Result> results;  // v0-v1
  bool operator==(const UpdateFeaturesResponse&) const = default;
};

absl::StatusOr<UpdateFeaturesRequest> ReadUpdateFeaturesRequest(Reader& reader, int16_t version);
void WriteUpdateFeaturesRequest(const UpdateFeaturesRequest& request, int16_t version, Writer& writer);
void WriteUpdateFeaturesResponse(const UpdateFeaturesResponse& response, int16_t version, Writer& writer);
absl::StatusOr<UpdateFeaturesResponse> ReadUpdateFeaturesResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
