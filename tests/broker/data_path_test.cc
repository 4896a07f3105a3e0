// The broker's data path in one process, with the real pieces: a MetadataStore
// (RocksDB) fed metadata records, a LogManager over real files, the ReplicaManager
// following the image and KafkaApis answering encoded Kafka requests. Covers what the
// Produce, Fetch, ListOffsets and OffsetForLeaderEpoch handlers answer — offsets,
// errors with nothing appended, idempotent retries, LogAppendTime, epoch fencing,
// acks=all and min.insync.replicas, fetch min.bytes waiting in the purgatory — and how
// partitions follow the image (leader/follower, deletion, a recreated topic).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <future>

#include <asio.hpp>
#include <asio/ssl.hpp>

#include <sys/types.h>
#include <unistd.h>

#include "broker/handlers/fetch_session.h"
#include "broker/handlers/kafka_apis.h"
#include "broker/network/listener.h"
#include "broker/handlers/list_offsets_handler.h"
#include "broker/tiered/remote_log_manager.h"
#include "broker/tiered/remote_log_reader.h"
#include "broker/common/remote_segment_id.h"
#include "broker/replication/replica_manager.h"
#include "controller/metadata_store.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/metadata.h"
#include "proto/kafka/list_offsets.h"
#include "proto/kafka/offset_for_leader_epoch.h"
#include "proto/kafka/produce.h"
#include "storage/directory_remote_storage.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/record_batch.h"
#include "tests/support/kafka_test_client.h"
#include "tests/support/loopback_grpc.h"
#include "tests/support/batches.h"
#include "tests/support/metadata_records.h"
#include "tests/support/broker_services.h"
#include "tests/support/response_bytes.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
namespace pb = metadata::v1;
using namespace std::chrono_literals;

constexpr int32_t kBroker = 1;

std::string Id(char c) { return std::string(16, c); }

pb::MetadataRecord TopicRecord(const std::string& name, const std::string& id) {
  pb::MetadataRecord r;
  r.mutable_topic()->set_name(name);
  r.mutable_topic()->set_topic_id(id);
  return r;
}

pb::MetadataRecord PartitionRecord(const std::string& id, int32_t p, std::vector<int32_t> replicas, int32_t leader,
                                   int32_t epoch = 0) {
  pb::MetadataRecord r;
  auto* part = r.mutable_partition();
  part->set_topic_id(id);
  part->set_partition_id(p);
  for (int32_t b : replicas) {
    part->add_replicas(b);
    part->add_isr(b);
  }
  part->set_leader(leader);
  part->set_leader_epoch(epoch);
  return r;
}

pb::MetadataRecord RemoveTopic(const std::string& id) {
  pb::MetadataRecord r;
  r.mutable_remove_topic()->set_topic_id(id);
  return r;
}

pb::MetadataRecord TopicConfig(const std::string& topic, const std::string& key, const std::string& value) {
  pb::MetadataRecord r;
  auto* c = r.mutable_config();
  c->set_resource_type(pb::Config::TOPIC);
  c->set_resource_name(topic);
  c->set_name(key);
  c->set_value(value);
  return r;
}

using testing::AssembleResponse;

class DataPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = controller::MetadataStore::Open(tmp_.Sub("metadata"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    storage::LogManagerOptions lmo;
    lmo.log_dirs = {tmp_.Sub("logs")};
    lmo.cluster_id = "test-cluster";
    lmo.node_id = kBroker;
    lmo.scheduler = &scheduler_;
    lmo.ops = &faults_;
    lmo.default_config.file_delete_delay_ms = 0;
    auto logs = storage::LogManager::Open(lmo);
    ASSERT_TRUE(logs.ok()) << logs.status();
    logs_ = std::move(*logs);
    ReplicaManagerOptions rmo;
    rmo.broker_id = kBroker;
    rmo.logs = logs_.get();
    rmo.default_config = lmo.default_config;
    rmo.ops = &faults_;
    rmo.fetch_from_leaders = false;  // followers here are only followed by hand
    replicas_ = std::make_unique<ReplicaManager>(rmo);
    producer_ids_ = std::make_unique<ProducerIdManager>(testing::NoProducerIdBlocks());
    apis_ = std::make_unique<KafkaApis>(KafkaApisContext{.store = *store_,
                                                         .controller = controller_,
                                                         .producer_ids = *producer_ids_,
                                                         .replicas = *replicas_,
                                                         .broker_id = kBroker,
                                                         .cluster_id = "test-cluster",
                                                         .fetch_sessions = &sessions_});
    replicas_->set_on_high_watermark([this](const storage::TopicPartition& tp) { apis_->OnHighWatermark(tp); });
  }

  void TearDown() override {
    replicas_->Shutdown();  // before apis_: a fetcher's high-watermark callback calls it
    apis_.reset();
    replicas_.reset();
    scheduler_.Shutdown();
  }

  void Apply(std::vector<pb::MetadataRecord> records) {
    pb::MetadataBatch batch;
    for (auto& r : records) *batch.add_records() = std::move(r);
    ASSERT_TRUE(store_->Apply(raft::Entry{1, ++index_, batch.SerializeAsString()}).ok());
    store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
  }

  // A topic of one partition led by this broker (replicas as given).
  void CreateTopic(const std::string& name, char id, std::vector<int32_t> replicas = {kBroker},
                   std::vector<pb::MetadataRecord> configs = {}) {
    std::vector<pb::MetadataRecord> records{TopicRecord(name, Id(id)), PartitionRecord(Id(id), 0, replicas, kBroker)};
    for (auto& c : configs) records.push_back(std::move(c));
    Apply(std::move(records));
  }

  absl::StatusOr<std::optional<ApiResponse>> Call(kafka::ApiKey key, int16_t version, const std::string& body) {
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(key);
    header.api_version = version;
    header.correlation_id = 7;
    return apis_->HandleAndWait(header, body);
  }

  kafka::ProduceResponse::Partition Produce(const std::string& topic, std::string records, int16_t acks = 1,
                                            int16_t version = 9, int32_t timeout_ms = 5000) {
    kafka::ProduceRequest request;
    request.acks = acks;
    request.timeout_ms = timeout_ms;
    request.topic_data.push_back({topic, {{0, std::move(records)}}});
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteProduceRequest(request, version, w);
    auto answer = Call(kafka::ApiKey::kProduce, version, body);
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    if (!answer.ok() || !answer->has_value()) return {};
    kafka::Reader r((*answer)->body);
    auto response = kafka::ReadProduceResponse(r, version);
    EXPECT_TRUE(response.ok()) << response.status();
    return response->responses.at(0).partition_responses.at(0);
  }

  kafka::FetchRequest FetchRequestFor(const std::string& topic, int64_t offset, int32_t min_bytes = 1,
                                      int32_t max_wait_ms = 0) {
    kafka::FetchRequest request;
    request.max_wait_ms = max_wait_ms;
    request.min_bytes = min_bytes;
    kafka::FetchRequest::Partition p;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    request.topics.push_back({topic, std::string(16, '\0'), {p}});
    return request;
  }

  std::string Encode(const kafka::FetchRequest& request, int16_t version) {
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteFetchRequest(request, version, w);
    return body;
  }

  kafka::FetchResponse::Partition DecodeFetch(const absl::StatusOr<std::optional<ApiResponse>>& answer,
                                              int16_t version) {
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    if (!answer.ok() || !answer->has_value()) return {};
    std::string bytes = AssembleResponse(**answer);
    kafka::Reader r(bytes);
    auto response = kafka::ReadFetchResponse(r, version);
    EXPECT_TRUE(response.ok()) << response.status();
    return response->responses.at(0).partitions.at(0);
  }

  kafka::FetchResponse::Partition Fetch(const std::string& topic, int64_t offset, int16_t version = 12) {
    return DecodeFetch(Call(kafka::ApiKey::kFetch, version, Encode(FetchRequestFor(topic, offset), version)), version);
  }

  kafka::ListOffsetsResponse::Partition ListOffsets(const std::string& topic, int64_t timestamp, int16_t version = 8,
                                                    int32_t current_leader_epoch = -1) {
    kafka::ListOffsetsRequest request;
    request.topics.push_back({topic, {{0, current_leader_epoch, timestamp}}});
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteListOffsetsRequest(request, version, w);
    auto answer = Call(kafka::ApiKey::kListOffsets, version, body);
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    kafka::Reader r((*answer)->body);
    auto response = kafka::ReadListOffsetsResponse(r, version);
    EXPECT_TRUE(response.ok()) << response.status();
    return response->topics.at(0).partitions.at(0);
  }

  storage::Log* LogOf(const std::string& topic) { return logs_->GetLog({topic, 0}); }

  testing::TempDir tmp_;
  storage::FaultInjectingFileOps faults_;
  storage::Scheduler scheduler_{1};
  std::unique_ptr<controller::MetadataStore> store_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<ReplicaManager> replicas_;
  // The whole answer to a Fetch.
  kafka::FetchResponse FetchWhole(const kafka::FetchRequest& request, int16_t version = 12) {
    auto answer = Call(kafka::ApiKey::kFetch, version, Encode(request, version));
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    if (!answer.ok() || !answer->has_value()) return {};
    std::string bytes = AssembleResponse(**answer);
    kafka::Reader r(bytes);
    auto response = kafka::ReadFetchResponse(r, version);
    EXPECT_TRUE(response.ok()) << response.status();
    return response.ok() ? *response : kafka::FetchResponse{};
  }

  testing::UnreachableController controller_;
  std::unique_ptr<ProducerIdManager> producer_ids_;
  // Sessions read all their partitions when session_clock_ says a second passed: only
  // when a test advances it.
  storage::ManualClock session_clock_;
  FetchSessionCache sessions_{FetchSessionCacheOptions{.full_read_interval_ms = 1000, .clock = &session_clock_}};
  std::unique_ptr<KafkaApis> apis_;
  int64_t index_ = 0;
};

int16_t Code(kafka::ErrorCode c) { return static_cast<int16_t>(c); }

// The (topic, partition) pairs an answer carries, in order.
std::vector<std::pair<std::string, int32_t>> Answered(const kafka::FetchResponse& response) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& t : response.responses) {
    for (const auto& p : t.partitions) out.emplace_back(t.topic, p.partition_index);
  }
  return out;
}

