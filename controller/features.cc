#include "controller/features.h"

namespace strata::controller {

std::vector<metadata::v1::FeatureRange> SupportedFeatures() {
  metadata::v1::FeatureRange tv;
  tv.set_name(kTransactionVersionFeature);
  tv.set_min_level(0);
  tv.set_max_level(kTransactionVersionLatest);
  metadata::v1::FeatureRange kv;
  kv.set_name(kKraftVersionFeature);
  kv.set_min_level(0);
  kv.set_max_level(1);
  return {tv, kv};
}

int32_t MaxSupportedLevel(const google::protobuf::RepeatedPtrField<metadata::v1::FeatureRange>& supported,
                          const std::string& name) {
  for (const auto& f : supported) {
    if (f.name() == name) return f.max_level();
  }
  return 0;
}

}  // namespace strata::controller
