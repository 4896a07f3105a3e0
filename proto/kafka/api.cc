#include "proto/kafka/api.h"

#include <map>

namespace strata::proto::kafka {
namespace {

struct ApiInfo {
  const char* name;
  int16_t first_flexible;
};

const std::map<int16_t, ApiInfo>& Apis() {
  static const auto* apis = new std::map<int16_t, ApiInfo>{
      {0, {"Produce", 9}},         {1, {"Fetch", 12}},           {2, {"ListOffsets", 6}},
      {3, {"Metadata", 9}},        {18, {"ApiVersions", 3}},     {19, {"CreateTopics", 5}},
      {20, {"DeleteTopics", 4}},   {22, {"InitProducerId", 2}},  {23, {"OffsetForLeaderEpoch", 4}},
      {32, {"DescribeConfigs", 4}}, {37, {"CreatePartitions", 2}}, {60, {"DescribeCluster", 0}},
  };
  return *apis;
}

}  // namespace

absl::string_view ApiName(int16_t api_key) {
  auto it = Apis().find(api_key);
  return it == Apis().end() ? "Unknown" : it->second.name;
}

std::optional<int16_t> FirstFlexibleVersion(int16_t api_key) {
  auto it = Apis().find(api_key);
  if (it == Apis().end()) return std::nullopt;
  return it->second.first_flexible;
}

bool IsFlexible(int16_t api_key, int16_t version) {
  auto first = FirstFlexibleVersion(api_key);
  return first.has_value() && version >= *first;
}

int RequestHeaderVersion(int16_t api_key, int16_t version) { return IsFlexible(api_key, version) ? 2 : 1; }

int ResponseHeaderVersion(int16_t api_key, int16_t version) {
  if (api_key == static_cast<int16_t>(ApiKey::kApiVersions)) return 0;
  return IsFlexible(api_key, version) ? 1 : 0;
}

const std::vector<ApiVersionRange>& SupportedApis() {
  // Only what the broker implements is advertised (a new handler adds its range here).
  static const auto* supported = new std::vector<ApiVersionRange>{
      {static_cast<int16_t>(ApiKey::kMetadata), 0, 12},
      {static_cast<int16_t>(ApiKey::kApiVersions), 0, 3},
      {static_cast<int16_t>(ApiKey::kInitProducerId), 0, 4},
      // Produce 0-2 advertised and refused with UNSUPPORTED_VERSION, as Kafka 4.0 does:
      // newer librdkafka turns compression off when Produce v0 is not advertised.
      {static_cast<int16_t>(ApiKey::kProduce), 0, 9},
      {static_cast<int16_t>(ApiKey::kFetch), 4, 13},
      {static_cast<int16_t>(ApiKey::kListOffsets), 1, 8},
      {static_cast<int16_t>(ApiKey::kOffsetForLeaderEpoch), 2, 4},
      {static_cast<int16_t>(ApiKey::kCreateTopics), 2, 7},
      {static_cast<int16_t>(ApiKey::kDeleteTopics), 1, 6},
      {static_cast<int16_t>(ApiKey::kCreatePartitions), 0, 3},
      {static_cast<int16_t>(ApiKey::kDescribeConfigs), 1, 4},
      {static_cast<int16_t>(ApiKey::kDescribeCluster), 0, 1},
  };
  return *supported;
}

std::optional<ApiVersionRange> SupportedRange(int16_t api_key) {
  for (const ApiVersionRange& r : SupportedApis()) {
    if (r.api_key == api_key) return r;
  }
  return std::nullopt;
}

}  // namespace strata::proto::kafka