// One partition of an answer (fails the test when it is not there).
kafka::FetchResponse::Partition PartitionOf(const kafka::FetchResponse& response, const std::string& topic) {
  for (const auto& t : response.responses) {
    if (t.topic == topic && !t.partitions.empty()) return t.partitions[0];
  }
  ADD_FAILURE() << topic << " is not in the answer";
  return {};
}

TEST_F(DataPathTest, ProducedRecordsAreFetchedBackByteForByteInEveryFetchVersion) {
  CreateTopic("orders", 'o');
  std::string first = testing::MakeBatch(3, "a");
  std::string second = testing::MakeBatch(2, "b");
  auto p = Produce("orders", first);
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.base_offset, 0);
  EXPECT_EQ(p.log_append_time_ms, -1);
  p = Produce("orders", second, 1, 3);  // the oldest Produce version still works
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.base_offset, 3);
  for (int16_t version = kafka::kFetchMinVersion; version <= kafka::kFetchMaxVersion; ++version) {
    kafka::FetchRequest request = FetchRequestFor("orders", 0);
    if (version >= 13) request.topics[0].topic_id = Id('o');
    auto fetched = DecodeFetch(Call(kafka::ApiKey::kFetch, version, Encode(request, version)), version);
    ASSERT_EQ(fetched.error_code, 0) << "v" << version;
    EXPECT_EQ(fetched.high_watermark, 5) << "v" << version;
    ASSERT_TRUE(fetched.records.has_value());
    // The stored batches: offsets assigned, the rest as the producer sent them.
    std::string expected_first = first, expected_second = second;
    storage::SetBaseOffset(expected_first.data(), 0);
    storage::SetPartitionLeaderEpoch(expected_first.data(), 0);
    storage::SetBaseOffset(expected_second.data(), 3);
    storage::SetPartitionLeaderEpoch(expected_second.data(), 0);
    EXPECT_EQ(*fetched.records, expected_first + expected_second) << "v" << version;
  }
  // From the middle: the batch holding offset 4 only.
  auto tail = Fetch("orders", 4);
  ASSERT_TRUE(tail.records.has_value());
  EXPECT_EQ(storage::RecordBatchHeader::Parse(tail.records->data()).base_offset, 3);
  EXPECT_EQ(tail.records->size(), second.size());
  // At the high watermark: nothing, no error.
  auto end = Fetch("orders", 5);
  EXPECT_EQ(end.error_code, 0);
  EXPECT_EQ(end.records, std::string());
}

TEST_F(DataPathTest, RejectedBatchesAppendNothingAndSayWhy) {
  CreateTopic("orders", 'o');
  std::string corrupt = testing::MakeBatch(2, "a");
  corrupt.back() ^= 1;  // the CRC no longer matches
  EXPECT_EQ(Produce("orders", corrupt).error_code, Code(kafka::ErrorCode::kCorruptMessage));
  std::string good = testing::MakeBatch(2, "b");
  // A good batch followed by a bad one in the same partition data: neither goes in.
  EXPECT_EQ(Produce("orders", good + corrupt).error_code, Code(kafka::ErrorCode::kCorruptMessage));
  std::string truncated = testing::MakeBatch(2, "c");
  truncated.resize(truncated.size() - 3);
  EXPECT_NE(Produce("orders", truncated).error_code, 0);
  EXPECT_EQ(Produce("orders", "").error_code, Code(kafka::ErrorCode::kInvalidRecord));
  EXPECT_EQ(Produce("nope", good).error_code, Code(kafka::ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(Produce("orders", good, /*acks=*/2).error_code, Code(kafka::ErrorCode::kInvalidRequiredAcks));
  // Produce v0-v2 are advertised (newer librdkafka needs v0 to compress) and refused.
  for (int16_t v = 0; v < kafka::kProduceMinServedVersion; ++v) {
    EXPECT_EQ(Produce("orders", good, 1, v).error_code, Code(kafka::ErrorCode::kUnsupportedVersion)) << "v" << v;
  }
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 0);
  // Too large for the topic's max.message.bytes.
  Apply({TopicConfig("orders", "max.message.bytes", "200")});
  std::string big = testing::MakeBatch(1, "d", 1000, 500);
  EXPECT_EQ(Produce("orders", big).error_code, Code(kafka::ErrorCode::kMessageTooLarge));
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 0);
  EXPECT_EQ(Produce("orders", good).error_code, 0);
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 2);
}

TEST_F(DataPathTest, IdempotentRetryGetsItsOriginalOffsetAndAGapIsRefused) {
  CreateTopic("orders", 'o');
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "x")).base_offset, 0);
  std::string batch = testing::MakeProducerBatch(3, 42, 0, 0);
  EXPECT_EQ(Produce("orders", batch).base_offset, 1);
  auto retry = Produce("orders", batch);
  EXPECT_EQ(retry.error_code, 0);
  EXPECT_EQ(retry.base_offset, 1);
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 4);
  auto gap = Produce("orders", testing::MakeProducerBatch(1, 42, 0, 5));
  EXPECT_EQ(gap.error_code, Code(kafka::ErrorCode::kOutOfOrderSequenceNumber));
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 4);
}

TEST_F(DataPathTest, LogAppendTimeTopicAnswersTheBrokersTime) {
  CreateTopic("stamped", 's', {kBroker}, {TopicConfig("stamped", "message.timestamp.type", "LogAppendTime")});
  int64_t before = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  auto p = Produce("stamped", testing::MakeBatch(2, "a", /*timestamp=*/5));
  EXPECT_EQ(p.error_code, 0);
  EXPECT_GE(p.log_append_time_ms, before);
  auto fetched = Fetch("stamped", 0);
  ASSERT_TRUE(fetched.records.has_value());
  auto header = storage::RecordBatchHeader::Parse(fetched.records->data());
  EXPECT_TRUE(header.log_append_time());
  EXPECT_EQ(header.max_timestamp, p.log_append_time_ms);
}

TEST_F(DataPathTest, ListOffsetsAnswersEarliestLatestByTimeAndMaxTimestamp) {
  CreateTopic("orders", 'o');
  Produce("orders", testing::MakeBatch(2, "a", 1000));
  Produce("orders", testing::MakeBatch(2, "b", 3000));
  Produce("orders", testing::MakeBatch(2, "c", 2000));
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsEarliestTimestamp).offset, 0);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTimestamp).offset, 6);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTimestamp, 1).offset, 6);
  auto by_time = ListOffsets("orders", 1500);
  EXPECT_EQ(by_time.offset, 2);
  EXPECT_EQ(by_time.timestamp, 3000);
  EXPECT_EQ(by_time.leader_epoch, 0);
  EXPECT_EQ(ListOffsets("orders", 9999).offset, -1);
  auto max = ListOffsets("orders", kafka::kListOffsetsMaxTimestamp);
  EXPECT_EQ(max.timestamp, 3001);  // MakeBatch stamps record i with timestamp + i
  EXPECT_EQ(max.offset, 3);
  // The record that carries the largest timestamp, not the last of its batch (KAFKA-16310).
  storage::RecordBatchBuilder middle;
  middle.Add("k0", "d-0", 4000);
  middle.Add("k1", "d-1", 5000);
  middle.Add("k2", "d-2", 4500);
  middle.Add("k3", "d-3", 5000);
  Produce("orders", middle.Build());
  max = ListOffsets("orders", kafka::kListOffsetsMaxTimestamp);
  EXPECT_EQ(max.timestamp, 5000);
  EXPECT_EQ(max.offset, 7);  // offsets 6..9: the first record with 5000
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsMaxTimestamp, 6).error_code,
            Code(kafka::ErrorCode::kUnsupportedVersion));
  EXPECT_EQ(ListOffsets("nope", kafka::kListOffsetsLatestTimestamp).error_code,
            Code(kafka::ErrorCode::kUnknownTopicOrPartition));
}

TEST_F(DataPathTest, LeaderEpochsAreCheckedAndAnswered) {
  CreateTopic("orders", 'o', {kBroker, 2});
  Produce("orders", testing::MakeBatch(2, "a"));
  // Leadership goes to broker 2 and comes back: two new leader epochs.
  Apply({testing::LeaderChangeRecord(Id('o'), 0, 2)});
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "x")).error_code, Code(kafka::ErrorCode::kNotLeaderOrFollower));
  Apply({testing::LeaderChangeRecord(Id('o'), 0, kBroker)});
  int32_t epoch = replicas_->GetPartition({"orders", 0})->leader_epoch();
  ASSERT_GT(epoch, 0);
  Produce("orders", testing::MakeBatch(3, "b"));
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTimestamp, 8, epoch - 1).error_code,
            Code(kafka::ErrorCode::kFencedLeaderEpoch));
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTimestamp, 8, epoch + 1).error_code,
            Code(kafka::ErrorCode::kUnknownLeaderEpoch));
  kafka::FetchRequest stale = FetchRequestFor("orders", 0);
  stale.topics[0].partitions[0].current_leader_epoch = epoch - 1;
  EXPECT_EQ(DecodeFetch(Call(kafka::ApiKey::kFetch, 12, Encode(stale, 12)), 12).error_code,
            Code(kafka::ErrorCode::kFencedLeaderEpoch));

  kafka::OffsetForLeaderEpochRequest request;
  request.replica_id = -1;
  request.topics.push_back({"orders", {{0, epoch, 0}, }});
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteOffsetForLeaderEpochRequest(request, 4, w);
  auto answer = Call(kafka::ApiKey::kOffsetForLeaderEpoch, 4, body);
  ASSERT_TRUE(answer.ok() && answer->has_value());
  kafka::Reader r((*answer)->body);
  auto response = kafka::ReadOffsetForLeaderEpochResponse(r, 4);
  ASSERT_TRUE(response.ok());
  const auto& p = response->topics[0].partitions[0];
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.leader_epoch, 0);
  EXPECT_EQ(p.end_offset, 2);  // epoch 0 ended where the new epoch began
}

