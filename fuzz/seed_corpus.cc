// Writes the fuzzers' seed corpora from the project's own encoders, so the seeds always
// match the current codecs: every supported version of the data-path, metadata,
// producer-id, group and ElectLeaders requests (a request frame body: header +
// request), and record data (single and consecutive batches: plain, idempotent,
// transactional, control, headers, null keys and values; each compression codec, as a
// batch and as a bare records section, which the record batch target also feeds to
// every decompressor).
// Usage: seed_corpus <kafka request corpus dir> <record batch corpus dir>

#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include "proto/kafka/api.h"
#include "proto/kafka/alter_configs.h"
#include "proto/kafka/alter_replica_log_dirs.h"
#include "proto/kafka/delete_records.h"
#include "proto/kafka/describe_log_dirs.h"
#include "proto/kafka/client_quotas.h"
#include "proto/kafka/partition_reassignments.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/consumer_protocol.h"
#include "proto/kafka/describe_quorum.h"
#include "proto/kafka/elect_leaders.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/header.h"
#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/join_group.h"
#include "proto/kafka/leave_group.h"
#include "proto/kafka/list_offsets.h"
#include "proto/kafka/metadata.h"
#include "proto/kafka/offset_commit.h"
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
#include "proto/kafka/sasl.h"
#include "proto/kafka/scram_credentials.h"
#include "proto/kafka/sync_group.h"
#include "proto/kafka/raft_voters.h"
#include "proto/kafka/unregister_broker.h"
#include "proto/kafka/update_features.h"
#include "storage/compression.h"
#include "storage/record_batch.h"

