// The controller's decisions on feature levels (controller/feature_control.h): each rule
// of UpdateFeatures (Kafka's FeatureControlManager's refusals, all or none, validate
// only), metadata.version refused, an operator's level kept from automatic finalization,
// and what `strata features describe` answers. Plans are applied to the image, which
// also checks that their records fit.

#include "controller/feature_control.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "controller/cluster_control.h"
#include "controller/features.h"
#include "tests/support/metadata_records.h"

namespace strata::controller {
namespace {

using Update = admin::v1::FeatureUpdate;

constexpr char kTv[] = "transaction.version";

// Broker id, registered (unfenced or fenced), supporting transaction.version up to `max`
// (-1: naming no feature, as an older build).
pb::MetadataRecord Broker(BrokerId id, int32_t max, bool fenced = false) {
  pb::MetadataRecord r = testing::RegisterBrokerRecord(id, 10 + id);
  r.mutable_register_broker()->set_fenced(fenced);
  if (max >= 0) {
    pb::FeatureRange* f = r.mutable_register_broker()->add_supported_features();
    f->set_name(kTv);
    f->set_min_level(0);
    f->set_max_level(max);
  }
  return r;
}

pb::MetadataRecord Level(const std::string& name, int32_t level, bool by_operator = false) {
  pb::MetadataRecord r;
  r.mutable_feature_level()->set_name(name);
  r.mutable_feature_level()->set_level(level);
  r.mutable_feature_level()->set_set_by_operator(by_operator);
  return r;
}

MetadataImage Image(const std::vector<pb::MetadataRecord>& records) {
  MetadataImage image;
  for (const auto& r : records) EXPECT_TRUE(image.Apply(r).ok()) << r.ShortDebugString();
  return image;
}

admin::v1::UpdateFeaturesRequest Request(std::vector<std::tuple<std::string, int32_t, Update::UpgradeType>> updates,
                                         bool validate_only = false) {
  admin::v1::UpdateFeaturesRequest r;
  for (const auto& [name, level, type] : updates) {
    Update* u = r.add_updates();
    u->set_feature(name);
    u->set_max_version_level(level);
    u->set_upgrade_type(type);
  }
  r.set_validate_only(validate_only);
  return r;
}

// The outcome's code, and that its message names what the test expects.
void ExpectRefused(const Plan& plan, ErrorCode code, const std::string& named) {
  EXPECT_EQ(plan.outcome.code, code) << plan.outcome.message;
  EXPECT_NE(plan.outcome.message.find(named), std::string::npos) << plan.outcome.message;
  EXPECT_TRUE(plan.records.empty());
}

TEST(PlanUpdateFeatures, ADowngradeIsWrittenAsTheOperatorsLevel) {
  MetadataImage image = Image({Broker(1, 2), Broker(2, 2), Level(kTv, 2)});
  Plan plan = PlanUpdateFeatures(image, Request({{kTv, 1, Update::SAFE_DOWNGRADE}}));
  ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
  ASSERT_EQ(plan.records.size(), 1u);
  EXPECT_TRUE(plan.records[0].feature_level().set_by_operator());
  for (const auto& r : plan.records) ASSERT_TRUE(image.Apply(r).ok());
  EXPECT_EQ(image.FeatureLevelOf(kTv), 1);
  EXPECT_TRUE(image.FeatureSetByOperator(kTv));
  // An unsafe downgrade is taken too, and level 0 disables the feature.
  plan = PlanUpdateFeatures(image, Request({{kTv, 0, Update::UNSAFE_DOWNGRADE}}));
  ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
  for (const auto& r : plan.records) ASSERT_TRUE(image.Apply(r).ok());
  EXPECT_EQ(image.FeatureLevelOf(kTv), 0);
  EXPECT_EQ(image.finalized_features().count(kTv), 0u) << "a disabled feature is not finalized";
  EXPECT_TRUE(image.FeatureSetByOperator(kTv)) << "level 0 stays the operator's";
}

TEST(PlanUpdateFeatures, ALowerLevelNeedsADowngradeTypeAndAHigherOneAnUpgrade) {
  MetadataImage image = Image({Broker(1, 2), Level(kTv, 1)});
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, 0, Update::UPGRADE}})), ErrorCode::kInvalidUpdateVersion,
                "SAFE_DOWNGRADE");
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, 2, Update::SAFE_DOWNGRADE}})),
                ErrorCode::kInvalidUpdateVersion, "cannot raise");
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, 2, Update::UNKNOWN}})), ErrorCode::kInvalidUpdateVersion,
                "upgrade type");
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, -1, Update::UNSAFE_DOWNGRADE}})),
                ErrorCode::kInvalidUpdateVersion, "negative");
}