TEST_F(DataPathTest, FollowerAndDeletedPartitionsAreNotServed) {
  Apply({TopicRecord("orders", Id('o')), PartitionRecord(Id('o'), 0, {2, kBroker}, 2)});
  ASSERT_NE(replicas_->GetPartition({"orders", 0}), nullptr) << "a follower replica has its log";
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "a")).error_code, Code(kafka::ErrorCode::kNotLeaderOrFollower));
  EXPECT_EQ(Fetch("orders", 0).error_code, Code(kafka::ErrorCode::kNotLeaderOrFollower));
  std::string dir = LogOf("orders")->dir();
  Apply({RemoveTopic(Id('o'))});
  EXPECT_EQ(replicas_->GetPartition({"orders", 0}), nullptr);
  EXPECT_EQ(LogOf("orders"), nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(DataPathTest, ARecreatedTopicNeverServesTheOldTopicsRecords) {
  CreateTopic("orders", 'o');
  Produce("orders", testing::MakeBatch(4, "old"));
  // Delete and recreate under the same name in one step (as a broker that missed the
  // deletion sees it): the partition.metadata topic id tells the logs apart.
  Apply({RemoveTopic(Id('o')), TopicRecord("orders", Id('n')), PartitionRecord(Id('n'), 0, {kBroker}, kBroker)});
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 0);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTimestamp).offset, 0);
}

TEST_F(DataPathTest, AcksAllWaitsForTheIsrAndRespectsMinInsyncReplicas) {
  // ISR {1, 2}: without a follower fetching, the high watermark cannot pass the append.
  Apply({TopicRecord("orders", Id('o')), PartitionRecord(Id('o'), 0, {kBroker, 2}, kBroker)});
  auto timed_out = Produce("orders", testing::MakeBatch(1, "a"), -1, 9, /*timeout_ms=*/100);
  EXPECT_EQ(timed_out.error_code, Code(kafka::ErrorCode::kRequestTimedOut));
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 1) << "appended, not acknowledged";
  EXPECT_EQ(Fetch("orders", 0).records, std::string()) << "consumers never read past the high watermark";
  // A follower's fetch reports its log end: the high watermark moves, the next acks=all
  // completes once the follower has that one too.
  std::promise<kafka::ProduceResponse::Partition> done;
  std::thread producer([&] { done.set_value(Produce("orders", testing::MakeBatch(1, "b"), -1, 9, 30000)); });
  ASSERT_TRUE(testing::WaitUntil([&] { return LogOf("orders")->log_end_offset() == 2; }, 10s));
  kafka::FetchRequest follower = FetchRequestFor("orders", 2);
  follower.replica_id = 2;
  Call(kafka::ApiKey::kFetch, 12, Encode(follower, 12));
  producer.join();
  auto acked = done.get_future().get();
  EXPECT_EQ(acked.error_code, 0);
  EXPECT_EQ(acked.base_offset, 1);
  EXPECT_EQ(LogOf("orders")->high_watermark(), 2);
  // min.insync.replicas above the ISR: refused before anything is appended, whether the
  // cluster-wide default or the topic says so.
  pb::MetadataRecord cluster_default = TopicConfig("", "min.insync.replicas", "3");
  cluster_default.mutable_config()->set_resource_type(pb::Config::BROKER);
  Apply({cluster_default});
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "c"), -1).error_code,
            Code(kafka::ErrorCode::kNotEnoughReplicas));
  Apply({TopicConfig("orders", "min.insync.replicas", "3")});
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "c"), -1).error_code,
            Code(kafka::ErrorCode::kNotEnoughReplicas));
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 2);
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "c"), 1).error_code, 0) << "acks=1 does not ask";
}

// The state behind librdkafka's duplicates (docs/idempotence.md): an idempotent
// producer's batch was in flight at the previous leader when the partition moved here,
// and the producer sent its next batch here before queuing that one again (librdkafka
// 2.0 does, as the old leader's answer arrives). The gap is answered with a retriable
// error, not OUT_OF_ORDER_SEQUENCE_NUMBER (on which librdkafka bumps its epoch and sends
// every unacknowledged batch of every partition again); the batches sent again in order
// are stored once each. A gap once the producer has a batch in the epoch is one.
TEST_F(DataPathTest, AGapInAProducersFirstBatchOfALeaderEpochIsRetriable) {
  Apply({TopicRecord("orders", Id('o')), PartitionRecord(Id('o'), 0, {kBroker, 2}, kBroker, /*epoch=*/0)});
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 0)).error_code, 0);  // sequences 0-1
  Apply({testing::LeaderChangeRecord(Id('o'), 0, 2)});        // epoch 1: sequences 2-3 go to broker 2, unanswered
  Apply({testing::LeaderChangeRecord(Id('o'), 0, kBroker)});  // epoch 2: this broker again
  auto gap = Produce("orders", testing::MakeProducerBatch(2, 7, 0, 4));
  EXPECT_EQ(gap.error_code, Code(kafka::ErrorCode::kNotLeaderOrFollower));
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 2);

  auto first = Produce("orders", testing::MakeProducerBatch(2, 7, 0, 2));
  auto second = Produce("orders", testing::MakeProducerBatch(2, 7, 0, 4));
  EXPECT_EQ(first.error_code, 0);
  EXPECT_EQ(first.base_offset, 2);
  EXPECT_EQ(second.error_code, 0);
  EXPECT_EQ(second.base_offset, 4);
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 9)).error_code,
            Code(kafka::ErrorCode::kOutOfOrderSequenceNumber));
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 6);
}

// The same for a gap behind a batch this leader refused without storing it, for a
// reason that passed before the next one arrived (min.insync.replicas here).
TEST_F(DataPathTest, AGapBehindABatchRefusedForAPassingReasonIsAnsweredWithThatReason) {
  Apply({TopicRecord("orders", Id('o')), PartitionRecord(Id('o'), 0, {kBroker}, kBroker, /*epoch=*/0)});
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 0), -1).error_code, 0);
  Apply({TopicConfig("orders", "min.insync.replicas", "2")});
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 2), -1).error_code,
            Code(kafka::ErrorCode::kNotEnoughReplicas));
  Apply({TopicConfig("orders", "min.insync.replicas", "1")});
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 4), -1).error_code,
            Code(kafka::ErrorCode::kNotEnoughReplicas));
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 2), -1).base_offset, 2);
  EXPECT_EQ(Produce("orders", testing::MakeProducerBatch(2, 7, 0, 4), -1).base_offset, 4);
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 6);
}

// A follower whose log diverged from the leader's is told where at once, as Kafka does:
// parked for max_wait, it would truncate and rejoin the ISR that much later.
TEST_F(DataPathTest, AFollowerWhoseLogDivergedIsToldAtOnce) {
  Apply({TopicRecord("orders", Id('o')), PartitionRecord(Id('o'), 0, {kBroker, 2}, kBroker, /*epoch=*/0)});
  EXPECT_EQ(Produce("orders", testing::MakeBatch(2, "a")).error_code, 0);  // epoch 0: offsets 0, 1
  Apply({testing::LeaderChangeRecord(Id('o'), 0, 2)});        // epoch 1: broker 2 leads, appending nothing here
  Apply({testing::LeaderChangeRecord(Id('o'), 0, kBroker)});  // epoch 2: this broker again
  EXPECT_EQ(Produce("orders", testing::MakeBatch(2, "b")).error_code, 0);  // epoch 2: offsets 2, 3
  // The follower holds epoch 0 up to offset 3, past where this leader's epoch 0 ended.
  kafka::FetchRequest follower = FetchRequestFor("orders", 3, 1, /*max_wait_ms=*/60000);
  follower.replica_id = 2;
  follower.topics[0].partitions[0].current_leader_epoch = 2;
  follower.topics[0].partitions[0].last_fetched_epoch = 0;
  std::promise<kafka::FetchResponse::Partition> fetched;
  std::thread fetching([&] { fetched.set_value(DecodeFetch(Call(kafka::ApiKey::kFetch, 12, Encode(follower, 12)), 12)); });
  auto future = fetched.get_future();
  ASSERT_EQ(future.wait_for(20s), std::future_status::ready) << "the diverging epoch waited for max_wait";
  fetching.join();
  auto answer = future.get();
  EXPECT_EQ(answer.error_code, 0);
  ASSERT_TRUE(answer.diverging_epoch.has_value());
  EXPECT_EQ(answer.diverging_epoch->epoch, 0);
  EXPECT_EQ(answer.diverging_epoch->end_offset, 2);
}

TEST_F(DataPathTest, FetchWaitsForMinBytesAndWakesOnProduce) {
  CreateTopic("orders", 'o');
  std::promise<kafka::FetchResponse::Partition> fetched;
  std::thread consumer([&] {
    fetched.set_value(DecodeFetch(
        Call(kafka::ApiKey::kFetch, 12, Encode(FetchRequestFor("orders", 0, 1, /*max_wait_ms=*/60000), 12)), 12));
  });
  auto future = fetched.get_future();
  // The fetch waits (nothing to read yet) ...
  EXPECT_EQ(future.wait_for(50ms), std::future_status::timeout);
  // ... until a produce moves the high watermark.
  Produce("orders", testing::MakeBatch(2, "a"));
  ASSERT_EQ(future.wait_for(20s), std::future_status::ready);
  consumer.join();
  auto p = future.get();
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.high_watermark, 2);
  ASSERT_TRUE(p.records.has_value());
  EXPECT_FALSE(p.records->empty());
  // With nothing arriving, max_wait_ms ends the wait with an empty answer.
  auto empty = DecodeFetch(Call(kafka::ApiKey::kFetch, 12, Encode(FetchRequestFor("orders", 2, 1, 50), 12)), 12);
  EXPECT_EQ(empty.error_code, 0);
  EXPECT_EQ(empty.records, std::string());
}

// Metadata v12 by topic id: the Java client sends an empty name (not null) beside the id
// when it resolves the ids of a KIP-848 assignment; the id decides, as in Kafka.
TEST_F(DataPathTest, MetadataLooksATopicUpByItsIdWhenItsNameIsEmpty) {
  CreateTopic("orders", 'o');
  kafka::MetadataRequest request;
  request.topics.emplace();
  request.topics->push_back({Id('o'), std::string()});
  request.topics->push_back({Id('z'), std::nullopt});
  request.allow_auto_topic_creation = false;
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteMetadataRequest(request, 12, w);
  auto answer = Call(kafka::ApiKey::kMetadata, 12, body);
  ASSERT_TRUE(answer.ok() && answer->has_value());
  kafka::Reader r((*answer)->body);
  auto response = kafka::ReadMetadataResponse(r, 12);
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->topics.size(), 2u);
  EXPECT_EQ(response->topics[0].error_code, 0);
  EXPECT_EQ(response->topics[0].name, "orders");
  EXPECT_EQ(response->topics[0].topic_id, Id('o'));
  EXPECT_EQ(response->topics[1].error_code, Code(kafka::ErrorCode::kUnknownTopicId));
}

