#include "proto/kafka/api.h"

#include <map>

namespace strata::proto::kafka {
namespace {

struct ApiInfo {
  const char* name;
  std::optional<int16_t> first_flexible;  // nullopt: never flexible
  // The first version whose response carries throttle_time_ms at a fixed place, and that
  // place (bytes from the body's start); nullopt: none does (Produce and ApiVersions carry
  // it after an array, the SASL and quorum APIs not at all).
  std::optional<int16_t> throttle_since;
  size_t throttle_offset;
};

// From Kafka's message schemas.
const std::map<int16_t, ApiInfo>& Apis() {
  static const auto* apis = new std::map<int16_t, ApiInfo>{
      {0, {"Produce", 9, std::nullopt, 0}},
      {1, {"Fetch", 12, 1, 0}},
      {2, {"ListOffsets", 6, 2, 0}},
      {3, {"Metadata", 9, 3, 0}},
      {8, {"OffsetCommit", 8, 3, 0}},
      {9, {"OffsetFetch", 6, 3, 0}},
      {10, {"FindCoordinator", 3, 1, 0}},
      {11, {"JoinGroup", 6, 2, 0}},
      {12, {"Heartbeat", 4, 1, 0}},
      {13, {"LeaveGroup", 4, 1, 0}},
      {14, {"SyncGroup", 4, 1, 0}},
      {15, {"DescribeGroups", 5, 1, 0}},
      {16, {"ListGroups", 3, 1, 0}},
      {17, {"SaslHandshake", std::nullopt, std::nullopt, 0}},
      {18, {"ApiVersions", 3, std::nullopt, 0}},
      {19, {"CreateTopics", 5, 2, 0}},
      {20, {"DeleteTopics", 4, 1, 0}},
      {21, {"DeleteRecords", 2, 0, 0}},
      {22, {"InitProducerId", 2, 0, 0}},
      {23, {"OffsetForLeaderEpoch", 4, 2, 0}},
      {24, {"AddPartitionsToTxn", 3, 0, 0}},
      {25, {"AddOffsetsToTxn", 3, 0, 0}},
      {26, {"EndTxn", 3, 0, 0}},
      {27, {"WriteTxnMarkers", 1, std::nullopt, 0}},
      {28, {"TxnOffsetCommit", 3, 0, 0}},
      {29, {"DescribeAcls", 2, 0, 0}},
      {30, {"CreateAcls", 2, 0, 0}},
      {31, {"DeleteAcls", 2, 0, 0}},
      {32, {"DescribeConfigs", 4, 0, 0}},
      {33, {"AlterConfigs", 2, 0, 0}},
      {34, {"AlterReplicaLogDirs", 2, 0, 0}},
      {35, {"DescribeLogDirs", 2, 0, 0}},
      {36, {"SaslAuthenticate", 2, std::nullopt, 0}},
      {37, {"CreatePartitions", 2, 0, 0}},
      {42, {"DeleteGroups", 2, 0, 0}},
      {43, {"ElectLeaders", 2, 0, 0}},
      {44, {"IncrementalAlterConfigs", 1, 0, 0}},
      {45, {"AlterPartitionReassignments", 0, 0, 0}},
      {46, {"ListPartitionReassignments", 0, 0, 0}},
      {47, {"OffsetDelete", std::nullopt, 0, 2}},
      {48, {"DescribeClientQuotas", 1, 0, 0}},
      {49, {"AlterClientQuotas", 1, 0, 0}},
      {50, {"DescribeUserScramCredentials", 0, 0, 0}},
      {51, {"AlterUserScramCredentials", 0, 0, 0}},
      {55, {"DescribeQuorum", 0, std::nullopt, 0}},
      {57, {"UpdateFeatures", 0, 0, 0}},
      {60, {"DescribeCluster", 0, 0, 0}},
      {61, {"DescribeProducers", 0, 0, 0}},
      {64, {"UnregisterBroker", 0, 0, 0}},
      {65, {"DescribeTransactions", 0, 0, 0}},
      {66, {"ListTransactions", 0, 0, 0}},
      {68, {"ConsumerGroupHeartbeat", 0, 0, 0}},
      {69, {"ConsumerGroupDescribe", 0, 0, 0}},
      {76, {"ShareGroupHeartbeat", 0, 0, 0}},
      {77, {"ShareGroupDescribe", 0, 0, 0}},
      {78, {"ShareFetch", 0, 0, 0}},
      {79, {"ShareAcknowledge", 0, 0, 0}},
      {80, {"AddRaftVoter", 0, 0, 0}},
      {81, {"RemoveRaftVoter", 0, 0, 0}},
      {82, {"UpdateRaftVoter", 0, 0, 0}},
      {83, {"InitializeShareGroupState", 0, std::nullopt, 0}},
      {84, {"ReadShareGroupState", 0, std::nullopt, 0}},
      {85, {"WriteShareGroupState", 0, std::nullopt, 0}},
      {86, {"DeleteShareGroupState", 0, std::nullopt, 0}},
      {87, {"ReadShareGroupStateSummary", 0, std::nullopt, 0}},
      {90, {"DescribeShareGroupOffsets", 0, 0, 0}},
      {91, {"AlterShareGroupOffsets", 0, 0, 0}},
      {92, {"DeleteShareGroupOffsets", 0, 0, 0}},
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

std::optional<size_t> ThrottleTimeOffset(int16_t api_key, int16_t version) {
  auto it = Apis().find(api_key);
  if (it == Apis().end() || !it->second.throttle_since || version < *it->second.throttle_since) return std::nullopt;
  return it->second.throttle_offset;
}

int RequestHeaderVersion(int16_t api_key, int16_t version) { return IsFlexible(api_key, version) ? 2 : 1; }

int ResponseHeaderVersion(int16_t api_key, int16_t version) {
  if (api_key == static_cast<int16_t>(ApiKey::kApiVersions)) return 0;
  return IsFlexible(api_key, version) ? 1 : 0;
}

}  // namespace strata::proto::kafka
