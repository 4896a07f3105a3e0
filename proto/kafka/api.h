#pragma once
// The Kafka APIs: their keys and names, the first flexible version of each (from the
// message schemas), and which header versions a request and its response use. Which
// APIs and versions a broker serves (and ApiVersions advertises) is the broker's
// registry (broker/handlers/api_registry.h), not this table.
// Thread-safe (constant tables).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"

namespace strata::proto::kafka {

enum class ApiKey : int16_t {
  kProduce = 0,
  kFetch = 1,
  kListOffsets = 2,
  kMetadata = 3,
  kOffsetCommit = 8,
  kOffsetFetch = 9,
  kFindCoordinator = 10,
  kJoinGroup = 11,
  kHeartbeat = 12,
  kLeaveGroup = 13,
  kSyncGroup = 14,
  kDescribeGroups = 15,
  kListGroups = 16,
  kSaslHandshake = 17,
  kOffsetForLeaderEpoch = 23,
  kApiVersions = 18,
  kCreateTopics = 19,
  kDeleteTopics = 20,
  kDeleteRecords = 21,
  kInitProducerId = 22,
  kAddPartitionsToTxn = 24,
  kAddOffsetsToTxn = 25,
  kEndTxn = 26,
  kWriteTxnMarkers = 27,
  kTxnOffsetCommit = 28,
  kDescribeAcls = 29,
  kCreateAcls = 30,
  kDeleteAcls = 31,
  kDescribeConfigs = 32,
  kAlterConfigs = 33,
  kAlterReplicaLogDirs = 34,
  kDescribeLogDirs = 35,
  kSaslAuthenticate = 36,
  kCreatePartitions = 37,
  kDeleteGroups = 42,
  kElectLeaders = 43,
  kIncrementalAlterConfigs = 44,
  kAlterPartitionReassignments = 45,
  kListPartitionReassignments = 46,
  kOffsetDelete = 47,
  kDescribeClientQuotas = 48,
  kAlterClientQuotas = 49,
  kDescribeUserScramCredentials = 50,
  kAlterUserScramCredentials = 51,
  kDescribeQuorum = 55,
  kUpdateFeatures = 57,
  kDescribeCluster = 60,
  kDescribeProducers = 61,
  kUnregisterBroker = 64,
  kDescribeTransactions = 65,
  kListTransactions = 66,
  kConsumerGroupHeartbeat = 68,
  kConsumerGroupDescribe = 69,
  kShareGroupHeartbeat = 76,
  kShareGroupDescribe = 77,
  kShareFetch = 78,
  kShareAcknowledge = 79,
  kAddRaftVoter = 80,
  kRemoveRaftVoter = 81,
  kUpdateRaftVoter = 82,
  kInitializeShareGroupState = 83,
  kReadShareGroupState = 84,
  kWriteShareGroupState = 85,
  kDeleteShareGroupState = 86,
  kReadShareGroupStateSummary = 87,
  kDescribeShareGroupOffsets = 90,
  kAlterShareGroupOffsets = 91,
  kDeleteShareGroupOffsets = 92,
};

absl::string_view ApiName(int16_t api_key);

// The first version whose messages use the flexible encoding; nullopt for an API this
// table does not know, or one never flexible (OffsetDelete; ApiName tells them apart).
std::optional<int16_t> FirstFlexibleVersion(int16_t api_key);
bool IsFlexible(int16_t api_key, int16_t version);

// Where a response of this version holds throttle_time_ms (an int32), in bytes from the
// start of its body, when that place is fixed (the first field of most APIs; OffsetDelete
// after its error code); nullopt otherwise (Produce and ApiVersions hold it after an
// array, the SASL and quorum APIs not at all, older versions of many none).
std::optional<size_t> ThrottleTimeOffset(int16_t api_key, int16_t version);

// Request header: v2 for flexible versions, else v1. Response header: v1 for flexible
// versions, else v0 — except ApiVersions, whose response header is always v0 (so a
// client can read it before it knows the broker's versions).
int RequestHeaderVersion(int16_t api_key, int16_t version);
int ResponseHeaderVersion(int16_t api_key, int16_t version);

struct ApiVersionRange {
  int16_t api_key;
  int16_t min_version;
  int16_t max_version;
};


}  // namespace strata::proto::kafka
