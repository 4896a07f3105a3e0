#pragma once
// FeatureControl: the controller's decisions on finalized feature levels (features.h has
// the features this build supports), as pure functions from the metadata image and a
// request to the FeatureLevel records that carry them out (or a Kafka error and none).
// Two ways a level changes, as in Kafka's FeatureControlManager where Kafka has them:
//  * UpdateFeatures, an operator's upgrade, downgrade or disable (kafka-features.sh,
//    `strata features`). Kafka's rules: INVALID_UPDATE_VERSION for an unknown feature,
//    an unknown upgrade type, a negative level, a level this controller's build does not
//    support, a level some registered broker (fenced or not) does not support (naming
//    that broker), a lower level without SAFE_DOWNGRADE or UNSAFE_DOWNGRADE, and a higher
//    one with either. The updates of a request are decided together: the first refused
//    refuses all, nothing written; validate_only decides and writes nothing.
//  * Automatic finalization when a broker registers (Strata's; Kafka finalizes at format
//    time): a feature rises to the highest level every registered broker supports, never
//    down, and never once an operator set it (FeatureLevel.set_by_operator): an
//    operator's downgrade stays until an operator upgrades again, as Kafka's levels only
//    ever change by UpdateFeatures.
// metadata.version is not a Strata feature and is refused (README.md, "Features").
// Thread-safe (stateless).

#include <cstdint>
#include <string>
#include <vector>

#include "admin.pb.h"
#include "controller.pb.h"
#include "controller/metadata_image.h"
#include "controller/plan.h"

namespace strata::controller {

// Kafka's feature of the metadata records' version, which Strata does not have.
inline constexpr char kMetadataVersionFeature[] = "metadata.version";

// One UpdateFeatures request: a FeatureLevel record (set_by_operator) per update that
// changes something, all or none; no records with validate_only.
Plan PlanUpdateFeatures(const MetadataImage& image, const admin::v1::UpdateFeaturesRequest& request);

// The highest level of `feature` every registered broker supports (one that does not
// name it: 0), at most `ceiling`; the broker `except` is left out (its registration is
// being replaced).
int32_t BrokersMaxLevel(const MetadataImage& image, const std::string& feature, int32_t ceiling,
                        BrokerId except = -1);

// The FeatureLevel records that raise each feature to the highest level every registered
// broker supports once `registering` replaces its earlier registration (none when no
// feature rises; a level is never lowered, and a feature an operator set is left alone).
void FinalizeFeatures(const MetadataImage& image, const controller::v1::BrokerRegistrationRequest& registering,
                      std::vector<pb::MetadataRecord>* records);

// Each feature this build supports, with its finalized level and what the registered
// brokers support (`strata features describe`).
std::vector<admin::v1::DescribeFeaturesResponse::Feature> DescribeFeatures(const MetadataImage& image);

}  // namespace strata::controller