TEST_F(DataPathTest, FetchOutOfRangeAndUnknownTopicIdAreErrors) {
  CreateTopic("orders", 'o');
  Produce("orders", testing::MakeBatch(2, "a"));
  EXPECT_EQ(Fetch("orders", 3).error_code, Code(kafka::ErrorCode::kOffsetOutOfRange));
  EXPECT_EQ(Fetch("orders", -1).error_code, Code(kafka::ErrorCode::kOffsetOutOfRange));
  kafka::FetchRequest by_id = FetchRequestFor("", 0);
  by_id.topics[0].topic_id = Id('z');
  EXPECT_EQ(DecodeFetch(Call(kafka::ApiKey::kFetch, 13, Encode(by_id, 13)), 13).error_code,
            Code(kafka::ErrorCode::kUnknownTopicId));
  kafka::FetchRequest session = FetchRequestFor("orders", 0);
  session.session_id = 99;
  session.session_epoch = 3;
  auto answer = Call(kafka::ApiKey::kFetch, 12, Encode(session, 12));
  ASSERT_TRUE(answer.ok() && answer->has_value());
  kafka::Reader r((*answer)->body);
  auto response = kafka::ReadFetchResponse(r, 12);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->error_code, Code(kafka::ErrorCode::kFetchSessionIdNotFound));
}

// A consumer's fetch session over two topics (KIP-227).
kafka::FetchRequest SessionFetch(int32_t session_id, int32_t epoch,
                                 std::vector<std::pair<std::string, int64_t>> partitions, int32_t max_wait_ms = 0) {
  kafka::FetchRequest request;
  request.session_id = session_id;
  request.session_epoch = epoch;
  request.max_wait_ms = max_wait_ms;
  request.min_bytes = 1;
  for (const auto& [topic, offset] : partitions) {
    kafka::FetchRequest::Partition p;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    request.topics.push_back({topic, std::string(16, '\0'), {p}});
  }
  return request;
}

TEST_F(DataPathTest, AnIncrementalFetchSessionAnswersOnlyThePartitionsWithSomethingNew) {
  CreateTopic("orders", 'o');
  CreateTopic("idle", 'i');
  Produce("orders", testing::MakeBatch(2, "a"));
  Produce("idle", testing::MakeBatch(3, "b"));
  // A full fetch opens the session and answers both.
  auto full = FetchWhole(SessionFetch(0, 0, {{"orders", 0}, {"idle", 0}}));
  ASSERT_NE(full.session_id, 0);
  EXPECT_EQ(Answered(full), (std::vector<std::pair<std::string, int32_t>>{{"orders", 0}, {"idle", 0}}));
  EXPECT_EQ(PartitionOf(full, "idle").high_watermark, 3);
  const int32_t id = full.session_id;
  // Both read to their ends: the client names the new positions; nothing new to answer.
  auto caught_up = FetchWhole(SessionFetch(id, 1, {{"orders", 2}, {"idle", 3}}));
  EXPECT_EQ(caught_up.error_code, 0);
  EXPECT_EQ(caught_up.session_id, id);
  EXPECT_TRUE(Answered(caught_up).empty());
  // A produce to one: the next fetch names nothing and gets that partition alone; the
  // idle one is not even looked at.
  int64_t taken = sessions_.partitions_taken();
  Produce("orders", testing::MakeBatch(1, "c"));
  auto moved = FetchWhole(SessionFetch(id, 2, {}));
  ASSERT_EQ(Answered(moved), (std::vector<std::pair<std::string, int32_t>>{{"orders", 0}}));
  EXPECT_EQ(PartitionOf(moved, "orders").high_watermark, 3);
  EXPECT_EQ(sessions_.partitions_taken(), taken + 1);
  // The same epoch again is refused; so is an unknown session.
  EXPECT_EQ(FetchWhole(SessionFetch(id, 2, {})).error_code, Code(kafka::ErrorCode::kInvalidFetchSessionEpoch));
  EXPECT_EQ(FetchWhole(SessionFetch(id + 1, 1, {})).error_code, Code(kafka::ErrorCode::kFetchSessionIdNotFound));
  // A forgotten partition leaves the session: a produce to it is not answered.
  kafka::FetchRequest forget = SessionFetch(id, 3, {});
  forget.forgotten_topics_data.push_back({"orders", std::string(16, '\0'), {0}});
  EXPECT_TRUE(Answered(FetchWhole(forget)).empty());
  EXPECT_EQ(sessions_.PartitionsOf(id), (std::vector<std::pair<std::string, int32_t>>{{"idle", 0}}));
  Produce("orders", testing::MakeBatch(1, "d"));
  EXPECT_TRUE(Answered(FetchWhole(SessionFetch(id, 4, {}))).empty());
  // Epoch -1 closes it.
  EXPECT_EQ(FetchWhole(SessionFetch(id, -1, {{"idle", 3}})).session_id, 0);
  EXPECT_TRUE(sessions_.PartitionsOf(id).empty());
}

TEST_F(DataPathTest, AFetchSessionReadsAgainAPartitionLeftOutForWantOfBytesAndGivesItItsTurn) {
  CreateTopic("first", 'f');
  CreateTopic("second", 's');
  Produce("first", testing::MakeBatch(2, "a"));
  Produce("second", testing::MakeBatch(2, "b"));
  // max_bytes 1: the first partition answers one batch (at least one), the second nothing.
  kafka::FetchRequest open = SessionFetch(0, 0, {{"first", 0}, {"second", 0}});
  open.max_bytes = 1;
  auto full = FetchWhole(open);
  const int32_t id = full.session_id;
  ASSERT_NE(id, 0);
  EXPECT_FALSE(PartitionOf(full, "first").records->empty());
  EXPECT_TRUE(PartitionOf(full, "second").records->empty());
  // The first keeps getting records, and they fill each answer: it goes to the end of the
  // session every time it answers records, so the second is read first next time. Nothing
  // changed in the second meanwhile, but its records were never sent: it is read again,
  // not skipped as idle.
  Produce("first", testing::MakeBatch(1, "c"));
  kafka::FetchRequest next = SessionFetch(id, 1, {{"first", 2}});
  next.max_bytes = 1;
  auto busy = FetchWhole(next);
  EXPECT_FALSE(PartitionOf(busy, "first").records->empty());
  EXPECT_EQ(sessions_.PartitionsOf(id), (std::vector<std::pair<std::string, int32_t>>{{"second", 0}, {"first", 0}}));
  Produce("first", testing::MakeBatch(1, "d"));
  next = SessionFetch(id, 2, {{"first", 3}});
  next.max_bytes = 1;
  auto turn = FetchWhole(next);
  auto second = PartitionOf(turn, "second");
  ASSERT_TRUE(second.records.has_value());
  EXPECT_FALSE(second.records->empty());
  EXPECT_EQ(second.high_watermark, 2);
}

TEST_F(DataPathTest, ASessionReadsAllItsPartitionsNowAndThenToFindChangesNobodyWasToldOf) {
  CreateTopic("idle", 'i');
  Produce("idle", testing::MakeBatch(3, "a"));
  auto full = FetchWhole(SessionFetch(0, 0, {{"idle", 0}}));
  const int32_t id = full.session_id;
  ASSERT_NE(id, 0);
  EXPECT_TRUE(Answered(FetchWhole(SessionFetch(id, 1, {{"idle", 3}}))).empty());
  // The log start moves (DeleteRecords, retention) without a word to the sessions: not
  // seen while the partition is not read ...
  ASSERT_TRUE(LogOf("idle")->MaybeIncrementLogStartOffset(2).ok());
  EXPECT_TRUE(Answered(FetchWhole(SessionFetch(id, 2, {}))).empty());
  // ... until the session reads all its partitions, a second on.
  session_clock_.Advance(1000);
  int64_t swept = sessions_.partitions_swept();
  auto found = FetchWhole(SessionFetch(id, 3, {}));
  ASSERT_EQ(Answered(found), (std::vector<std::pair<std::string, int32_t>>{{"idle", 0}}));
  EXPECT_EQ(PartitionOf(found, "idle").log_start_offset, 2);
  EXPECT_EQ(sessions_.partitions_swept(), swept + 1);
}

TEST_F(DataPathTest, AWaitingSessionFetchWakesOnAProduceToOneOfItsIdlePartitions) {
  CreateTopic("orders", 'o');
  CreateTopic("idle", 'i');
  auto full = FetchWhole(SessionFetch(0, 0, {{"orders", 0}, {"idle", 0}}));
  ASSERT_NE(full.session_id, 0);
  // Caught up: the session has nothing to read, and its next fetch waits for a change.
  EXPECT_TRUE(Answered(FetchWhole(SessionFetch(full.session_id, 1, {}))).empty());
  std::promise<kafka::FetchResponse> fetched;
  std::thread consumer([&] { fetched.set_value(FetchWhole(SessionFetch(full.session_id, 2, {}, 60000))); });
  auto future = fetched.get_future();
  EXPECT_EQ(future.wait_for(50ms), std::future_status::timeout);
  ASSERT_TRUE(testing::WaitUntil([&] { return apis_->fetches_waiting() == 1; }, 20s));
  Produce("idle", testing::MakeBatch(2, "a"));
  ASSERT_EQ(future.wait_for(20s), std::future_status::ready);
  consumer.join();
  auto answer = future.get();
  ASSERT_EQ(Answered(answer), (std::vector<std::pair<std::string, int32_t>>{{"idle", 0}}));
  EXPECT_FALSE(PartitionOf(answer, "idle").records->empty());
}

// In process: KafkaApis answers nothing, or an error (which the server turns into a
// close: AnAcksZeroProduceThatFailsClosesTheConnection below, over a socket).
TEST_F(DataPathTest, AcksZeroHasNoResponseAndAFailureIsAnError) {
  CreateTopic("orders", 'o');
  kafka::ProduceRequest request;
  request.acks = 0;
  request.topic_data.push_back({"orders", {{0, testing::MakeBatch(1, "a")}}});
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteProduceRequest(request, 9, w);
  auto answer = Call(kafka::ApiKey::kProduce, 9, body);
  ASSERT_TRUE(answer.ok());
  EXPECT_FALSE(answer->has_value());
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 1);
  request.topic_data[0].partition_data[0].records->back() ^= 1;
  body.clear();
  kafka::WriteProduceRequest(request, 9, w);
  EXPECT_FALSE(Call(kafka::ApiKey::kProduce, 9, body).ok());
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 1);
}

