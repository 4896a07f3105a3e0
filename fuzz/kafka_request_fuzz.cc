// Fuzz target: a Kafka request frame body (header and request) as the listener receives
// it. Decoding must never read out of bounds, allocate by a claimed count, or crash:
// every input either decodes or is refused with a status.

#include <cstddef>
#include <cstdint>

#include "proto/kafka/alter_configs.h"
#include "proto/kafka/alter_replica_log_dirs.h"
#include "proto/kafka/delete_records.h"
#include "proto/kafka/describe_log_dirs.h"
#include "proto/kafka/client_quotas.h"
#include "proto/kafka/partition_reassignments.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/consumer_protocol.h"
#include "proto/kafka/create_partitions.h"
#include "proto/kafka/create_topics.h"
#include "proto/kafka/delete_groups.h"
#include "proto/kafka/delete_topics.h"
#include "proto/kafka/describe_cluster.h"
#include "proto/kafka/describe_configs.h"
#include "proto/kafka/describe_groups.h"
#include "proto/kafka/describe_quorum.h"
#include "proto/kafka/elect_leaders.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/header.h"
#include "proto/kafka/heartbeat.h"
#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/join_group.h"
#include "proto/kafka/leave_group.h"
#include "proto/kafka/list_groups.h"
#include "proto/kafka/list_offsets.h"
#include "proto/kafka/metadata.h"
#include "proto/kafka/offset_commit.h"
#include "proto/kafka/offset_delete.h"
#include "proto/kafka/offset_fetch.h"
#include "proto/kafka/offset_for_leader_epoch.h"
#include "proto/kafka/acls.h"
#include "proto/kafka/add_offsets_to_txn.h"
#include "proto/kafka/add_partitions_to_txn.h"
#include "proto/kafka/describe_producers.h"
#include "proto/kafka/describe_transactions.h"
#include "proto/kafka/end_txn.h"
#include "proto/kafka/list_transactions.h"
#include "proto/kafka/txn_offset_commit.h"
#include "proto/kafka/write_txn_markers.h"
#include "proto/kafka/produce.h"
#include "proto/kafka/raft_voters.h"
#include "proto/kafka/sasl.h"
#include "proto/kafka/scram_credentials.h"
#include "proto/kafka/sync_group.h"
#include "proto/kafka/unregister_broker.h"
#include "proto/kafka/update_features.h"
#include "proto/kafka/wire.h"
#include "security/jaas_config.h"
#include "security/jwt.h"
#include "security/sasl_plain.h"
#include "security/scram.h"

