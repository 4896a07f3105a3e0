#include "broker/handlers/update_features_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

admin::v1::FeatureUpdate::UpgradeType AdminUpgradeType(kafka::FeatureUpgradeType type) {
  switch (type) {
    case kafka::FeatureUpgradeType::kUpgrade: return admin::v1::FeatureUpdate::UPGRADE;
    case kafka::FeatureUpgradeType::kSafeDowngrade: return admin::v1::FeatureUpdate::SAFE_DOWNGRADE;
    case kafka::FeatureUpgradeType::kUnsafeDowngrade: return admin::v1::FeatureUpdate::UNSAFE_DOWNGRADE;
    case kafka::FeatureUpgradeType::kUnknown: break;
  }
  return admin::v1::FeatureUpdate::UNKNOWN;  // a code of a newer client: the controller refuses it
}

}  // namespace

kafka::UpdateFeaturesResponse AnswerUpdateFeatures(const KafkaApisContext& context,
                                                   const kafka::UpdateFeaturesRequest& request, int16_t version,
                                                   bool authorized) {
  kafka::UpdateFeaturesResponse response;
  ForwardOutcome outcome;
  if (!authorized) {
    outcome = {ErrorCode::kClusterAuthorizationFailed, "not authorized to update features (Alter on the cluster)"};
  } else {
    admin::v1::UpdateFeaturesRequest forward;
    forward.set_validate_only(request.validate_only);
    for (const auto& u : request.feature_updates) {
      admin::v1::FeatureUpdate* out = forward.add_updates();
      out->set_feature(u.feature);
      out->set_max_version_level(u.max_version_level);
      out->set_upgrade_type(AdminUpgradeType(kafka::UpgradeTypeOf(u, version)));
    }
    outcome = ForwardForOutcome(context.controller, &admin::v1::AdminService::Stub::UpdateFeatures, forward,
                                ForwardDeadline(request.timeout_ms));
  }
  response.error_code = static_cast<int16_t>(outcome.code);
  response.error_message = outcome.message;
  // As Kafka's: per-feature results only when the request passed (v0-v1 carry them).
  if (outcome.code == ErrorCode::kNone) {
    for (const auto& u : request.feature_updates) response.results.push_back({u.feature, 0, std::nullopt});
  }
  return response;
}

void HandleUpdateFeatures(const ApiRequest& request, ApiResponder respond) {
  const int16_t version = request.header.api_version;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadUpdateFeaturesRequest(reader, v); },
      [&](const auto& r) {
        return AnswerUpdateFeatures(request.broker, r, version,
                                    AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteUpdateFeaturesResponse(response, v, writer); });
}

}  // namespace strata::broker