// Over a real socket: record data leaves through sendfile(2), byte for byte.
class ZeroCopyTest : public DataPathTest {
 protected:
  void StartServer(std::optional<TlsOptions> tls = std::nullopt) {
    ListenerOptions options;
    options.tls = tls;
    auto server = Listener::Start(options, [this](const auto& header, auto body, auto respond) {
      apis_->Handle(header, body, std::move(respond));
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    sockets_before_clients_ = SocketsOpen();
  }
  void TearDown() override {
    server_.reset();
    DataPathTest::TearDown();
  }
  // Sockets this process holds (the server's listener and connections, test clients).
  static int SocketsOpen() {
    int n = 0;
    std::error_code ec;
    for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
      std::error_code link_error;
      auto target = std::filesystem::read_symlink(fd.path(), link_error);
      if (!link_error && target.string().rfind("socket:", 0) == 0) ++n;
    }
    return n;
  }
  int sockets_before_clients_ = 0;
  std::string SegmentPath() { return LogOf("orders")->dir() + "/00000000000000000000.log"; }
  std::unique_ptr<Listener> server_;
};

TEST_F(ZeroCopyTest, FetchedRecordsLeaveThroughSendfileByteForByte) {
  CreateTopic("orders", 'o');
  std::string stored;
  for (int i = 0; i < 3; ++i) {
    std::string batch = testing::MakeBatch(5, "v" + std::to_string(i), 1000, 300);
    ASSERT_EQ(Produce("orders", batch).error_code, 0);
    stored += batch;
  }
  auto on_disk = storage::ReadWholeFile(*storage::FileOps::Default(), SegmentPath());
  ASSERT_TRUE(on_disk.ok()) << on_disk.status();
  StartServer();
  testing::KafkaTestClient client(server_->port());
  client.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kFetch), 12, 5,
                                                 Encode(FetchRequestFor("orders", 0), 12)));
  auto frame = client.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  kafka::Reader r(*frame);
  EXPECT_EQ(r.Int32("correlation_id"), 5);
  r.SkipTaggedFields("response header");
  auto response = kafka::ReadFetchResponse(r, 12);
  ASSERT_TRUE(response.ok()) << response.status();
  const auto& p = response->responses.at(0).partitions.at(0);
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.records, *on_disk);
  // The client can hold every byte before the server thread counts the send.
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return server_->bytes_sent_from_files() == static_cast<int64_t>(on_disk->size()); }, 10s))
      << server_->bytes_sent_from_files();
  EXPECT_EQ(server_->transfer_failures(), 0);
}

TEST_F(ZeroCopyTest, AClientGoneMidTransferDoesNotKillTheBroker) {
  CreateTopic("orders", 'o');
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(Produce("orders", testing::MakeBatch(1, "big", 1000, 900 << 10)).error_code, 0);
  }
  StartServer();
  for (int round = 0; round < 5; ++round) {
    testing::KafkaTestClient client(server_->port());
    kafka::FetchRequest request = FetchRequestFor("orders", 0);
    request.max_bytes = 64 << 20;
    request.topics[0].partitions[0].partition_max_bytes = 64 << 20;
    client.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kFetch), 12, 5,
                                                   Encode(request, 12)));
    // The response has begun (its size came), then the client resets the connection
    // before reading megabytes of records: sendfile meets a reset socket (ECONNRESET or
    // EPIPE, not a SIGPIPE that would end this process).
    ASSERT_EQ(client.Read(4).size(), 4u);
    client.Reset();
  }
  // The server has closed each of those connections once no socket of it is left: it is
  // done with their transfers. None of them was a file's failure: no transfer failure,
  // no re-read, the dir online.
  ASSERT_TRUE(testing::WaitUntil([&] { return SocketsOpen() == sockets_before_clients_; }, 20s))
      << SocketsOpen() << " sockets open, " << sockets_before_clients_ << " before the clients; "
      << server_->transfer_failures() << " transfer failures";
  EXPECT_EQ(server_->transfer_failures(), 0) << "a peer gone mid-transfer counted as a failed file transfer";
  ASSERT_TRUE(scheduler_.WaitIdle(10s));
  EXPECT_EQ(logs_->transfer_checker().rereads(), 0) << "a peer gone mid-transfer made the file be re-read";
  EXPECT_EQ(logs_->online_dirs().size(), 1u);
  testing::KafkaTestClient other(server_->port());
  other.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kApiVersions), 0, 6, ""));
  EXPECT_TRUE(other.ReadFrame().has_value());
}

TEST_F(ZeroCopyTest, AFileThatEndsInsideTheSliceClosesTheConnectionAndIsRereadInconclusively) {
  CreateTopic("orders", 'o');
  ASSERT_EQ(Produce("orders", testing::MakeBatch(50, "v", 1000, 100)).error_code, 0);
  StartServer();
  // Cut the segment under the log's feet: the slice promises more than the file holds.
  ASSERT_EQ(::truncate(SegmentPath().c_str(), 100), 0);
  testing::KafkaTestClient client(server_->port());
  client.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kFetch), 12, 5,
                                                 Encode(FetchRequestFor("orders", 0), 12)));
  auto frame = client.ReadFrame();
  EXPECT_TRUE(!frame.has_value() || frame->size() < 200) << "a whole response arrived: " << frame->size();
  // The server closed the connection (end of stream, not the client's 5 s timeout): no
  // other bytes may stand in for the ones missing from the frame.
  EXPECT_TRUE(client.Closed()) << "the connection stayed open after the failed transfer";
  EXPECT_EQ(server_->transfer_failures(), 1) << "closed on error: " << server_->connections_closed_on_error();
  ASSERT_TRUE(testing::WaitUntil([&] { return logs_->transfer_checker().rereads() == 1; }, 10s));
  EXPECT_EQ(logs_->transfer_checker().inconclusive(), 1);
  EXPECT_EQ(logs_->online_dirs().size(), 1u) << "a truncation race does not fail the dir";
  // The server goes on serving other connections.
  testing::KafkaTestClient other(server_->port());
  other.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kApiVersions), 0, 6, ""));
  EXPECT_TRUE(other.ReadFrame().has_value());
}

TEST_F(ZeroCopyTest, AFileThatFailsItsRereadTakesTheLogDirOffline) {
  CreateTopic("orders", 'o');
  ASSERT_EQ(Produce("orders", testing::MakeBatch(50, "v", 1000, 100)).error_code, 0);
  StartServer();
  ASSERT_EQ(::truncate(SegmentPath().c_str(), 100), 0);
  // Reads past the cut fail: only the re-read of the failed region goes there.
  faults_.AddRule({".log", storage::FaultOp::kRead, 100, UINT64_MAX, EIO, -1});
  testing::KafkaTestClient client(server_->port());
  client.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kFetch), 12, 5,
                                                 Encode(FetchRequestFor("orders", 0), 12)));
  (void)client.ReadFrame();
  ASSERT_TRUE(testing::WaitUntil([&] { return logs_->online_dirs().empty(); }, 10s));
  EXPECT_EQ(logs_->transfer_checker().file_side(), 1);
  EXPECT_NE(logs_->failure_channel().OfflineReason(tmp_.Sub("logs")).message().find("zero-copy send"),
            absl::string_view::npos)
      << logs_->failure_channel().OfflineReason(tmp_.Sub("logs"));
  EXPECT_EQ(Produce("orders", testing::MakeBatch(1, "x")).error_code, Code(kafka::ErrorCode::kKafkaStorageError));
}

TEST_F(ZeroCopyTest, AnAcksZeroProduceThatFailsClosesTheConnection) {
  CreateTopic("orders", 'o');
  StartServer();
  kafka::ProduceRequest request;
  request.acks = 0;
  request.topic_data.push_back({"orders", {{0, testing::MakeBatch(1, "a")}}});
  auto produce = [&](int32_t correlation_id) {
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteProduceRequest(request, 9, w);
    return testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kProduce), 9, correlation_id, body);
  };
  auto api_versions = [](int32_t correlation_id) {
    return testing::KafkaTestClient::Frame(static_cast<int16_t>(kafka::ApiKey::kApiVersions), 0, correlation_id, "");
  };
  testing::KafkaTestClient client(server_->port());
  // Appended without an answer: the next frame on the connection answers the next request.
  client.SendRaw(produce(1));
  client.SendRaw(api_versions(2));
  auto frame = client.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  kafka::Reader r(*frame);
  EXPECT_EQ(r.Int32("correlation_id"), 2) << "the acks=0 produce was answered";
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 1);
  // A corrupt batch: the server closes the connection (end of stream, not the client's
  // 5 s timeout), appending nothing and answering nothing.
  request.topic_data[0].partition_data[0].records->back() ^= 1;
  client.SendRaw(produce(3));
  EXPECT_TRUE(client.Closed()) << "the connection stayed open after a failed acks=0 produce";
  EXPECT_EQ(server_->connections_closed_on_error(), 1);
  EXPECT_EQ(LogOf("orders")->log_end_offset(), 1);
}

// SSL listeners: a self-signed certificate made with the openssl tool.
class TlsTest : public ZeroCopyTest {
 protected:
  void SetUp() override {
    ZeroCopyTest::SetUp();
    pem_ = tmp_.Sub("broker.pem");
    std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + pem_ + ".key -out " + pem_ +
                          ".crt -subj /CN=localhost -days 1 >/dev/null 2>&1 && cat " + pem_ + ".key " + pem_ +
                          ".crt > " + pem_;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  // One request over TLS; the bytes that came back before the server closed or the
  // frame ended (the size prefix stripped).
  std::string RequestOverTls(kafka::ApiKey key, int16_t version, const std::string& body, bool* complete) {
    asio::io_context io;
    asio::ssl::context context(asio::ssl::context::tls_client);
    context.load_verify_file(pem_ + ".crt");
    context.set_verify_mode(asio::ssl::verify_peer);
    asio::ssl::stream<asio::ip::tcp::socket> stream(io, context);
    stream.lowest_layer().connect({asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(server_->port())});
    stream.handshake(asio::ssl::stream_base::client);
    std::string frame = testing::KafkaTestClient::Frame(static_cast<int16_t>(key), version, 9, body);
    asio::write(stream, asio::buffer(frame));
    std::array<unsigned char, 4> size{};
    asio::error_code ec;
    asio::read(stream, asio::buffer(size), ec);
    *complete = false;
    if (ec) return "";
    size_t n = static_cast<size_t>(size[0]) << 24 | size[1] << 16 | size[2] << 8 | size[3];
    std::string out(n, '\0');
    size_t got = asio::read(stream, asio::buffer(out), ec);
    out.resize(got);
    *complete = got == n;
    return out;
  }

  std::string pem_;
};

TEST_F(TlsTest, FetchedRecordsArriveEncryptedAndWhole) {
  CreateTopic("orders", 'o');
  ASSERT_EQ(Produce("orders", testing::MakeBatch(20, "v", 1000, 200)).error_code, 0);
  auto on_disk = storage::ReadWholeFile(*storage::FileOps::Default(), SegmentPath());
  ASSERT_TRUE(on_disk.ok());
  StartServer(TlsOptions{pem_, "", TlsOptions::ClientAuth::kNone});
  bool complete = false;
  std::string frame = RequestOverTls(kafka::ApiKey::kFetch, 12, Encode(FetchRequestFor("orders", 0), 12), &complete);
  ASSERT_TRUE(complete);
  kafka::Reader r(frame);
  EXPECT_EQ(r.Int32("correlation_id"), 9);
  r.SkipTaggedFields("response header");
  auto response = kafka::ReadFetchResponse(r, 12);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->responses.at(0).partitions.at(0).records, *on_disk);
  EXPECT_EQ(server_->bytes_sent_from_files(), 0) << "TLS cannot use sendfile";
}