namespace {

// Decodes a request; one that decodes must encode and decode again in full (a codec that
// cannot read its own output is asymmetric).
template <typename ReadFn, typename WriteFn>
void DecodeAndReencode(strata::proto::kafka::Reader& body, int16_t version, ReadFn read, WriteFn write) {
  auto request = read(body, version);
  if (!request.ok()) return;
  std::string out;
  strata::proto::kafka::Writer w(&out);
  write(*request, version, w);
  strata::proto::kafka::Reader again(out);
  if (!read(again, version).ok() || again.remaining() != 0) __builtin_trap();
}

bool Within(int16_t version, int16_t min, int16_t max) { return version >= min && version <= max; }

// A SASL token as the PLAIN and SCRAM servers read it: refused or accepted, never a crash
// (the SCRAM server is given a user with a credential, so the client-final is reached).
void SaslTokens(absl::string_view token) {
  namespace security = strata::security;
  static const security::PlainUsers* plain = new security::PlainUsers({{"alice", "secret"}});
  (void)plain->Authenticate(token);
  static const security::ScramCredential* credential = new security::ScramCredential(
      security::CredentialFromSaltedPassword(security::ScramMechanism::kSha256, "salt", std::string(32, 'x'), 4096));
  security::ScramServer server(security::ScramMechanism::kSha256,
                               [](const std::string&) { return std::optional<security::ScramCredential>(*credential); });
  (void)server.Step(token);
  // The same bytes as a client-final after a well-formed client-first.
  security::ScramServer second(security::ScramMechanism::kSha256,
                               [](const std::string&) { return std::optional<security::ScramCredential>(*credential); });
  if (second.Step("n,,n=alice,r=fuzz").ok()) (void)second.Step(token);
  (void)strata::security::ParseJaasConfig(token);
  // As an OAUTHBEARER token: a JWT checked against an empty key set.
  (void)security::ValidateJwt(token, security::JwkSet(), security::JwtValidation(), 0);
  (void)security::JwkSet::Parse(token);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata::proto::kafka;
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  Reader reader(input);
  auto header = ReadRequestHeader(reader);
  if (!header.ok()) return 0;
  Reader body(reader.rest());
  if (header->api_key == static_cast<int16_t>(ApiKey::kApiVersions)) {
    (void)ReadApiVersionsRequest(body, header->api_version);
  } else if (header->api_key == static_cast<int16_t>(ApiKey::kMetadata) && header->api_version >= 0 &&
             header->api_version <= 12) {
    (void)ReadMetadataRequest(body, header->api_version);
  } else if (header->api_key == static_cast<int16_t>(ApiKey::kInitProducerId) && header->api_version >= 0 &&
             header->api_version <= 5) {
    (void)ReadInitProducerIdRequest(body, header->api_version);
  } else if (header->api_key == static_cast<int16_t>(ApiKey::kProduce) && header->api_version >= kProduceMinVersion &&
             header->api_version <= kProduceMaxVersion) {
    (void)ReadProduceRequest(body, header->api_version);
  } else if (header->api_key == static_cast<int16_t>(ApiKey::kFetch) && header->api_version >= kFetchMinVersion &&
             header->api_version <= kFetchMaxVersion) {
    (void)ReadFetchRequest(body, header->api_version);
  } else if (header->api_key == static_cast<int16_t>(ApiKey::kListOffsets) &&
             header->api_version >= kListOffsetsMinVersion && header->api_version <= kListOffsetsMaxVersion) {
    (void)ReadListOffsetsRequest(body, header->api_version);
  } else if (header->api_key == static_cast<int16_t>(ApiKey::kOffsetForLeaderEpoch) &&
             header->api_version >= kOffsetForLeaderEpochMinVersion &&
             header->api_version <= kOffsetForLeaderEpochMaxVersion) {
    (void)ReadOffsetForLeaderEpochRequest(body, header->api_version);
  }
  // The admin APIs, over each codec's whole version range.
  int16_t v = header->api_version;
  switch (static_cast<ApiKey>(header->api_key)) {
    case ApiKey::kCreateTopics:
      if (Within(v, 0, 7)) DecodeAndReencode(body, v, ReadCreateTopicsRequest, WriteCreateTopicsRequest);
      break;
    case ApiKey::kDeleteTopics:
      if (Within(v, 0, 6)) DecodeAndReencode(body, v, ReadDeleteTopicsRequest, WriteDeleteTopicsRequest);
      break;
    case ApiKey::kCreatePartitions:
      if (Within(v, 0, 3)) DecodeAndReencode(body, v, ReadCreatePartitionsRequest, WriteCreatePartitionsRequest);
      break;
    case ApiKey::kDescribeConfigs:
      if (Within(v, 0, 4)) DecodeAndReencode(body, v, ReadDescribeConfigsRequest, WriteDescribeConfigsRequest);
      break;
    case ApiKey::kDescribeCluster:
      if (Within(v, 0, 1)) DecodeAndReencode(body, v, ReadDescribeClusterRequest, WriteDescribeClusterRequest);
      break;
    case ApiKey::kElectLeaders:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadElectLeadersRequest, WriteElectLeadersRequest);
      break;
    case ApiKey::kDescribeQuorum:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadDescribeQuorumRequest, WriteDescribeQuorumRequest);
      break;
    // The group APIs.
    case ApiKey::kFindCoordinator:
      if (Within(v, 0, 6)) DecodeAndReencode(body, v, ReadFindCoordinatorRequest, WriteFindCoordinatorRequest);
      break;
    case ApiKey::kJoinGroup:
      if (Within(v, 0, 9)) DecodeAndReencode(body, v, ReadJoinGroupRequest, WriteJoinGroupRequest);
      break;
    case ApiKey::kSyncGroup:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadSyncGroupRequest, WriteSyncGroupRequest);
      break;
    case ApiKey::kHeartbeat:
      if (Within(v, 0, 4)) DecodeAndReencode(body, v, ReadHeartbeatRequest, WriteHeartbeatRequest);
      break;
    case ApiKey::kLeaveGroup:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadLeaveGroupRequest, WriteLeaveGroupRequest);
      break;
    case ApiKey::kOffsetCommit:
      if (Within(v, 0, 9)) DecodeAndReencode(body, v, ReadOffsetCommitRequest, WriteOffsetCommitRequest);
      break;
    case ApiKey::kOffsetFetch:
      if (Within(v, 0, 9)) DecodeAndReencode(body, v, ReadOffsetFetchRequest, WriteOffsetFetchRequest);
      break;
    case ApiKey::kListGroups:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadListGroupsRequest, WriteListGroupsRequest);
      break;
    case ApiKey::kDescribeGroups:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadDescribeGroupsRequest, WriteDescribeGroupsRequest);
      break;
    case ApiKey::kDeleteGroups:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadDeleteGroupsRequest, WriteDeleteGroupsRequest);
      break;
    case ApiKey::kOffsetDelete:
      if (v == 0) DecodeAndReencode(body, v, ReadOffsetDeleteRequest, WriteOffsetDeleteRequest);
      break;
    case ApiKey::kSaslHandshake:
      if (Within(v, 0, 1)) DecodeAndReencode(body, v, ReadSaslHandshakeRequest, WriteSaslHandshakeRequest);
      break;
    case ApiKey::kSaslAuthenticate:
      if (Within(v, 0, 2)) {
        DecodeAndReencode(body, v, ReadSaslAuthenticateRequest, WriteSaslAuthenticateRequest);
        // The token, as each mechanism's server reads it.
        Reader token_reader(reader.rest());
        if (auto token = ReadSaslAuthenticateRequest(token_reader, v); token.ok()) SaslTokens(token->auth_bytes);
      }
      break;
    case ApiKey::kDescribeUserScramCredentials:
      if (v == 0) {
        DecodeAndReencode(body, v, ReadDescribeUserScramCredentialsRequest, WriteDescribeUserScramCredentialsRequest);
      }
      break;
    case ApiKey::kDescribeAcls:
      if (Within(v, 0, 3)) DecodeAndReencode(body, v, ReadDescribeAclsRequest, WriteDescribeAclsRequest);
      break;
    case ApiKey::kCreateAcls:
      if (Within(v, 0, 3)) DecodeAndReencode(body, v, ReadCreateAclsRequest, WriteCreateAclsRequest);
      break;
    case ApiKey::kDeleteAcls:
      if (Within(v, 0, 3)) DecodeAndReencode(body, v, ReadDeleteAclsRequest, WriteDeleteAclsRequest);
      break;
    case ApiKey::kAlterUserScramCredentials:
      if (v == 0) {
        DecodeAndReencode(body, v, ReadAlterUserScramCredentialsRequest, WriteAlterUserScramCredentialsRequest);
      }
      break;
    // The operator's API (issue 38): one codec for both, the api key chooses the layout.
    case ApiKey::kAlterConfigs:
    case ApiKey::kIncrementalAlterConfigs: {
      const int16_t key = header->api_key;
      if (Within(v, 0, key == static_cast<int16_t>(ApiKey::kAlterConfigs) ? 2 : 1)) {
        auto request = ReadAlterConfigsRequest(body, key, v);
        if (request.ok()) {
          std::string out;
          Writer w(&out);
          WriteAlterConfigsRequest(*request, key, v, w);
          Reader again(out);
          if (!ReadAlterConfigsRequest(again, key, v).ok() || again.remaining() != 0) __builtin_trap();
        }
      }
      break;
    }
    case ApiKey::kDeleteRecords:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadDeleteRecordsRequest, WriteDeleteRecordsRequest);
      break;
    case ApiKey::kDescribeLogDirs:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadDescribeLogDirsRequest, WriteDescribeLogDirsRequest);
      break;
    case ApiKey::kAlterReplicaLogDirs:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadAlterReplicaLogDirsRequest, WriteAlterReplicaLogDirsRequest);
      break;
    case ApiKey::kAlterPartitionReassignments:
      if (Within(v, 0, 1)) {
        DecodeAndReencode(body, v, ReadAlterPartitionReassignmentsRequest, WriteAlterPartitionReassignmentsRequest);
      }
      break;
    case ApiKey::kListPartitionReassignments:
      if (Within(v, 0, 0)) {
        DecodeAndReencode(body, v, ReadListPartitionReassignmentsRequest, WriteListPartitionReassignmentsRequest);
      }
      break;
    case ApiKey::kDescribeClientQuotas:
      if (Within(v, 0, 1)) DecodeAndReencode(body, v, ReadDescribeClientQuotasRequest, WriteDescribeClientQuotasRequest);
      break;
    case ApiKey::kAlterClientQuotas:
      if (Within(v, 0, 1)) DecodeAndReencode(body, v, ReadAlterClientQuotasRequest, WriteAlterClientQuotasRequest);
      break;
    case ApiKey::kUpdateFeatures:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadUpdateFeaturesRequest, WriteUpdateFeaturesRequest);
      break;
    case ApiKey::kUnregisterBroker:
      if (v == 0) DecodeAndReencode(body, v, ReadUnregisterBrokerRequest, WriteUnregisterBrokerRequest);
      break;
    case ApiKey::kAddRaftVoter:
      if (Within(v, 0, 1)) DecodeAndReencode(body, v, ReadAddRaftVoterRequest, WriteAddRaftVoterRequest);
      break;
    case ApiKey::kRemoveRaftVoter:
      if (v == 0) DecodeAndReencode(body, v, ReadRemoveRaftVoterRequest, WriteRemoveRaftVoterRequest);
      break;
    case ApiKey::kUpdateRaftVoter:
      if (v == 0) DecodeAndReencode(body, v, ReadUpdateRaftVoterRequest, WriteUpdateRaftVoterRequest);
      break;
    // Transactions (issue 37).
    case ApiKey::kAddPartitionsToTxn:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadAddPartitionsToTxnRequest, WriteAddPartitionsToTxnRequest);
      break;
    case ApiKey::kAddOffsetsToTxn:
      if (Within(v, 0, 4)) DecodeAndReencode(body, v, ReadAddOffsetsToTxnRequest, WriteAddOffsetsToTxnRequest);
      break;
    case ApiKey::kEndTxn:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadEndTxnRequest, WriteEndTxnRequest);
      break;
    case ApiKey::kWriteTxnMarkers:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadWriteTxnMarkersRequest, WriteWriteTxnMarkersRequest);
      break;
    case ApiKey::kTxnOffsetCommit:
      if (Within(v, 0, 5)) DecodeAndReencode(body, v, ReadTxnOffsetCommitRequest, WriteTxnOffsetCommitRequest);
      break;
    case ApiKey::kDescribeProducers:
      if (v == 0) DecodeAndReencode(body, v, ReadDescribeProducersRequest, WriteDescribeProducersRequest);
      break;
    case ApiKey::kDescribeTransactions:
      if (v == 0) DecodeAndReencode(body, v, ReadDescribeTransactionsRequest, WriteDescribeTransactionsRequest);
      break;
    case ApiKey::kListTransactions:
      if (Within(v, 0, 2)) DecodeAndReencode(body, v, ReadListTransactionsRequest, WriteListTransactionsRequest);
      break;
    default:
      break;
  }
  // The consumer protocol's embedded bytes (JoinGroup metadata, SyncGroup assignments).
  (void)ReadConsumerSubscription(reader.rest());
  (void)ReadConsumerAssignment(reader.rest());
  // The primitives over whatever follows, in both encodings.
  for (bool flexible : {false, true}) {
    Reader r(reader.rest());
    int32_t n = r.ArrayLength(flexible, "array");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      r.NullableString(flexible, "name");
      r.VarLong("varlong");
      r.NullableBytes(flexible, "bytes");
      if (flexible) r.SkipTaggedFields("tags");
    }
  }
  return 0;
}
