#include "proto/kafka/api.h"

#include <map>

namespace strata::proto::kafka {
namespace {

struct ApiInfo {
  const char* name;
  std::optional<int16_t> first_flexible;  // nullopt: never flexible
};

const std::map<int16_t, ApiInfo>& Apis() {
  static const auto* apis = new std::map<int16_t, ApiInfo>{
      {0, {"Produce", 9}},         {1, {"Fetch", 12}},           {2, {"ListOffsets", 6}},
      {3, {"Metadata", 9}},        {18, {"ApiVersions", 3}},     {19, {"CreateTopics", 5}},
      {20, {"DeleteTopics", 4}},   {22, {"InitProducerId", 2}},  {23, {"OffsetForLeaderEpoch", 4}},
      {32, {"DescribeConfigs", 4}}, {37, {"CreatePartitions", 2}}, {60, {"DescribeCluster", 0}},
      {8, {"OffsetCommit", 8}},    {9, {"OffsetFetch", 6}},      {10, {"FindCoordinator", 3}},
      {11, {"JoinGroup", 6}},      {12, {"Heartbeat", 4}},       {13, {"LeaveGroup", 4}},
      {14, {"SyncGroup", 4}},      {15, {"DescribeGroups", 5}},  {16, {"ListGroups", 3}},
      {42, {"DeleteGroups", 2}},   {47, {"OffsetDelete", std::nullopt}}, {43, {"ElectLeaders", 2}},
      {55, {"DescribeQuorum", 0}},    {17, {"SaslHandshake", std::nullopt}}, {36, {"SaslAuthenticate", 2}},
      {29, {"DescribeAcls", 2}},  {30, {"CreateAcls", 2}}, {31, {"DeleteAcls", 2}},
      {50, {"DescribeUserScramCredentials", 0}}, {51, {"AlterUserScramCredentials", 0}},
      {24, {"AddPartitionsToTxn", 3}}, {25, {"AddOffsetsToTxn", 3}}, {26, {"EndTxn", 3}},
      {27, {"WriteTxnMarkers", 1}},    {28, {"TxnOffsetCommit", 3}}, {61, {"DescribeProducers", 0}},
      {65, {"DescribeTransactions", 0}}, {66, {"ListTransactions", 0}},
      {33, {"AlterConfigs", 2}},         {44, {"IncrementalAlterConfigs", 1}},
      {21, {"DeleteRecords", 2}},        {35, {"DescribeLogDirs", 2}},
      {45, {"AlterPartitionReassignments", 0}}, {46, {"ListPartitionReassignments", 0}},
      {48, {"DescribeClientQuotas", 1}}, {49, {"AlterClientQuotas", 1}},
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

}  // namespace strata::proto::kafka