TEST(PlanUpdateFeatures, ALevelABrokerCannotRunIsRefusedNamingIt) {
  // Broker 3 runs an older build (level 1 at most) and is fenced: it still counts, as in
  // Kafka, since it may come back.
  MetadataImage image = Image({Broker(1, 2), Broker(3, 1, /*fenced=*/true), Level(kTv, 1)});
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, 2, Update::UPGRADE}})), ErrorCode::kInvalidUpdateVersion,
                "broker 3 supports levels 0-1");
  // A broker that names no feature supports level 0 only.
  image = Image({Broker(1, 2), Broker(4, -1)});
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, 1, Update::UPGRADE}})), ErrorCode::kInvalidUpdateVersion,
                "broker 4 does not support");
  // Above this build's own range: the controller's refusal.
  ExpectRefused(PlanUpdateFeatures(Image({Broker(1, 9)}), Request({{kTv, kTransactionVersionLatest + 1, Update::UPGRADE}})),
                ErrorCode::kInvalidUpdateVersion, "the controller supports levels");
}

TEST(PlanUpdateFeatures, UnknownFeaturesAndMetadataVersionAreRefusedNamingThem) {
  MetadataImage image = Image({Broker(1, 2)});
  ExpectRefused(PlanUpdateFeatures(image, Request({{"no.such.version", 1, Update::UPGRADE}})),
                ErrorCode::kInvalidUpdateVersion, "no.such.version");
  ExpectRefused(PlanUpdateFeatures(image, Request({{"no.such.version", 0, Update::SAFE_DOWNGRADE}})),
                ErrorCode::kInvalidUpdateVersion, "does not know");
  Plan mv = PlanUpdateFeatures(image, Request({{kMetadataVersionFeature, 21, Update::UPGRADE}}));
  ExpectRefused(mv, ErrorCode::kInvalidUpdateVersion, "metadata.version");
  EXPECT_NE(mv.outcome.message.find("no metadata.version"), std::string::npos) << mv.outcome.message;
}

TEST(PlanUpdateFeatures, OneRefusedUpdateRefusesTheRequestAndValidateOnlyWritesNothing) {
  MetadataImage image = Image({Broker(1, 2), Level(kTv, 1)});
  ExpectRefused(
      PlanUpdateFeatures(image, Request({{kTv, 2, Update::UPGRADE}, {"no.such.version", 1, Update::UPGRADE}})),
      ErrorCode::kInvalidUpdateVersion, "no.such.version");
  ExpectRefused(PlanUpdateFeatures(image, Request({{kTv, 2, Update::UPGRADE}, {kTv, 2, Update::UPGRADE}})),
                ErrorCode::kInvalidRequest, "named twice");
  Plan dry = PlanUpdateFeatures(image, Request({{kTv, 2, Update::UPGRADE}}, /*validate_only=*/true));
  EXPECT_TRUE(dry.outcome.ok()) << dry.outcome.message;
  EXPECT_TRUE(dry.records.empty());
  Plan refused_dry = PlanUpdateFeatures(image, Request({{kTv, 3, Update::UPGRADE}}, /*validate_only=*/true));
  EXPECT_EQ(refused_dry.outcome.code, ErrorCode::kInvalidUpdateVersion) << "validate only still decides";
}

TEST(PlanUpdateFeatures, TheSameLevelMarksItTheOperatorsOnceThenChangesNothing) {
  MetadataImage image = Image({Broker(1, 2), Level(kTv, 2)});
  Plan first = PlanUpdateFeatures(image, Request({{kTv, 2, Update::UPGRADE}}));
  ASSERT_TRUE(first.outcome.ok()) << first.outcome.message;
  ASSERT_EQ(first.records.size(), 1u) << "the level automatic finalization chose becomes the operator's";
  for (const auto& r : first.records) ASSERT_TRUE(image.Apply(r).ok());
  Plan again = PlanUpdateFeatures(image, Request({{kTv, 2, Update::UPGRADE}}));
  EXPECT_TRUE(again.outcome.ok());
  EXPECT_TRUE(again.records.empty());
}

controller::v1::BrokerRegistrationRequest Registration(BrokerId id) {
  controller::v1::BrokerRegistrationRequest r;
  r.set_broker_id(id);
  r.set_incarnation_id(std::string(16, static_cast<char>('k' + id)));
  for (const auto& f : SupportedFeatures()) *r.add_supported_features() = f;
  return r;
}

