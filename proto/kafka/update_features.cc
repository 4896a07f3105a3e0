#include "proto/kafka/update_features.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

constexpr int16_t kUpgradeTypeVersion = 1;  // upgrade_type and validate_only replace allow_downgrade
constexpr int16_t kNoResultsVersion = 2;    // the response's per-feature results are gone

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kUpdateFeatures), version); }

}  // namespace

FeatureUpgradeType UpgradeTypeOf(const UpdateFeaturesRequest::FeatureUpdate& update, int16_t version) {
  if (version < kUpgradeTypeVersion) {
    return update.allow_downgrade ? FeatureUpgradeType::kSafeDowngrade : FeatureUpgradeType::kUpgrade;
  }
  return static_cast<FeatureUpgradeType>(update.upgrade_type);
}

absl::StatusOr<UpdateFeaturesRequest> ReadUpdateFeaturesRequest(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  UpdateFeaturesRequest req;
  req.timeout_ms = r.Int32("timeout_ms");
  const int32_t n = r.ArrayLength(flexible, "feature_updates");
  if (n < 0 && r.ok()) return absl::InvalidArgumentError("UpdateFeaturesRequest: null feature_updates");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    UpdateFeaturesRequest::FeatureUpdate u;
    u.feature = r.String(flexible, "feature");
    u.max_version_level = r.Int16("max_version_level");
    if (version < kUpgradeTypeVersion) {
      u.allow_downgrade = r.Bool("allow_downgrade");
    } else {
      u.upgrade_type = r.Int8("upgrade_type");
    }
    if (flexible) r.SkipTaggedFields("feature update tagged fields");
    req.feature_updates.push_back(std::move(u));
  }
  if (version >= kUpgradeTypeVersion) req.validate_only = r.Bool("validate_only");
  if (flexible) r.SkipTaggedFields("UpdateFeaturesRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteUpdateFeaturesRequest(const UpdateFeaturesRequest& req, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(req.timeout_ms);
  w.ArrayLength(static_cast<int32_t>(req.feature_updates.size()), flexible);
  for (const auto& u : req.feature_updates) {
    w.String(u.feature, flexible);
    w.Int16(u.max_version_level);
    if (version < kUpgradeTypeVersion) {
      w.Bool(u.allow_downgrade);
    } else {
      w.Int8(u.upgrade_type);
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= kUpgradeTypeVersion) w.Bool(req.validate_only);
  if (flexible) w.EmptyTaggedFields();
}

void WriteUpdateFeaturesResponse(const UpdateFeaturesResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, flexible);
  if (version < kNoResultsVersion) {
    w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
    for (const auto& result : resp.results) {
      w.String(result.feature, flexible);
      w.Int16(result.error_code);
      w.NullableString(result.error_message, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<UpdateFeaturesResponse> ReadUpdateFeaturesResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  UpdateFeaturesResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(flexible, "error_message");
  if (version < kNoResultsVersion) {
    const int32_t n = r.ArrayLength(flexible, "results");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      UpdateFeaturesResponse::Result result;
      result.feature = r.String(flexible, "feature");
      result.error_code = r.Int16("error_code");
      result.error_message = r.NullableString(flexible, "error_message");
      if (flexible) r.SkipTaggedFields("result tagged fields");
      resp.results.push_back(std::move(result));
    }
  }
  if (flexible) r.SkipTaggedFields("UpdateFeaturesResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