TEST_F(TlsTest, AFailedFileReadSendsNoneOfTheSlice) {
  CreateTopic("orders", 'o');
  ASSERT_EQ(Produce("orders", testing::MakeBatch(50, "v", 1000, 100)).error_code, 0);
  StartServer(TlsOptions{pem_, "", TlsOptions::ClientAuth::kNone});
  ASSERT_EQ(::truncate(SegmentPath().c_str(), 100), 0);
  bool complete = true;
  std::string frame = RequestOverTls(kafka::ApiKey::kFetch, 12, Encode(FetchRequestFor("orders", 0), 12), &complete);
  EXPECT_FALSE(complete);
  // What arrived is the response up to the records' length prefix, and not one byte of
  // the 100 the file still holds (nor anything stale in their place).
  auto on_disk = storage::ReadWholeFile(*storage::FileOps::Default(), SegmentPath());
  ASSERT_TRUE(on_disk.ok());
  EXPECT_EQ(frame.find(on_disk->substr(61, 20)), std::string::npos);
  EXPECT_LT(frame.size(), 100u);
  EXPECT_EQ(server_->transfer_failures(), 1);
  ASSERT_TRUE(testing::WaitUntil([&] { return logs_->transfer_checker().rereads() == 1; }, 10s));
}

TEST_F(TlsTest, RequiredClientAuthRefusesAClientWithoutACertificate) {
  StartServer(TlsOptions{pem_, pem_ + ".crt", TlsOptions::ClientAuth::kRequired});
  // Under TLS 1.3 the client's handshake may finish before the server checks it: the
  // refusal shows as a handshake error or as a request that is never answered.
  bool complete = true;
  std::string answer;
  try {
    answer = RequestOverTls(kafka::ApiKey::kApiVersions, 0, "", &complete);
  } catch (const std::exception&) {
    complete = false;
  }
  EXPECT_FALSE(complete);
  EXPECT_TRUE(answer.empty());
  // A bad keystore is a precise error at start.
  ListenerOptions bad;
  bad.tls = TlsOptions{tmp_.Sub("missing.pem"), "", TlsOptions::ClientAuth::kNone};
  auto refused = Listener::Start(bad, [](const auto&, auto, auto respond) { respond(absl::InternalError("x")); });
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("ssl.keystore.location"), absl::string_view::npos) << refused.status();
}


// ---------------------------------------------------------------------------------------
// Tiered storage: the same data path with a remote tier (a directory store), the remote
// log manager copying through a controller that applies its transitions to this store.

// Applies each RemoteLogSegmentUpdate to the broker's own image (the controller's rules
// live in the image: a refused transition comes back with its reason).
class ImageController final : public controller::v1::ControllerService::Service {
 public:
  explicit ImageController(std::function<absl::Status(pb::MetadataRecord)> apply) : apply_(std::move(apply)) {}
  grpc::Status RemoteLogSegmentUpdate(grpc::ServerContext*, const controller::v1::RemoteLogSegmentUpdateRequest* request,
                                      controller::v1::RemoteLogSegmentUpdateResponse* response) override {
    pb::MetadataRecord r;
    *r.mutable_remote_log_segment() = request->segment();
    if (absl::Status s = apply_(std::move(r)); !s.ok()) {
      response->set_error_code(Code(kafka::ErrorCode::kInvalidRequest));
      response->set_error_message(std::string(s.message()));
    }
    return grpc::Status::OK;
  }

 private:
  std::function<absl::Status(pb::MetadataRecord)> apply_;
};

class TieredDataPathTest : public DataPathTest {
 protected:
  void SetUp() override {
    DataPathTest::SetUp();
    remote_ = std::make_unique<storage::DirectoryRemoteStorage>(*storage::FileOps::Default(), tmp_.Sub("remote"));
    auto cache = RemoteChunkCache::Open({.dir = tmp_.Sub("chunk-cache")});
    ASSERT_TRUE(cache.ok()) << cache.status();
    chunk_cache_ = std::move(*cache);
    reader_ = std::make_unique<RemoteLogReader>(RemoteLogReaderOptions{
        .remote_storage = remote_.get(), .threads = 2, .chunk_cache = chunk_cache_.get()});
    apis_ = std::make_unique<KafkaApis>(KafkaApisContext{.store = *store_,
                                                         .controller = controller_,
                                                         .producer_ids = *producer_ids_,
                                                         .replicas = *replicas_,
                                                         .broker_id = kBroker,
                                                         .cluster_id = "test-cluster",
                                                         .remote_reader = reader_.get()});
    loopback_ = testing::StartLoopbackController(&image_controller_);
    ASSERT_NE(loopback_.server, nullptr);
    RemoteLogManagerOptions m;
    m.broker_id = kBroker;
    m.remote_storage = remote_.get();
    m.controller = loopback_.client.get();
    m.broker_epoch = [] { return int64_t{1}; };
    m.remote_segments = [this](const std::string& topic_id, int32_t partition) {
      return store_->WithImage([&](const controller::MetadataImage& image) {
        std::map<std::string, controller::RemoteLogSegments::Segment> out;
        if (const auto* s = image.FindRemoteSegments(topic_id, partition)) out = s->segments();
        return out;
      });
    };
    manager_ = std::make_unique<RemoteLogManager>(std::move(m));
  }
  void TearDown() override {
    manager_.reset();
    reader_->Shutdown();
    loopback_.server->Shutdown();
    DataPathTest::TearDown();
  }
  absl::Status ApplyRecord(pb::MetadataRecord record) {
    absl::MutexLock lock(&apply_mu_);
    pb::MetadataBatch batch;
    *batch.add_records() = std::move(record);
    size_t errors = store_->apply_errors();
    absl::Status s = store_->Apply(raft::Entry{1, ++index_, batch.SerializeAsString()});
    if (s.ok() && store_->apply_errors() != static_cast<int64_t>(errors)) s = absl::FailedPreconditionError("refused");
    store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
    return s;
  }
  // A tiered topic of 3 rolled segments of 4 batches of 10 records each and an active one,
  // copied to the remote tier and then deleted locally: offsets [0, 120) are remote only.
  void TierOrders() { TierTopic("orders", 'o', 6000, 16, 100, 3); }
  // A tiered topic of `batches` batches of 10 records of value_bytes (kept in batches_) in
  // segments of segment_bytes, at least min_segments of them; the rolled ones copied to
  // the remote tier and then deleted locally.
  void TierTopic(const std::string& topic, char id, int segment_bytes, int batches, size_t value_bytes,
                 int min_segments) {
    CreateTopic(topic, id, {kBroker},
                {TopicConfig(topic, "remote.storage.enable", "true"),
                 TopicConfig(topic, "segment.bytes", absl::StrCat(segment_bytes)),
                 TopicConfig(topic, "local.retention.bytes", "1")});
    for (int i = 0; i < batches; ++i) {
      std::string batch = testing::MakeBatch(10, absl::StrCat("b", i), 1000 * (i + 1), value_bytes);
      batches_.push_back(batch);
      ASSERT_EQ(Produce(topic, batch).error_code, 0);
    }
    ASSERT_GE(LogOf(topic)->segment_count(), min_segments);
    ASSERT_TRUE(manager_->RunTask(*replicas_->GetPartition({topic, 0})).ok());
    // The image now holds the copies; local retention deletes what they cover.
    store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
    ASSERT_TRUE(LogOf(topic)->DeleteOldSegments().ok());
    local_start_ = LogOf(topic)->log_start_offset();
    ASSERT_GT(local_start_, 0);
  }
  // The batches as produced, offsets [from, to) of them (10 records a batch), with the
  // offsets the log assigned.
  std::string Batches(int from_batch, int to_batch) {
    std::string out;
    for (int i = from_batch; i < to_batch; ++i) {
      std::string b = batches_[i];
      storage::SetBaseOffset(b.data(), i * 10);
      storage::SetPartitionLeaderEpoch(b.data(), 0);
      out += b;
    }
    return out;
  }

  ImageController image_controller_{[this](pb::MetadataRecord r) { return ApplyRecord(std::move(r)); }};
  testing::LoopbackController loopback_;
  std::unique_ptr<storage::DirectoryRemoteStorage> remote_;
  std::unique_ptr<RemoteChunkCache> chunk_cache_;
  std::unique_ptr<RemoteLogReader> reader_;
  std::unique_ptr<RemoteLogManager> manager_;
  absl::Mutex apply_mu_;
  std::vector<std::string> batches_;
  int64_t local_start_ = 0;
};

