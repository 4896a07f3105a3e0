#pragma once
// Feature versions (Kafka's KIP-584 features): a protocol a cluster can run at several
// levels, finalized cluster-wide in the metadata log (FeatureLevel records) so that every
// broker runs the same one. This build knows two:
//   transaction.version  0-2   2: KIP-890 part 2 (a new producer epoch for every
//                              transaction, partitions added by their leaders)
//   kraft.version        0-1   1: a dynamic controller quorum (KIP-853). Its level is
//                              the quorum's own: the KRaftVersion control record of the
//                              metadata log (raft/voter_set.h), which every node's
//                              image takes as this feature's level (MetadataStore), not a
//                              FeatureLevel record; registrations never raise it and
//                              UpdateFeatures does not set it (QuorumFeature).
// Brokers name the levels they support when they register (a broker that names none
// supports level 0 only). The controller refuses a broker that cannot run a finalized
// level (UNSUPPORTED_VERSION), and raises a feature to the highest level every
// registered broker supports when a registration makes that possible (FinalizeFeatures,
// feature_control.h): a cluster moves to a new level once its last broker runs a build
// that knows it, never back by itself. An operator may set a level with UpdateFeatures
// (kafka-features.sh, `strata features`); registrations leave that feature alone from
// then on. ApiVersions v3+ shows both (docs/transactions.md, "transaction.version").
// Thread-safe (constants and pure functions).

#include <cstdint>
#include <string>
#include <vector>

#include "metadata.pb.h"

namespace strata::controller {

inline constexpr char kTransactionVersionFeature[] = "transaction.version";
inline constexpr int16_t kTransactionVersionLatest = 2;
inline constexpr char kKraftVersionFeature[] = "kraft.version";

// Whether the feature's level is the Raft quorum's (kraft.version), which only the
// quorum's control records change.
inline bool QuorumFeature(const std::string& name) { return name == kKraftVersionFeature; }

// The features this build supports, with their levels.
std::vector<metadata::v1::FeatureRange> SupportedFeatures();

// The highest level of `name` that `supported` includes (0 when not named).
int32_t MaxSupportedLevel(const google::protobuf::RepeatedPtrField<metadata::v1::FeatureRange>& supported,
                          const std::string& name);

}  // namespace strata::controller