namespace {

using namespace strata::proto::kafka;
using strata::storage::RecordBatchBuilder;

int written = 0;

void Save(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  ++written;
}

// suffix tells apart two seeds of one API version.
void SaveRequest(const std::string& dir, ApiKey key, int16_t version,
                 const std::function<void(int16_t, Writer&)>& body, const std::string& suffix = "") {
  std::string out;
  Writer w(&out);
  RequestHeader h;
  h.api_key = static_cast<int16_t>(key);
  h.api_version = version;
  h.correlation_id = 1;
  h.client_id = "seed";
  h.header_version = RequestHeaderVersion(h.api_key, version);
  WriteRequestHeader(h, w);
  body(version, w);
  Save(dir, std::string(ApiName(h.api_key)) + "_v" + std::to_string(version) + suffix, out);
}

std::string Batch(int records, int64_t producer_id = -1, bool transactional = false,
                  strata::storage::Compression codec = strata::storage::Compression::kNone) {
  RecordBatchBuilder b;
  b.set_compression(codec);
  if (producer_id >= 0) b.set_producer(producer_id, 0, 0);
  b.set_transactional(transactional);
  for (int i = 0; i < records; ++i) {
    std::string key = "k" + std::to_string(i);
    b.Add(i % 3 == 0 ? std::nullopt : std::optional<absl::string_view>(key), "value-" + std::to_string(i), 1000 + i,
          i % 2 ? std::vector<strata::storage::RecordHeader>{{"h", "v"}, {"n", std::nullopt}}
                : std::vector<strata::storage::RecordHeader>{});
  }
  return b.Build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: seed_corpus <kafka request corpus dir> <record batch corpus dir>\n";
    return 2;
  }
  const std::string requests = argv[1], batches = argv[2];
  const std::string records = Batch(3);
  for (int16_t v = 0; v <= 4; ++v) {
    SaveRequest(requests, ApiKey::kApiVersions, v, [](int16_t v, Writer& w) {
      ApiVersionsRequest r;
      r.client_software_name = "seed";
      r.client_software_version = "1";
      WriteApiVersionsRequest(r, v, w);
    });
  }
  for (int16_t v = 0; v <= 12; ++v) {
    SaveRequest(requests, ApiKey::kMetadata, v, [](int16_t v, Writer& w) {
      MetadataRequest r;
      r.topics = std::vector<MetadataRequest::Topic>{{std::string(16, '\0'), "orders"}};
      WriteMetadataRequest(r, v, w);
    });
  }
  for (int16_t v = kProduceMinVersion; v <= kProduceMaxVersion; ++v) {
    SaveRequest(requests, ApiKey::kProduce, v, [&](int16_t v, Writer& w) {
      ProduceRequest r;
      r.acks = -1;
      r.timeout_ms = 1000;
      r.topic_data.push_back({"orders", {{0, records}, {1, std::nullopt}}});
      WriteProduceRequest(r, v, w);
    });
  }
  for (int16_t v = kFetchMinVersion; v <= kFetchMaxVersion; ++v) {
    SaveRequest(requests, ApiKey::kFetch, v, [](int16_t v, Writer& w) {
      FetchRequest r;
      r.max_wait_ms = 500;
      r.min_bytes = 1;
      r.rack_id = "r1";
      FetchRequest::Partition p;
      p.fetch_offset = 42;
      p.partition_max_bytes = 1 << 20;
      r.topics.push_back({"orders", std::string(16, 'i'), {p}});
      r.forgotten_topics_data.push_back({"old", std::string(16, 'o'), {1, 2}});
      WriteFetchRequest(r, v, w);
    });
  }
  for (int16_t v = kListOffsetsMinVersion; v <= kListOffsetsMaxVersion; ++v) {
    SaveRequest(requests, ApiKey::kListOffsets, v, [](int16_t v, Writer& w) {
      ListOffsetsRequest r;
      r.topics.push_back({"orders", {{0, 3, kListOffsetsEarliestTimestamp}, {1, -1, 1700000000000}}});
      WriteListOffsetsRequest(r, v, w);
    });
  }
  for (int16_t v = kOffsetForLeaderEpochMinVersion; v <= kOffsetForLeaderEpochMaxVersion; ++v) {
    SaveRequest(requests, ApiKey::kOffsetForLeaderEpoch, v, [](int16_t v, Writer& w) {
      OffsetForLeaderEpochRequest r;
      r.replica_id = -1;
      r.topics.push_back({"orders", {{0, 5, 4}}});
      WriteOffsetForLeaderEpochRequest(r, v, w);
    });
  }
  for (int16_t v = 0; v <= 4; ++v) {
    SaveRequest(requests, ApiKey::kInitProducerId, v, [](int16_t v, Writer& w) {
      InitProducerIdRequest r;
      WriteInitProducerIdRequest(r, v, w);
    });
  }
  // The group APIs, with a consumer-protocol subscription as a JoinGroup would carry.
  for (int16_t v = 0; v <= 9; ++v) {
    SaveRequest(requests, ApiKey::kJoinGroup, v, [](int16_t v, Writer& w) {
      JoinGroupRequest r;
      r.group_id = "g";
      r.session_timeout_ms = 10000;
      r.rebalance_timeout_ms = 30000;
      r.protocol_type = "consumer";
      ConsumerSubscription sub;
      sub.topics = {"orders"};
      r.protocols = {{"range", WriteConsumerSubscription(sub, 1)}};
      WriteJoinGroupRequest(r, v, w);
    });
    SaveRequest(requests, ApiKey::kOffsetCommit, v, [](int16_t v, Writer& w) {
      OffsetCommitRequest r;
      r.group_id = "g";
      r.topics = {{"orders", {{0, 42, 3, -1, std::string("m")}}}};
      WriteOffsetCommitRequest(r, v, w);
    });
    SaveRequest(requests, ApiKey::kOffsetFetch, v, [](int16_t v, Writer& w) {
      OffsetFetchRequest r;
      r.group_id = "g";
      r.topics = std::vector<OffsetFetchRequest::Topic>{{"orders", {0, 1}}};
      r.groups = {{"g", std::nullopt, -1, std::nullopt}};
      WriteOffsetFetchRequest(r, v, w);
    });
  }
  for (int16_t v = 0; v <= 5; ++v) {
    SaveRequest(requests, ApiKey::kSyncGroup, v, [](int16_t v, Writer& w) {
      SyncGroupRequest r;
      r.group_id = "g";
      r.member_id = "m";
      r.assignments = {{"m", "a"}};
      WriteSyncGroupRequest(r, v, w);
    });
    SaveRequest(requests, ApiKey::kLeaveGroup, v, [](int16_t v, Writer& w) {
      LeaveGroupRequest r;
      r.group_id = "g";
      r.member_id = "m";
      r.members = {{"m", std::string("i"), std::nullopt}};
      WriteLeaveGroupRequest(r, v, w);
    });
  }
  for (int16_t v = 0; v <= 6; ++v) {
    SaveRequest(requests, ApiKey::kFindCoordinator, v, [](int16_t v, Writer& w) {
      FindCoordinatorRequest r;
      r.key = "g";
      r.coordinator_keys = {"g", "h"};
      WriteFindCoordinatorRequest(r, v, w);
    });
  }
  // ElectLeaders, naming partitions (v0 has no election type) and all of them (null).
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kElectLeaders, v, [](int16_t v, Writer& w) {
      ElectLeadersRequest r;
      r.election_type = static_cast<int8_t>(ElectionType::kUnclean);
      r.topic_partitions = std::vector<ElectLeadersRequest::TopicPartitions>{{"orders", {0, 1}}, {"audit", {}}};
      WriteElectLeadersRequest(r, v, w);
    });
  }
  SaveRequest(
      requests, ApiKey::kElectLeaders, 2,
      [](int16_t v, Writer& w) { WriteElectLeadersRequest(ElectLeadersRequest{}, v, w); }, "_all");
  // DescribeQuorum of the metadata log, as kafka-metadata-quorum sends it.
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kDescribeQuorum, v, [](int16_t v, Writer& w) {
      DescribeQuorumRequest r;
      r.topics.push_back({kClusterMetadataTopic, {0}});
      WriteDescribeQuorumRequest(r, v, w);
    });
  }
  // The SASL exchange (PLAIN and SCRAM tokens) and the SCRAM credential APIs.
  for (int16_t v = 0; v <= 1; ++v) {
    SaveRequest(requests, ApiKey::kSaslHandshake, v,
                [](int16_t v, Writer& w) { WriteSaslHandshakeRequest({"SCRAM-SHA-256"}, v, w); });
  }
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(
        requests, ApiKey::kSaslAuthenticate, v,
        [](int16_t v, Writer& w) { WriteSaslAuthenticateRequest({std::string("\0alice\0secret", 13)}, v, w); },
        "_plain");
    SaveRequest(
        requests, ApiKey::kSaslAuthenticate, v,
        [](int16_t v, Writer& w) { WriteSaslAuthenticateRequest({"n,,n=alice,r=abcdefgh"}, v, w); }, "_scram_first");
    SaveRequest(
        requests, ApiKey::kSaslAuthenticate, v,
        [](int16_t v, Writer& w) {
          WriteSaslAuthenticateRequest({"c=biws,r=fuzzabcdefgh,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="}, v, w);
        },
        "_scram_final");
  }
  SaveRequest(requests, ApiKey::kDescribeUserScramCredentials, 0, [](int16_t v, Writer& w) {
    WriteDescribeUserScramCredentialsRequest({std::vector<std::string>{"alice", "bob"}}, v, w);
  });
  SaveRequest(requests, ApiKey::kAlterUserScramCredentials, 0, [](int16_t v, Writer& w) {
    AlterUserScramCredentialsRequest r;
    r.deletions.push_back({"bob", 1});
    r.upsertions.push_back({"alice", 2, 8192, "salt", std::string(64, 'p')});
    WriteAlterUserScramCredentialsRequest(r, v, w);
  });
  // The transaction APIs (issue 37).
  for (int16_t v = 0; v <= 5; ++v) {
    SaveRequest(requests, ApiKey::kAddPartitionsToTxn, v, [](int16_t v, Writer& w) {
      AddPartitionsToTxnRequest r;
      r.transactions.push_back({"tx", 1000, 2, v >= 4, {{"orders", {0, 1}}}});
      WriteAddPartitionsToTxnRequest(r, v, w);
    });
    SaveRequest(requests, ApiKey::kEndTxn, v,
                [](int16_t v, Writer& w) { WriteEndTxnRequest({"tx", 1000, 2, true}, v, w); });
    SaveRequest(requests, ApiKey::kTxnOffsetCommit, v, [](int16_t v, Writer& w) {
      TxnOffsetCommitRequest r;
      r.transactional_id = "tx";
      r.group_id = "g";
      r.producer_id = 1000;
      r.producer_epoch = 2;
      r.topics.push_back({"orders", {{0, 42, 3, std::string("m")}}});
      WriteTxnOffsetCommitRequest(r, v, w);
    });
  }
  for (int16_t v = 0; v <= 4; ++v) {
    SaveRequest(requests, ApiKey::kAddOffsetsToTxn, v,
                [](int16_t v, Writer& w) { WriteAddOffsetsToTxnRequest({"tx", 1000, 2, "g"}, v, w); });
  }
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kWriteTxnMarkers, v, [](int16_t v, Writer& w) {
      WriteTxnMarkersRequest r;
      r.markers.push_back({1000, 2, true, {{"orders", {0, 1}}}, 7, 0});
      WriteWriteTxnMarkersRequest(r, v, w);
    });
    SaveRequest(requests, ApiKey::kListTransactions, v, [](int16_t v, Writer& w) {
      ListTransactionsRequest r;
      r.state_filters = {"Ongoing"};
      r.producer_id_filters = {1000};
      WriteListTransactionsRequest(r, v, w);
    });
  }
  SaveRequest(requests, ApiKey::kDescribeProducers, 0, [](int16_t v, Writer& w) {
    DescribeProducersRequest r;
    r.topics.push_back({"orders", {0}});
    WriteDescribeProducersRequest(r, v, w);
  });
  SaveRequest(requests, ApiKey::kDescribeTransactions, 0,
              [](int16_t v, Writer& w) { WriteDescribeTransactionsRequest({{"tx"}}, v, w); });
  // The ACL APIs, v0 (no pattern type) to v3 (flexible).
  for (int16_t v = 0; v <= 3; ++v) {
    SaveRequest(requests, ApiKey::kDescribeAcls, v, [](int16_t v, Writer& w) {
      AclFilterFields f;
      f.resource_type = 2;
      f.resource_name = "orders";
      f.principal = "User:alice";
      WriteDescribeAclsRequest(f, v, w);
    });
    SaveRequest(requests, ApiKey::kCreateAcls, v, [](int16_t v, Writer& w) {
      CreateAclsRequest r;
      r.creations.push_back({2, "orders", 3, "User:alice", "*", 3, 3});
      r.creations.push_back({3, "g", 4, "User:*", "10.0.0.1", 8, 2});
      WriteCreateAclsRequest(r, v, w);
    });
    SaveRequest(requests, ApiKey::kDeleteAcls, v, [](int16_t v, Writer& w) {
      DeleteAclsRequest r;
      r.filters.push_back({});
      r.filters.push_back({2, "orders", 2, "User:alice", std::nullopt, 3, 3});
      WriteDeleteAclsRequest(r, v, w);
    });
  }
  // The operator's API (issue 38).
  AlterConfigsRequest configs;
  configs.resources.push_back({2, "orders", {{"cleanup.policy", 2, std::string("compact")}, {"retention.ms", 1, {}}}});
  configs.resources.push_back({4, "", {{"log.retention.ms", 0, std::string("1000")}}});
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kAlterConfigs, v, [&](int16_t v, Writer& w) {
      WriteAlterConfigsRequest(configs, static_cast<int16_t>(ApiKey::kAlterConfigs), v, w);
    });
  }
  for (int16_t v = 0; v <= 1; ++v) {
    SaveRequest(requests, ApiKey::kIncrementalAlterConfigs, v, [&](int16_t v, Writer& w) {
      WriteAlterConfigsRequest(configs, static_cast<int16_t>(ApiKey::kIncrementalAlterConfigs), v, w);
    });
  }
  DeleteRecordsRequest delete_records;
  delete_records.topics.push_back({"orders", {{0, 10}, {1, -1}}});
  delete_records.timeout_ms = 30000;
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kDeleteRecords, v,
                [&](int16_t v, Writer& w) { WriteDeleteRecordsRequest(delete_records, v, w); });
  }
  DescribeLogDirsRequest log_dirs;
  log_dirs.topics.emplace();
  log_dirs.topics->push_back({"orders", {0, 1}});
  for (int16_t v = 0; v <= 5; ++v) {
    SaveRequest(requests, ApiKey::kDescribeLogDirs, v,
                [&](int16_t v, Writer& w) { WriteDescribeLogDirsRequest(log_dirs, v, w); });
  }
  // Two dirs, the same partition under both (the last wins).
  AlterReplicaLogDirsRequest alter_log_dirs;
  alter_log_dirs.dirs.push_back({"/data/logs-1", {{"orders", {0, 1}}, {"audit", {2}}}});
  alter_log_dirs.dirs.push_back({"/data/logs-2", {{"orders", {1}}}});
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kAlterReplicaLogDirs, v,
                [&](int16_t v, Writer& w) { WriteAlterReplicaLogDirsRequest(alter_log_dirs, v, w); });
  }
  AlterPartitionReassignmentsRequest reassign;
  reassign.topics.push_back({"orders", {{0, std::vector<int32_t>{2, 3, 4}}, {1, std::nullopt}}});
  for (int16_t v = 0; v <= 1; ++v) {
    SaveRequest(requests, ApiKey::kAlterPartitionReassignments, v,
                [&](int16_t v, Writer& w) { WriteAlterPartitionReassignmentsRequest(reassign, v, w); });
  }
  ListPartitionReassignmentsRequest list_reassignments;
  list_reassignments.topics.emplace();
  list_reassignments.topics->push_back({"orders", {0, 1}});
  SaveRequest(requests, ApiKey::kListPartitionReassignments, 0,
              [&](int16_t v, Writer& w) { WriteListPartitionReassignmentsRequest(list_reassignments, v, w); });
  DescribeClientQuotasRequest describe_quotas;
  describe_quotas.components = {{"user", 0, std::string("alice")}, {"client-id", 1, std::nullopt}};
  AlterClientQuotasRequest alter_quotas;
  alter_quotas.entries.push_back({{{"user", std::string("alice")}}, {{"producer_byte_rate", 1048576, false}}});
  for (int16_t v = 0; v <= 1; ++v) {
    SaveRequest(requests, ApiKey::kDescribeClientQuotas, v,
                [&](int16_t v, Writer& w) { WriteDescribeClientQuotasRequest(describe_quotas, v, w); });
    SaveRequest(requests, ApiKey::kAlterClientQuotas, v,
                [&](int16_t v, Writer& w) { WriteAlterClientQuotasRequest(alter_quotas, v, w); });
  }
  // An upgrade and a downgrade (v0: allow_downgrade; v1+: the upgrade type), validate only.
  UpdateFeaturesRequest update_features;
  update_features.feature_updates.push_back({"transaction.version", 2, false, 1});
  update_features.feature_updates.push_back({"other.version", 0, true, 2});
  update_features.validate_only = true;
  for (int16_t v = 0; v <= 2; ++v) {
    SaveRequest(requests, ApiKey::kUpdateFeatures, v,
                [&](int16_t v, Writer& w) { WriteUpdateFeaturesRequest(update_features, v, w); });
  }
  SaveRequest(requests, ApiKey::kUnregisterBroker, 0,
              [](int16_t v, Writer& w) { WriteUnregisterBrokerRequest(UnregisterBrokerRequest{4}, v, w); });
  AddRaftVoterRequest add_voter{"c", 30000, 4, std::string(16, 'd'), {{"CONTROLLER", "h4", 9093}}, false};
  for (int16_t v = 0; v <= 1; ++v) {
    SaveRequest(requests, ApiKey::kAddRaftVoter, v,
                [&](int16_t v, Writer& w) { WriteAddRaftVoterRequest(add_voter, v, w); });
  }
  SaveRequest(requests, ApiKey::kRemoveRaftVoter, 0, [](int16_t v, Writer& w) {
    WriteRemoveRaftVoterRequest(RemoveRaftVoterRequest{std::nullopt, 2, std::string(16, 'b')}, v, w);
  });
  SaveRequest(requests, ApiKey::kUpdateRaftVoter, 0, [](int16_t v, Writer& w) {
    WriteUpdateRaftVoterRequest(
        UpdateRaftVoterRequest{"c", 3, 1, std::string(16, 'a'), {{"CONTROLLER", "h1", 9093}}, 0, 1}, v, w);
  });
  Save(batches, "plain", Batch(1));
  Save(batches, "several_records", Batch(7));
  Save(batches, "idempotent", Batch(4, 42));
  Save(batches, "transactional", Batch(2, 7, true));
  Save(batches, "two_batches", Batch(2) + Batch(3, 42));
  RecordBatchBuilder control;
  control.set_producer(7, 0, 0).set_control(true).Add(std::string("\0\0\0\0", 4), std::string("\0\0\0\0\0\0", 6), 5);
  Save(batches, "control", control.Build());
  using strata::storage::Compression;
  for (Compression codec : {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    std::string name = strata::storage::CompressionName(codec);
    std::string batch = Batch(5, 42, false, codec);
    Save(batches, name, batch);
    Save(batches, name + "_after_plain", Batch(2) + batch);
    // The records section alone: a stream of the codec's framing.
    Save(batches, name + "_section", batch.substr(strata::storage::batch_layout::kHeaderSize));
  }
  std::cout << "wrote " << written << " seeds\n";
  return 0;
}