TEST_F(TieredDataPathTest, AConsumerBelowTheLocalLogStartReadsTheRemoteTierByteForByte) {
  TierOrders();
  auto first = Fetch("orders", 0);
  ASSERT_EQ(first.error_code, 0);
  EXPECT_EQ(first.log_start_offset, 0) << "the log starts in the remote tier";
  ASSERT_TRUE(first.records.has_value());
  ASSERT_FALSE(first.records->empty());
  EXPECT_EQ(*first.records, Batches(0, static_cast<int>(first.records->size() / batches_[0].size())))
      << "whole batches, as produced";
  // Inside a batch: from the batch that holds the offset.
  auto inside = Fetch("orders", 25);
  ASSERT_EQ(inside.error_code, 0);
  ASSERT_TRUE(inside.records.has_value());
  EXPECT_EQ(inside.records->substr(0, batches_[2].size()), Batches(2, 3));
  // Crossing into the local log: the next fetch after the remote tier's last offset.
  auto local = Fetch("orders", local_start_);
  ASSERT_EQ(local.error_code, 0);
  EXPECT_EQ(local.records->substr(0, batches_[0].size()), Batches(local_start_ / 10, local_start_ / 10 + 1));
  EXPECT_GT(reader_->stats().read_bytes, 0);
}

TEST_F(TieredDataPathTest, ASequentialConsumerFindsTheNextBlocksFetchedAheadOfIt) {
  // Batches of ~100 KiB in segments of 4 MiB: the first segment is 4 blocks of the remote
  // reader (RemoteLogReader::kBlockBytes), the default prefetch 4 blocks.
  TierTopic("large", 'l', 4 << 20, 45, 10 << 10, 2);
  static_assert(RemoteLogReader::kBlockBytes == 1 << 20);
  auto first = Fetch("large", 0);
  ASSERT_EQ(first.error_code, 0);
  ASSERT_TRUE(first.records.has_value());
  ASSERT_EQ(first.records->substr(0, batches_[0].size()), Batches(0, 1));
  // The read took block 0 (1 MiB from the segment's start); blocks 1 to 3, the rest of
  // the segment, come ahead of the consumer, each once.
  ASSERT_TRUE(testing::WaitUntil([&] { return reader_->stats().chunk_cache.blocks == 4; }, 30s))
      << reader_->stats().chunk_cache.blocks << " blocks cached";
  EXPECT_EQ(reader_->stats().prefetches, 3);
  const int64_t misses = reader_->stats().chunk_cache.misses;
  EXPECT_EQ(misses, 4);
  // A consumer at batch 30 (~3 MiB into the segment) reads them from the cache, and the
  // answer carries the cached blocks' files as they are (one slice per block: the end of
  // block 2, then block 3 to the segment's end), not a copy.
  auto answer = Call(kafka::ApiKey::kFetch, 12, Encode(FetchRequestFor("large", 300), 12));
  ASSERT_TRUE(answer.ok() && answer->has_value()) << answer.status();
  ASSERT_EQ((*answer)->splices.size(), 2u);
  for (const kafka::Splice& splice : (*answer)->splices) {
    EXPECT_EQ((*answer)->slices.at(splice.id).file->path().rfind(tmp_.Sub("chunk-cache"), 0), 0u)
        << (*answer)->slices.at(splice.id).file->path();
  }
  std::string bytes = AssembleResponse(**answer);
  kafka::Reader r(bytes);
  auto later = kafka::ReadFetchResponse(r, 12);
  ASSERT_TRUE(later.ok()) << later.status();
  const auto& records = later->responses.at(0).partitions.at(0).records;
  ASSERT_TRUE(records.has_value());
  // Batches 30 to the segment's end: less than the 1 MiB asked for, so all of them.
  ASSERT_EQ(local_start_ % 10, 0);
  EXPECT_LT(Batches(30, static_cast<int>(local_start_ / 10)).size(), size_t{1} << 20);
  EXPECT_TRUE(*records == Batches(30, static_cast<int>(local_start_ / 10))) << records->size() << " bytes";
  EXPECT_EQ(reader_->stats().chunk_cache.misses, misses) << "nothing more fetched from the store";
  EXPECT_GT(reader_->stats().chunk_cache.hits, 0);
}

// Segments smaller than the prefetch: a read that reaches near a segment's end has the next
// copy's first blocks fetched ahead too, so a consumer crossing into it finds them cached.
TEST_F(TieredDataPathTest, PrefetchGoesOnIntoTheNextCopyWhenASegmentEnds) {
  // Batches of ~100 KiB in segments of 1.5 MiB: each rolled segment is 2 blocks, the
  // default prefetch 4 blocks.
  TierTopic("small", 's', 3 << 19, 60, 10 << 10, 4);
  std::vector<controller::RemoteLogSegments::Segment> copies;
  store_->WithImage([&](const controller::MetadataImage& image) {
    const auto* segments = image.FindRemoteSegments(Id('s'), 0);
    for (int64_t offset = 0; const auto* s = segments->SegmentFor(offset, -1); offset = s->end_offset() + 1) {
      copies.push_back(*s);
    }
  });
  ASSERT_GE(copies.size(), 3u);
  for (const auto& c : copies) ASSERT_LE(c.segment_size_in_bytes(), int64_t{2} << 20) << "two blocks at most";
  auto first = Fetch("small", 0);
  ASSERT_EQ(first.error_code, 0);
  // The read took block 0 of the first copy (1 MiB from its start); block 1 of it, then
  // both blocks of the second (the copy after the one read) come ahead, each once.
  ASSERT_TRUE(testing::WaitUntil([&] { return reader_->stats().chunk_cache.blocks == 4; }, 30s))
      << reader_->stats().chunk_cache.blocks << " blocks cached";
  EXPECT_EQ(reader_->stats().prefetches, 3);
  const RemoteLogReaderStats before = reader_->stats();
  // A consumer at the second copy's first offset reads it from the cache (and has the
  // third's blocks fetched ahead of it in turn).
  auto second = Fetch("small", copies[1].start_offset());
  ASSERT_EQ(second.error_code, 0);
  ASSERT_TRUE(second.records.has_value());
  const int batch = static_cast<int>(copies[1].start_offset() / 10);
  EXPECT_EQ(second.records->substr(0, batches_[batch].size()), Batches(batch, batch + 1));
  ASSERT_TRUE(testing::WaitUntil([&] { return reader_->stats().chunk_cache.blocks == 6; }, 30s))
      << reader_->stats().chunk_cache.blocks << " blocks cached";
  const RemoteLogReaderStats after = reader_->stats();
  EXPECT_GT(after.chunk_cache.hits, before.chunk_cache.hits);
  EXPECT_EQ(after.chunk_cache.misses - before.chunk_cache.misses, after.prefetches - before.prefetches)
      << "the store was asked only for blocks ahead of the consumer, none it read";
}

TEST_F(TieredDataPathTest, AFollowerBelowTheLocalLogStartIsToldTheOffsetMovedToTieredStorage) {
  TierOrders();
  kafka::FetchRequest request = FetchRequestFor("orders", 0);
  request.replica_id = 2;
  auto answer = DecodeFetch(Call(kafka::ApiKey::kFetch, 12, Encode(request, 12)), 12);
  EXPECT_EQ(answer.error_code, Code(kafka::ErrorCode::kOffsetMovedToTieredStorage));
}

TEST_F(TieredDataPathTest, ListOffsetsAnswersBothTiers) {
  TierOrders();
  int64_t copied = -1;
  store_->WithImage([&](const controller::MetadataImage& image) {
    copied = *image.FindRemoteSegments(Id('o'), 0)->HighestCopiedOffset();
  });
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsEarliestTimestamp, 9).offset, 0);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsEarliestLocalTimestamp, 9).offset, local_start_);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTieredTimestamp, 9).offset, copied);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsEarliestPendingUploadTimestamp, 10).offset, copied + 1);
  EXPECT_EQ(ListOffsets("orders", kafka::kListOffsetsLatestTieredTimestamp, 8).error_code,
            Code(kafka::ErrorCode::kUnsupportedVersion));
  // Batch i holds timestamps 1000 (i + 1) + [0, 10): 2005 is record 5 of batch 1 (remote),
  // and a time in the local log is found there.
  auto remote = ListOffsets("orders", 2005, 9);
  EXPECT_EQ(remote.offset, 15);
  EXPECT_EQ(remote.timestamp, 2005);
  int64_t local_batch = local_start_ / 10;
  auto local = ListOffsets("orders", 1000 * (local_batch + 1) + 3, 9);
  EXPECT_EQ(local.offset, local_start_ + 3);
}

TEST_F(TieredDataPathTest, ListOffsetsFindsTheExactRecordInsideARemoteCompressedBatch) {
  CreateTopic("events", 'e', {kBroker},
              {TopicConfig("events", "remote.storage.enable", "true"), TopicConfig("events", "segment.bytes", "500"),
               TopicConfig("events", "local.retention.bytes", "1")});
  // Batch i: records 10i..10i+9 at 1000 (i + 1) + r, gzip and zstd in turn.
  for (int i = 0; i < 12; ++i) {
    storage::RecordBatchBuilder builder;
    builder.set_compression(i % 2 ? storage::Compression::kZstd : storage::Compression::kGzip);
    for (int r = 0; r < 10; ++r) {
      builder.Add("k", absl::StrCat("event-", i, "-", r, std::string(50, 'x')), 1000 * (i + 1) + r);
    }
    ASSERT_EQ(Produce("events", builder.Build()).error_code, 0);
  }
  ASSERT_GE(LogOf("events")->segment_count(), 3);
  ASSERT_TRUE(manager_->RunTask(*replicas_->GetPartition({"events", 0})).ok());
  store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
  ASSERT_TRUE(LogOf("events")->DeleteOldSegments().ok());
  ASSERT_GT(LogOf("events")->log_start_offset(), 20) << "batch 1 is in the remote tier only";
  // Record 5 of batch 1, not the batch's first offset (10).
  auto remote = ListOffsets("events", 2005, 9);
  EXPECT_EQ(remote.error_code, 0);
  EXPECT_EQ(remote.offset, 15);
  EXPECT_EQ(remote.timestamp, 2005);
  EXPECT_GT(reader_->stats().reads, 0);
}

