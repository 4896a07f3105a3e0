#include "controller/feature_control.h"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "controller/features.h"

namespace strata::controller {
namespace {

using UpgradeType = admin::v1::FeatureUpdate::UpgradeType;

// The levels of `name` a list of supported features includes; a feature not named: 0 only.
pb::FeatureRange RangeOf(const google::protobuf::RepeatedPtrField<pb::FeatureRange>& supported,
                         const std::string& name) {
  for (const pb::FeatureRange& f : supported) {
    if (f.name() == name) return f;
  }
  pb::FeatureRange none;
  none.set_name(name);
  return none;
}

std::optional<pb::FeatureRange> ThisBuildSupports(const std::string& name) {
  for (const pb::FeatureRange& f : SupportedFeatures()) {
    if (f.name() == name) return f;
  }
  return std::nullopt;
}

// Why `range` does not hold `level` ("" when it does), of `who`.
std::string NotSupported(const pb::FeatureRange& range, int32_t level, const std::string& who) {
  if (level >= range.min_level() && level <= range.max_level()) return "";
  if (range.max_level() == 0) return absl::StrCat(who, " does not support the feature");
  return absl::StrCat(who, " supports levels ", range.min_level(), "-", range.max_level());
}

// Why the update must be refused (the reason alone), or "" when it may be made.
std::string RefusalOf(const MetadataImage& image, const admin::v1::FeatureUpdate& update) {
  const std::string& name = update.feature();
  const int32_t level = update.max_version_level();
  const UpgradeType type = update.upgrade_type();
  if (type != admin::v1::FeatureUpdate::UPGRADE && type != admin::v1::FeatureUpdate::SAFE_DOWNGRADE &&
      type != admin::v1::FeatureUpdate::UNSAFE_DOWNGRADE) {
    return absl::StrCat("unknown upgrade type ", static_cast<int>(type));
  }
  if (name == kMetadataVersionFeature) {
    // Kafka's metadata.version orders the record formats; Strata's records are protobuf
    // messages whose new fields older nodes skip, and a broker that cannot run a level is
    // refused at registration, so there is no such level to set.
    return "Strata has no metadata.version: its metadata records are protobuf messages whose new fields older "
           "nodes skip, not versions a cluster moves between";
  }
  if (level < 0) return "a level cannot be negative";
  std::optional<pb::FeatureRange> local = ThisBuildSupports(name);
  if (!local) return "the controller does not know this feature";
  if (std::string why = NotSupported(*local, level, "the controller"); !why.empty()) return why;
  if (QuorumFeature(name)) {
    // The quorum's voters decide it: QuorumController::UpgradeKraftVersion upgrades a
    // static quorum to 1 (an UPGRADE to 1 never comes here), and no quorum goes back to
    // 0. Its level as it is changes nothing.
    if (level == image.FeatureLevelOf(name)) return "";
    return level < image.FeatureLevelOf(name)
               ? "a dynamic quorum cannot become static again"
               : "only the upgrade of a static quorum (controller.quorum.voters) to level 1 changes it";
  }
  for (const auto& [id, broker] : image.brokers()) {
    const pb::FeatureRange range = RangeOf(broker.registration().supported_features(), name);
    if (std::string why = NotSupported(range, level, absl::StrCat("broker ", id)); !why.empty()) return why;
  }
  const int32_t current = image.FeatureLevelOf(name);
  if (level < current && type == admin::v1::FeatureUpdate::UPGRADE) {
    return absl::StrCat("a downgrade from level ", current, " needs the SAFE_DOWNGRADE or UNSAFE_DOWNGRADE upgrade type");
  }
  if (level > current && type != admin::v1::FeatureUpdate::UPGRADE) {
    return absl::StrCat("a downgrade cannot raise the level (it is ", current, ")");
  }
  // Either downgrade type is enough for transaction.version, as Kafka's controller takes
  // it: the brokers serve every transaction version's requests at any level, a
  // transaction keeps the version it began with, and clients read the level from each
  // ApiVersions answer (README.md, "Features").
  return "";
}

}  // namespace

Plan PlanUpdateFeatures(const MetadataImage& image, const admin::v1::UpdateFeaturesRequest& request) {
  Plan plan;
  std::set<std::string> named;
  for (const admin::v1::FeatureUpdate& update : request.updates()) {
    if (!named.insert(update.feature()).second) {
      return Plan{{ErrorCode::kInvalidRequest, absl::StrCat("feature ", update.feature(), " is named twice")}, {}};
    }
    if (std::string why = RefusalOf(image, update); !why.empty()) {
      return Plan{{ErrorCode::kInvalidUpdateVersion,
                   absl::StrCat("level ", update.max_version_level(), " of feature ", update.feature(), ": ", why)},
                  {}};
    }
    // Already there by an operator's hand: nothing to write. At the level automatic
    // finalization chose, the record still marks it as the operator's from now on.
    // A quorum feature at its level: nothing to write (no FeatureLevel record sets it).
    if ((image.FeatureSetByOperator(update.feature()) || QuorumFeature(update.feature())) &&
        image.FeatureLevelOf(update.feature()) == update.max_version_level()) {
      continue;
    }
    pb::MetadataRecord r;
    r.mutable_feature_level()->set_name(update.feature());
    r.mutable_feature_level()->set_level(update.max_version_level());
    r.mutable_feature_level()->set_set_by_operator(true);
    plan.records.push_back(std::move(r));
  }
  if (request.validate_only()) plan.records.clear();
  return plan;
}

int32_t BrokersMaxLevel(const MetadataImage& image, const std::string& feature, int32_t ceiling, BrokerId except) {
  int32_t level = ceiling;
  for (const auto& [id, broker] : image.brokers()) {
    if (id == except) continue;
    level = std::min(level, MaxSupportedLevel(broker.registration().supported_features(), feature));
  }
  return level;
}

void FinalizeFeatures(const MetadataImage& image, const controller::v1::BrokerRegistrationRequest& registering,
                      std::vector<pb::MetadataRecord>* records) {
  for (const pb::FeatureRange& feature : SupportedFeatures()) {
    if (QuorumFeature(feature.name())) continue;                // the quorum's records set it
    if (image.FeatureSetByOperator(feature.name())) continue;  // the operator's level stays
    int32_t level = std::min(MaxSupportedLevel(registering.supported_features(), feature.name()), feature.max_level());
    // Its new registration replaces its earlier one.
    level = BrokersMaxLevel(image, feature.name(), level, registering.broker_id());
    if (level <= image.FeatureLevelOf(feature.name())) continue;  // never lowered here
    pb::MetadataRecord r;
    r.mutable_feature_level()->set_name(feature.name());
    r.mutable_feature_level()->set_level(level);
    records->push_back(std::move(r));
  }
}

std::vector<admin::v1::DescribeFeaturesResponse::Feature> DescribeFeatures(const MetadataImage& image) {
  std::vector<admin::v1::DescribeFeaturesResponse::Feature> out;
  for (const pb::FeatureRange& feature : SupportedFeatures()) {
    admin::v1::DescribeFeaturesResponse::Feature& f = out.emplace_back();
    f.set_name(feature.name());
    f.set_min_level(feature.min_level());
    f.set_max_level(feature.max_level());
    f.set_finalized_level(image.FeatureLevelOf(feature.name()));
    f.set_set_by_operator(image.FeatureSetByOperator(feature.name()));
    f.set_brokers_max_level(BrokersMaxLevel(image, feature.name(), feature.max_level()));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name() < b.name(); });
  return out;
}

}  // namespace strata::controller