TEST(FinalizeFeatures, NeverRaisesALevelAnOperatorSet) {
  // Without an operator's level, a registration raises it (the existing rule)...
  MetadataImage automatic = Image({Broker(1, 2), Level(kTv, 1)});
  std::vector<pb::MetadataRecord> raised;
  FinalizeFeatures(automatic, Registration(2), &raised);
  ASSERT_EQ(raised.size(), 1u);
  EXPECT_EQ(raised[0].feature_level().level(), kTransactionVersionLatest);
  EXPECT_FALSE(raised[0].feature_level().set_by_operator());
  // ...but the operator's downgrade, or disable, stays through every registration.
  for (int32_t level : {1, 0}) {
    MetadataImage image = Image({Broker(1, 2), Level(kTv, level, /*by_operator=*/true)});
    std::vector<pb::MetadataRecord> records;
    FinalizeFeatures(image, Registration(2), &records);
    EXPECT_TRUE(records.empty()) << "level " << level;
    Plan registered = PlanRegisterBroker(image, Registration(3), 300);
    ASSERT_TRUE(registered.outcome.ok()) << registered.outcome.message;
    EXPECT_EQ(registered.records.size(), 1u) << "the registration alone";
  }
}

// kraft.version is the quorum's (its KRaftVersion record, which MetadataStore applies as
// the feature's level): registrations never raise it, and no FeatureLevel record sets
// it (the upgrade of a static quorum is QuorumController's, never a plan's), nor does a
// downgrade of a dynamic one; its current level is accepted and writes nothing.
TEST(KraftVersion, OnlyTheQuorumSetsIt) {
  constexpr char kKv[] = "kraft.version";
  MetadataImage fresh = Image({Broker(1, 2)});
  std::vector<pb::MetadataRecord> raised;
  FinalizeFeatures(fresh, Registration(2), &raised);
  for (const auto& r : raised) EXPECT_NE(r.feature_level().name(), kKv) << "a registration raised kraft.version";
  ExpectRefused(PlanUpdateFeatures(fresh, Request({{kKv, 1, Update::UPGRADE}})), ErrorCode::kInvalidUpdateVersion,
                "only the upgrade of a static quorum");
  Plan same = PlanUpdateFeatures(fresh, Request({{kKv, 0, Update::UPGRADE}}));
  EXPECT_TRUE(same.outcome.ok()) << same.outcome.message;
  EXPECT_TRUE(same.records.empty());

  MetadataImage dynamic = Image({Broker(1, 2), Level(kKv, 1)});
  ExpectRefused(PlanUpdateFeatures(dynamic, Request({{kKv, 0, Update::UNSAFE_DOWNGRADE}})),
                ErrorCode::kInvalidUpdateVersion, "cannot become static");
  Plan current = PlanUpdateFeatures(dynamic, Request({{kKv, 1, Update::UPGRADE}}));
  EXPECT_TRUE(current.outcome.ok()) << current.outcome.message;
  EXPECT_TRUE(current.records.empty()) << "no FeatureLevel record for the quorum's feature";
  std::vector<admin::v1::DescribeFeaturesResponse::Feature> features = DescribeFeatures(dynamic);
  ASSERT_EQ(features.size(), 2u);
  EXPECT_EQ(features[0].name(), kKv) << "by name";
  EXPECT_EQ(features[0].max_level(), 1);
  EXPECT_EQ(features[0].finalized_level(), 1);
}

TEST(DescribeFeatures, ShowsTheLevelsTheOperatorAndTheBrokers) {
  MetadataImage image = Image({Broker(1, 2), Broker(2, 1), Level(kTv, 1, /*by_operator=*/true)});
  std::vector<admin::v1::DescribeFeaturesResponse::Feature> features = DescribeFeatures(image);
  ASSERT_EQ(features.size(), 2u);
  EXPECT_EQ(features[1].name(), kTv);
  EXPECT_EQ(features[1].min_level(), 0);
  EXPECT_EQ(features[1].max_level(), kTransactionVersionLatest);
  EXPECT_EQ(features[1].finalized_level(), 1);
  EXPECT_TRUE(features[1].set_by_operator());
  EXPECT_EQ(features[1].brokers_max_level(), 1) << "broker 2 runs level 1 at most";
  EXPECT_EQ(DescribeFeatures(MetadataImage()).at(1).brokers_max_level(), kTransactionVersionLatest)
      << "no broker: this build's";
}

}  // namespace
}  // namespace strata::controller