TEST_F(TieredDataPathTest, ACorruptedRemoteObjectIsAStorageErrorForItsPartitionOnly) {
  TierOrders();
  CreateTopic("audit", 'a');
  Produce("audit", testing::MakeBatch(3, "x"));
  std::string path;
  store_->WithImage([&](const controller::MetadataImage& image) {
    const auto* copy = image.FindRemoteSegments(Id('o'), 0)->SegmentFor(0, -1);
    ASSERT_NE(copy, nullptr);
    path = remote_->PathOf(RemoteIdOf(*copy), ".log");
  });
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  kafka::FetchRequest request = FetchRequestFor("orders", 0);
  kafka::FetchRequest::Partition p;
  p.fetch_offset = 0;
  p.partition_max_bytes = 1 << 20;
  request.topics.push_back({"audit", std::string(16, '\0'), {p}});
  auto answer = Call(kafka::ApiKey::kFetch, 12, Encode(request, 12));
  ASSERT_TRUE(answer.ok() && answer->has_value());
  std::string bytes = AssembleResponse(**answer);
  kafka::Reader r(bytes);
  auto response = kafka::ReadFetchResponse(r, 12);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->responses.at(0).partitions.at(0).error_code, Code(kafka::ErrorCode::kKafkaStorageError));
  EXPECT_EQ(response->responses.at(1).partitions.at(0).error_code, 0);
  EXPECT_FALSE(response->responses.at(1).partitions.at(0).records->empty()) << "the other partition is served";
  EXPECT_EQ(reader_->stats().read_errors, 1);
  EXPECT_FALSE(LogOf("orders")->offline()) << "a remote failure is no local dir failure";
}

// Seed KC-761's example: offsets 0..1199 with timestamps 10000 + offset, the remote tier
// holding 0..799. A lookup answers the first offset at or after the time over both tiers,
// or OFFSET_NOT_AVAILABLE when it cannot rule out a match it cannot read — never an
// offset past stored records.
class TimestampAcrossTiersTest : public TieredDataPathTest {
 protected:
  void SetUp() override {
    TieredDataPathTest::SetUp();
    CreateTopic("ts", 't', {kBroker},
                {TopicConfig("ts", "remote.storage.enable", "true"), TopicConfig("ts", "segment.bytes", "4000"),
                 TopicConfig("ts", "local.retention.bytes", "1"), TopicConfig("ts", "retention.ms", "-1")});
    for (int k = 0; k < 9; ++k) ASSERT_EQ(Produce("ts", testing::MakeBatch(100, "v", 10000 + 100 * k, 20)).error_code, 0);
    ASSERT_TRUE(manager_->RunTask(*replicas_->GetPartition({"ts", 0})).ok());  // copies 0..799
    for (int k = 9; k < 12; ++k) ASSERT_EQ(Produce("ts", testing::MakeBatch(100, "v", 10000 + 100 * k, 20)).error_code, 0);
    store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
    ASSERT_TRUE(LogOf("ts")->DeleteOldSegments().ok());
    ASSERT_EQ(LogOf("ts")->log_start_offset(), 800) << "the local log starts where the remote tier ends";
    SetListOffsetsSearchHookForTesting(nullptr);
  }
  void TearDown() override {
    SetListOffsetsSearchHookForTesting(nullptr);
    TieredDataPathTest::TearDown();
  }
  int16_t NotAvailable() { return Code(kafka::ErrorCode::kOffsetNotAvailable); }
};

TEST_F(TimestampAcrossTiersTest, ALookupSearchesTheRemoteTierThenTheLocalLog) {
  auto remote = ListOffsets("ts", 10100, 9);
  EXPECT_EQ(remote.error_code, 0);
  EXPECT_EQ(remote.offset, 100);
  EXPECT_EQ(remote.timestamp, 10100);
  EXPECT_EQ(ListOffsets("ts", 10850, 9).offset, 850);
  EXPECT_EQ(ListOffsets("ts", 99999, 9).offset, -1) << "no match anywhere, and no hole";
}

TEST_F(TimestampAcrossTiersTest, AReplicaWhoseLocalLogStartsPastTheRemoteTierNeverSkipsTheHole) {
  // Rebuilt empty at its leader's end: the local log starts at 1200, the remote tier ends at 799.
  ASSERT_TRUE(LogOf("ts")->TruncateFullyAndStartAt(1200).ok());
  ListOffsetsDeferrals before = DeferredListOffsets();
  EXPECT_EQ(ListOffsets("ts", 10100, 9).offset, 100) << "a match in the contiguous remote prefix is answered";
  auto in_hole = ListOffsets("ts", 10850, 9);
  EXPECT_EQ(in_hole.error_code, NotAvailable()) << "never 1200, which would skip 850..1199";
  EXPECT_EQ(in_hole.offset, -1);
  EXPECT_EQ(ListOffsets("ts", 10850, 4).error_code, Code(kafka::ErrorCode::kLeaderNotAvailable)) << "before v5";
  EXPECT_EQ(DeferredListOffsets().hole - before.hole, 2) << "each deferred lookup counted once";
  EXPECT_EQ(DeferredListOffsets().range_moved, before.range_moved);
}

TEST_F(TimestampAcrossTiersTest, ATruncationDuringTheLookupDefersIt) {
  SetListOffsetsSearchHookForTesting([this] { ASSERT_TRUE(LogOf("ts")->TruncateTo(1150).ok()); });
  ListOffsetsDeferrals before = DeferredListOffsets();
  EXPECT_EQ(ListOffsets("ts", 10850, 9).error_code, NotAvailable());
  EXPECT_EQ(DeferredListOffsets().range_moved - before.range_moved, 1);
  SetListOffsetsSearchHookForTesting(nullptr);
  EXPECT_EQ(ListOffsets("ts", 10850, 9).offset, 850) << "answered once nothing moves under it";
}

TEST_F(TimestampAcrossTiersTest, ALogStartMoveDuringTheLookupDefersIt) {
  SetListOffsetsSearchHookForTesting([this] { ASSERT_TRUE(LogOf("ts")->MaybeIncrementLogStartOffset(900).ok()); });
  EXPECT_EQ(ListOffsets("ts", 10100, 9).error_code, NotAvailable()) << "the local log start moved";
}

TEST_F(TimestampAcrossTiersTest, ARebuildDuringTheLookupDefersIt) {
  storage::Log* log = LogOf("ts");
  SetListOffsetsSearchHookForTesting([log] {
    std::vector<storage::EpochEntry> epochs = log->leader_epoch_cache().entries();
    ASSERT_TRUE(log->TruncateFullyAndRestore(1200, epochs, "").ok());
  });
  EXPECT_EQ(ListOffsets("ts", 10850, 9).error_code, NotAvailable());
}

// A randomized model of both tiers: produce, copy, local retention, remote retention
// and a rebuild at the log end interleaved by seed, with timestamp lookups between. The
// invariant: an answered offset o for time t means no stored record below o (in a
// finished remote copy or the local log, from the log start) has a timestamp >= t, and
// the record at o has; a lookup may instead be deferred (OFFSET_NOT_AVAILABLE).
// STRATA_TIER_MODEL_SEEDS sets the number of seeds (default 12).
TEST_F(TieredDataPathTest, RandomizedLookupsNeverSkipAStoredRecord) {
  int seeds = 12;
  if (const char* env = std::getenv("STRATA_TIER_MODEL_SEEDS")) seeds = std::atoi(env);
  int64_t answered = 0, deferred = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937 rng(seed);
    std::string name = absl::StrCat("model", seed);
    std::string id = std::string(14, 'm') + static_cast<char>('a' + seed / 26) + static_cast<char>('a' + seed % 26);
    Apply({TopicRecord(name, id), PartitionRecord(id, 0, {kBroker}, kBroker),
           TopicConfig(name, "remote.storage.enable", "true"), TopicConfig(name, "segment.bytes", "3000"),
           TopicConfig(name, "local.retention.bytes", "6000"), TopicConfig(name, "retention.ms", "-1")});
    storage::Log* log = LogOf(name);
    auto partition = replicas_->GetPartition({name, 0});
    ASSERT_NE(partition, nullptr);
    std::vector<int64_t> ts;  // by offset
    int64_t clock = 100000;
    auto stored = [&](int64_t offset) {
      if (offset < partition->log_start_offset()) return false;
      if (offset >= log->log_start_offset() && offset < log->log_end_offset()) return true;
      bool remote = false;
      store_->WithImage([&](const controller::MetadataImage& image) {
        if (const auto* s = image.FindRemoteSegments(id, 0)) remote = s->SegmentFor(offset, -1) != nullptr;
      });
      return remote;
    };
    for (int step = 0; step < 80; ++step) {
      int op = std::uniform_int_distribution<int>(0, 9)(rng);
      if (op <= 3) {
        int n = std::uniform_int_distribution<int>(5, 40)(rng);
        clock += std::uniform_int_distribution<int>(0, 30)(rng);
        ASSERT_EQ(Produce(name, testing::MakeBatch(n, "r", clock, 20)).error_code, 0);
        for (int i = 0; i < n; ++i) ts.push_back(clock + i);
        clock += n - 1;
      } else if (op == 4) {
        ASSERT_TRUE(manager_->RunTask(*partition).ok());
        store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
      } else if (op == 5) {
        ASSERT_TRUE(log->DeleteOldSegments().ok());
      } else if (op == 6) {
        // Remote retention of about a third of the whole log, then no limit again.
        storage::LogConfig config = log->config();
        RemoteTierState remote = partition->remote_tier();
        config.retention_bytes = std::max<int64_t>(1, (remote.bytes + log->size_in_bytes()) * 2 / 3);
        log->UpdateConfig(config);
        ASSERT_TRUE(manager_->RunTask(*partition).ok());
        config.retention_bytes = -1;
        log->UpdateConfig(config);
        store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
      } else if (op == 7 && std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
        // This replica rebuilt empty at its end (the remote tier may not reach it).
        ASSERT_TRUE(log->TruncateFullyAndStartAt(log->log_end_offset()).ok());
      } else if (!ts.empty()) {
        int64_t target = std::uniform_int_distribution<int64_t>(ts.front() - 5, ts.back() + 5)(rng);
        auto answer = ListOffsets(name, target, 9);
        if (answer.error_code == Code(kafka::ErrorCode::kOffsetNotAvailable)) {
          ++deferred;
          continue;
        }
        ASSERT_EQ(answer.error_code, 0) << "seed " << seed << " step " << step;
        ++answered;
        int64_t bound = answer.offset >= 0 ? answer.offset : log->high_watermark();
        for (int64_t o = 0; o < bound; ++o) {
          ASSERT_FALSE(ts[o] >= target && stored(o))
              << "seed " << seed << " step " << step << ": time " << target << " answered " << answer.offset
              << ", but stored offset " << o << " has time " << ts[o];
        }
        if (answer.offset >= 0) ASSERT_GE(ts[answer.offset], target) << "seed " << seed << " step " << step;
      }
    }
  }
  EXPECT_GT(answered, 0);
  std::cerr << "lookups answered " << answered << ", deferred " << deferred << "\n";
}

}  // namespace
}  // namespace strata::broker
