// Replication between brokers in one process: each broker has its own metadata store
// (fed the same records, as every broker applies the same log), log dir, ReplicaManager
// with real follower fetchers and a Kafka listener on 127.0.0.1, so followers fetch
// over real sockets. Covers acks=all waiting for the followers, the high watermark
// reaching followers, a leader change, and a former leader truncating the tail it
// never replicated.

#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "broker/handlers/fetch_session.h"
#include "broker/handlers/kafka_apis.h"
#include "broker/network/listener.h"
#include "broker/replication/replica_manager.h"
#include "controller/metadata_store.h"
#include "proto/kafka/api.h"
#include "proto/kafka/delete_records.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/produce.h"
#include "storage/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/broker_services.h"
#include "tests/support/response_bytes.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
namespace pb = metadata::v1;
using namespace std::chrono_literals;

const std::string kTopicId(16, 't');

// One broker: store, logs, replica manager (fetching), Kafka listener.
struct Broker {
  Broker(int32_t id, const std::string& dir) : id(id) {
    auto s = controller::MetadataStore::Open(dir + "/metadata");
    EXPECT_TRUE(s.ok()) << s.status();
    store = std::move(*s);
    storage::LogManagerOptions lmo;
    lmo.log_dirs = {dir + "/logs"};
    lmo.cluster_id = "test-cluster";
    lmo.node_id = id;
    lmo.scheduler = &scheduler;
    auto l = storage::LogManager::Open(lmo);
    EXPECT_TRUE(l.ok()) << l.status();
    logs = std::move(*l);
    ReplicaManagerOptions rmo;
    rmo.broker_id = id;
    rmo.logs = logs.get();
    rmo.fetchers.fetcher.max_wait = 100ms;
    rmo.fetchers.fetcher.backoff = 20ms;
    replicas = std::make_unique<ReplicaManager>(rmo);
    apis = std::make_unique<KafkaApis>(KafkaApisContext{.store = *store,
                                                        .controller = controller,
                                                        .producer_ids = producer_ids,
                                                        .replicas = *replicas,
                                                        .broker_id = id,
                                                        .rack_aware_selector = true,
                                                        .fetch_sessions = &sessions});
    replicas->set_on_high_watermark([this](const storage::TopicPartition& tp) { apis->OnHighWatermark(tp); });
    ListenerOptions options;
    options.on_connection_closed = [this](uint64_t connection_id) {
      ++connections_closed;
      sessions.ConnectionClosed(connection_id);
    };
    auto server = Listener::Start(options, [this](const auto& h, auto b, auto respond) {
      apis->Handle(h, b, std::move(respond));
    });
    EXPECT_TRUE(server.ok()) << server.status();
    this->server = std::move(*server);
  }
  ~Broker() {
    server.reset();
    replicas->Shutdown();  // before apis: a fetcher's high-watermark callback calls it
    apis.reset();
    replicas.reset();
    scheduler.Shutdown();
  }
  void Apply(int64_t index, const pb::MetadataBatch& batch) {
    ASSERT_TRUE(store->Apply(raft::Entry{1, index, batch.SerializeAsString()}).ok());
    store->WithImage([&](const controller::MetadataImage& image) { replicas->ApplyImage(image); });
  }
  storage::Log* log() { return logs->GetLog({"orders", 0}); }

  int32_t id;
  testing::UnreachableController controller;
  ProducerIdManager producer_ids{testing::NoProducerIdBlocks()};
  FetchSessionCache sessions{FetchSessionCacheOptions{}};
  storage::Scheduler scheduler{1};
  std::unique_ptr<controller::MetadataStore> store;
  std::unique_ptr<storage::LogManager> logs;
  std::unique_ptr<ReplicaManager> replicas;
  std::unique_ptr<KafkaApis> apis;
  std::unique_ptr<Listener> server;
  std::atomic<int> connections_closed{0};  // on its Kafka listener
};

class ReplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (getenv("STRATA_TEST_DEBUG")) spdlog::set_level(spdlog::level::debug);
    for (int32_t id : {1, 2, 3}) brokers_.push_back(std::make_unique<Broker>(id, tmp_.Sub("b" + std::to_string(id))));
    pb::MetadataBatch batch;
    for (auto& b : brokers_) {
      auto* r = batch.add_records()->mutable_register_broker();
      r->set_broker_id(b->id);
      r->set_broker_epoch(1);
      r->set_incarnation_id(std::string(16, static_cast<char>('a' + b->id)));
      r->set_rack("rack-" + std::to_string(b->id));
      auto* e = r->add_endpoints();
      e->set_name("PLAINTEXT");
      e->set_host("127.0.0.1");
      e->set_port(b->server->port());
      e->set_security_protocol("PLAINTEXT");
    }
    auto* topic = batch.add_records()->mutable_topic();
    topic->set_name("orders");
    topic->set_topic_id(kTopicId);
    AddPartition(batch, kTopicId, 0);
    ApplyEverywhere(batch);
  }

  // A partition of topic_id on brokers 1, 2 and 3, all in the ISR, led by 1 in epoch 0.
  static void AddPartition(pb::MetadataBatch& batch, const std::string& topic_id, int32_t partition) {
    auto* p = batch.add_records()->mutable_partition();
    p->set_topic_id(topic_id);
    p->set_partition_id(partition);
    for (int32_t id : {1, 2, 3}) {
      p->add_replicas(id);
      p->add_isr(id);
    }
    p->set_leader(1);
    p->set_leader_epoch(0);
  }

  void ApplyEverywhere(const pb::MetadataBatch& batch, std::vector<int32_t> only = {}) {
    ++index_;
    for (auto& b : brokers_) {
      if (only.empty() || std::find(only.begin(), only.end(), b->id) != only.end()) b->Apply(index_, batch);
    }
  }

  // A new leader (and ISR) for orders-0, as the controller would record it.
  void ChangeLeader(int32_t leader, std::vector<int32_t> isr, std::vector<int32_t> only = {}) {
    pb::MetadataBatch batch;
    auto* c = batch.add_records()->mutable_partition_change();
    c->set_topic_id(kTopicId);
    c->set_partition_id(0);
    c->set_leader(leader);
    for (int32_t r : isr) c->mutable_isr()->add_ids(r);
    ApplyEverywhere(batch, only);
  }

  kafka::ProduceResponse::Partition Produce(Broker& b, std::string records, int16_t acks, int32_t timeout_ms = 20000) {
    kafka::ProduceRequest request;
    request.acks = acks;
    request.timeout_ms = timeout_ms;
    request.topic_data.push_back({"orders", {{0, std::move(records)}}});
    return Produce(b, request).at(0);
  }

  // Sends request (Produce v9) to b; the answer of each partition of its only topic.
  std::vector<kafka::ProduceResponse::Partition> Produce(Broker& b, const kafka::ProduceRequest& request) {
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteProduceRequest(request, 9, w);
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(kafka::ApiKey::kProduce);
    header.api_version = 9;
    auto answer = b.apis->HandleAndWait(header, body);
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    kafka::Reader r((*answer)->body);
    auto response = kafka::ReadProduceResponse(r, 9);
    EXPECT_TRUE(response.ok()) << response.status();
    return response->responses.at(0).partition_responses;
  }

  // A consumer's Fetch v11 of orders-0 from rack, sessionless: its body.
  static std::string ConsumerFetch(const std::string& rack, int64_t fetch_offset = 0, int32_t max_wait_ms = 0,
                                   int32_t min_bytes = 0) {
    kafka::FetchRequest request;
    request.rack_id = rack;
    request.max_wait_ms = max_wait_ms;
    request.min_bytes = min_bytes;
    kafka::FetchRequest::Partition p;
    p.fetch_offset = fetch_offset;
    p.partition_max_bytes = 1 << 20;
    request.topics.push_back({"orders", std::string(16, '\0'), {p}});
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteFetchRequest(request, 11, w);
    return body;
  }
  static kafka::RequestHeader FetchHeader() {
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(kafka::ApiKey::kFetch);
    header.api_version = 11;
    return header;
  }
  // The answer's only partition, record bytes spliced in.
  static kafka::FetchResponse::Partition OnlyPartition(const absl::StatusOr<std::optional<ApiResponse>>& answer) {
    EXPECT_TRUE(answer.ok() && answer->has_value());
    std::string bytes = testing::AssembleResponse(**answer);
    kafka::Reader r(bytes);
    auto response = kafka::ReadFetchResponse(r, 11);
    EXPECT_TRUE(response.ok()) << response.status();
    return response->responses.at(0).partitions.at(0);
  }

  // DeleteRecords v2 of orders-<partition> below offset, sent to b: the partition's answer.
  static kafka::DeleteRecordsResponse::Partition DeleteRecords(Broker& b, int32_t partition, int64_t offset,
                                                               int32_t timeout_ms = 20000) {
    kafka::DeleteRecordsRequest request;
    request.topics.push_back({"orders", {{partition, offset}}});
    request.timeout_ms = timeout_ms;
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteDeleteRecordsRequest(request, 2, w);
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(kafka::ApiKey::kDeleteRecords);
    header.api_version = 2;
    auto answer = b.apis->HandleAndWait(header, body);
    EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
    kafka::Reader r((*answer)->body);
    auto response = kafka::ReadDeleteRecordsResponse(r, 2);
    EXPECT_TRUE(response.ok()) << response.status();
    return response->topics.at(0).partitions.at(0);
  }

  Broker& broker(int32_t id) { return *brokers_[static_cast<size_t>(id - 1)]; }

  testing::TempDir tmp_;
  std::vector<std::unique_ptr<Broker>> brokers_;
  int64_t index_ = 0;
};

TEST_F(ReplicationTest, AcksAllIsAnsweredOnceEveryIsrMemberHasTheRecordsAndTheyMatchByteForByte) {
  for (int i = 0; i < 5; ++i) {
    auto p = Produce(broker(1), testing::MakeBatch(10, "r" + std::to_string(i), 1000, 100), -1);
    ASSERT_EQ(p.error_code, 0);
    EXPECT_EQ(p.base_offset, i * 10);
  }
  // Acknowledged: the leader's high watermark passed them, so every ISR member has them.
  EXPECT_EQ(broker(1).log()->high_watermark(), 50);
  for (int32_t id : {2, 3}) EXPECT_GE(broker(id).log()->log_end_offset(), 50) << "broker " << id;
  // Followers learn the high watermark from the next fetch.
  for (int32_t id : {2, 3}) {
    ASSERT_TRUE(testing::WaitUntil([&] { return broker(id).log()->high_watermark() == 50; }, 10s)) << id;
  }
  auto bytes = [](Broker& b) {
    auto read = b.log()->Read(0, 1 << 20, 50, true);
    EXPECT_TRUE(read.ok()) << read.status();
    auto data = read->records.ReadAll();
    EXPECT_TRUE(data.ok());
    return *data;
  };
  std::string leader = bytes(broker(1));
  EXPECT_EQ(bytes(broker(2)), leader);
  EXPECT_EQ(bytes(broker(3)), leader);
  EXPECT_EQ(broker(2).log()->leader_epoch_cache().entries(), broker(1).log()->leader_epoch_cache().entries());
}

TEST_F(ReplicationTest, FollowersFetchInIncrementalSessionsThatSkipIdlePartitions) {
  // Each follower holds one session at the leader; once caught up, its fetches name
  // nothing and the leader does not read the idle partition again, yet records still flow.
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).sessions.size() == 2; }, 10s))
      << broker(1).sessions.size() << " sessions at the leader";
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).sessions.reads_skipped() > 4; }, 10s));
  for (int i = 0; i < 5; ++i) {
    auto answered = Produce(broker(1), testing::MakeBatch(3, "x" + std::to_string(i)), /*acks=*/-1);
    ASSERT_EQ(answered.error_code, 0);
    EXPECT_EQ(answered.base_offset, 3 * i);
  }
  for (int32_t id : {2, 3}) {
    ASSERT_TRUE(testing::WaitUntil([&] { return broker(id).log()->high_watermark() == 15; }, 10s)) << "broker " << id;
  }
  EXPECT_EQ(broker(1).sessions.size(), 2u);
}

TEST_F(ReplicationTest, AnEntryThatAddsManyPartitionsCutsEachFollowersWaitingFetchShortOnce) {
  // A follower's fetch waits at the leader (nothing to read). One entry creates a topic of
  // many partitions, whose logs each follower opens one by one: the waiting fetch is cut
  // short once, after the entry, not once per partition (each cut a new connection and a
  // full fetch of every partition: quadratic in the partitions).
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).sessions.size() == 2; }, 10s));
  const int closed_before = broker(1).connections_closed.load();
  constexpr int kPartitions = 300;
  const std::string wide_id(16, 'w');
  pb::MetadataBatch batch;
  auto* topic = batch.add_records()->mutable_topic();
  topic->set_name("wide");
  topic->set_topic_id(wide_id);
  for (int i = 0; i < kPartitions; ++i) AddPartition(batch, wide_id, i);
  ApplyEverywhere(batch);
  // Both followers fetch all of them (and orders-0) in their sessions.
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).sessions.cached_partitions() == 2 * (kPartitions + 1); }, 20s))
      << broker(1).sessions.cached_partitions() << " partitions in the leader's sessions";
  EXPECT_LE(broker(1).connections_closed.load() - closed_before, 2) << "connections the followers cut";
}

TEST_F(ReplicationTest, AFormerLeaderTruncatesTheTailItNeverReplicated) {
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(4, "acked"), -1).error_code, 0)
      << "follower log ends " << broker(2).log()->log_end_offset() << " " << broker(3).log()->log_end_offset()
      << " fetches " << broker(2).replicas->fetchers()->fetcher_count();
  // Broker 1 is cut off from the others (they no longer see it as leader: leadership
  // moves to 2 in epoch 1 while 1 still believes it leads epoch 0 and takes an acks=1
  // write no one will ever fetch.
  ChangeLeader(2, {2, 3}, {2, 3});
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(3).replicas->fetchers()->LeaderOf({"orders", 0}) == 2; }, 10s));
  auto lost = Produce(broker(1), testing::MakeBatch(3, "unreplicated"), 1);
  ASSERT_EQ(lost.error_code, 0);
  EXPECT_EQ(broker(1).log()->log_end_offset(), 7);
  ASSERT_EQ(Produce(broker(2), testing::MakeBatch(2, "new-leader"), -1).error_code, 0);
  // Broker 1 learns the change and follows 2: its unreplicated tail goes, 2's log comes.
  ChangeLeader(2, {2, 3}, {1});
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).log()->log_end_offset() == 6 &&
                                              broker(1).log()->high_watermark() == 6; }, 10s))
      << broker(1).log()->log_end_offset();
  auto records = testing::ReadAll(*broker(1).log());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 6u);
  EXPECT_EQ((*records)[3].value, "acked-3");
  EXPECT_EQ((*records)[4].value, "new-leader-0");
  for (const auto& r : *records) EXPECT_EQ(r.value.find("unreplicated"), std::string::npos);
}

TEST_F(ReplicationTest, TheHighWatermarkWaitsForAStalledIsrMemberAndMovesWhenTheIsrShrinks) {
  // Broker 3 stops following (as if paused): acks=all cannot complete while it is in
  // the ISR ...
  broker(3).replicas->Shutdown();
  auto timed_out = Produce(broker(1), testing::MakeBatch(2, "a"), -1, 300);
  EXPECT_EQ(timed_out.error_code, static_cast<int16_t>(kafka::ErrorCode::kRequestTimedOut));
  EXPECT_EQ(broker(1).log()->high_watermark(), 0);
  // ... and completes once the ISR is {1, 2} (the controller accepted the shrink).
  ChangeLeader(1, {1, 2}, {1, 2});  // (broker 3 stays stalled: it is not told)
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).log()->high_watermark() == 2; }, 10s));
  EXPECT_EQ(Produce(broker(1), testing::MakeBatch(1, "b"), -1).error_code, 0);
}

TEST_F(ReplicationTest, AnAcksAllProduceWaitingOnALeaderThatLosesThePartitionIsAnsweredAtOnce) {
  // Broker 3 stops following: the acks=all produce waits in broker 1's purgatory ...
  broker(3).replicas->Shutdown();
  auto started = std::chrono::steady_clock::now();
  auto waiting = std::async(std::launch::async, [&] { return Produce(broker(1), testing::MakeBatch(2, "a"), -1); });
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).apis->produces_waiting() == 1; }, 10s));
  ASSERT_EQ(broker(1).log()->log_end_offset(), 2);
  // ... until broker 1 learns it no longer leads: then it is told NOT_LEADER_OR_FOLLOWER
  // at once (its client goes to the new leader), not REQUEST_TIMED_OUT after 20 s.
  ChangeLeader(2, {1, 2}, {1, 2});
  ASSERT_EQ(waiting.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(waiting.get().error_code, static_cast<int16_t>(kafka::ErrorCode::kNotLeaderOrFollower));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST_F(ReplicationTest, AnAcksAllProduceTriedByAFollowerFetchAndByTheMetadataImageKeepsOneLockOrder) {
  // One produce to two partitions waits in broker 1's purgatory: orders-1 (ISR {1, 2}) is
  // settled by broker 2's fetch, on a request thread; orders-0 (ISR {1, 2, 3}, broker 3
  // stalled) by the ISR shrink that broker 1 applies from the metadata image, on the
  // image's thread. Settling a partition reads min.insync.replicas: when that took the
  // image's lock under the operation's lock, the two threads took the two locks in both
  // orders, a deadlock in waiting, and absl's deadlock detection killed the broker
  // (this test process) at the shrink.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
  pb::MetadataBatch batch;
  auto* p = batch.add_records()->mutable_partition();
  p->set_topic_id(kTopicId);
  p->set_partition_id(1);
  for (int32_t id : {1, 2}) {
    p->add_replicas(id);
    p->add_isr(id);
  }
  p->set_leader(1);
  p->set_leader_epoch(0);
  ApplyEverywhere(batch);
  broker(3).replicas->Shutdown();
  kafka::ProduceRequest request;
  request.acks = -1;
  request.timeout_ms = 20000;
  request.topic_data.push_back({"orders", {{0, testing::MakeBatch(2, "a")}, {1, testing::MakeBatch(3, "b")}}});
  auto produced = std::async(std::launch::async, [&] { return Produce(broker(1), request); });
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).apis->produces_waiting() == 1; }, 10s));
  // Broker 2 learns orders-1's high watermark from the fetch response whose handling
  // advanced it and tried the operation: orders-1 is settled, orders-0 still waits.
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(2).logs->GetLog({"orders", 1})->high_watermark() == 3; }, 10s));
  ASSERT_EQ(produced.wait_for(0s), std::future_status::timeout);
  ChangeLeader(1, {1, 2}, {1, 2});
  ASSERT_EQ(produced.wait_for(10s), std::future_status::ready);
  auto partitions = produced.get();
  ASSERT_EQ(partitions.size(), 2u);
  for (const auto& answered : partitions) EXPECT_EQ(answered.error_code, 0) << "orders-" << answered.index;
}

TEST_F(ReplicationTest, APartitionWhoseLogDirFailedStopsFollowingAndAnswersProducesOnceAnotherLeaderIsNamed) {
  // Broker 3 stops following: an acks=all produce waits in broker 1's purgatory ...
  broker(3).replicas->Shutdown();
  auto waiting = std::async(std::launch::async, [&] { return Produce(broker(1), testing::MakeBatch(2, "a"), -1); });
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).apis->produces_waiting() == 1; }, 10s));
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(2).log()->log_end_offset() == 2; }, 10s));
  // ... when broker 1's log dir fails, and then broker 2's (as the failure channel's
  // listener in BrokerRole does: the dir goes offline, then the replica manager hears).
  for (int32_t id : {1, 2}) {
    std::string dir = broker(id).log()->log_dir();
    broker(id).logs->failure_channel().MaybeAddOfflineLogDir(dir, absl::DataLossError("test: EIO"));
    broker(id).replicas->OnLogDirOffline(dir);
  }
  // Its answer, KAFKA_STORAGE_ERROR, is held until broker 1's image names another leader:
  // the producer's metadata refresh right after it must find that leader. A new produce
  // (acks=1) is held the same way.
  auto later = std::async(std::launch::async, [&] { return Produce(broker(1), testing::MakeBatch(1, "b"), 1); });
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(1).apis->produces_waiting() == 2; }, 10s));
  EXPECT_EQ(waiting.wait_for(0s), std::future_status::timeout);
  ChangeLeader(2, {2}, {1});
  ASSERT_EQ(waiting.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(waiting.get().error_code, static_cast<int16_t>(kafka::ErrorCode::kKafkaStorageError));
  ASSERT_EQ(later.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(later.get().error_code, static_cast<int16_t>(kafka::ErrorCode::kKafkaStorageError));
  // From now on at once.
  EXPECT_EQ(Produce(broker(1), testing::MakeBatch(1, "c"), -1).error_code,
            static_cast<int16_t>(kafka::ErrorCode::kKafkaStorageError));
  EXPECT_EQ(broker(1).apis->produces_waiting(), 0u);
  // The follower stopped fetching, and a metadata change does not start it again.
  EXPECT_EQ(broker(2).replicas->fetchers()->LeaderOf({"orders", 0}), -1);
  ChangeLeader(1, {1, 2}, {2});
  EXPECT_EQ(broker(2).replicas->fetchers()->LeaderOf({"orders", 0}), -1);
  EXPECT_NE(broker(2).replicas->GetPartition({"orders", 0}), nullptr);  // kept, not deleted
}

TEST_F(ReplicationTest, AConsumerInAFollowersRackIsSentThereAndTheFollowerServesIt) {
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(3, "near"), -1).error_code, 0);
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(2).log()->high_watermark() == 3; }, 10s));
  auto fetch = [&](Broker& b, const std::string& rack) {
    return OnlyPartition(b.apis->HandleAndWait(FetchHeader(), ConsumerFetch(rack)));
  };
  auto redirected = fetch(broker(1), "rack-2");
  EXPECT_EQ(redirected.error_code, 0);
  EXPECT_EQ(redirected.preferred_read_replica, 2);
  EXPECT_EQ(redirected.records, std::string());
  auto local = fetch(broker(1), "rack-1");
  EXPECT_EQ(local.preferred_read_replica, -1);
  EXPECT_FALSE(local.records->empty());
  auto from_follower = fetch(broker(2), "rack-2");
  EXPECT_EQ(from_follower.error_code, 0);
  EXPECT_EQ(from_follower.high_watermark, 3);
  EXPECT_EQ(*from_follower.records, *local.records) << "the follower serves the same bytes";
}

// A consumer waiting at a follower for records (KIP-392) is answered when the follower's
// high watermark moves, as one waiting at the leader is when the leader's does: not at
// the end of its max wait.
TEST_F(ReplicationTest, AConsumerWaitingAtAFollowerIsAnsweredWhenTheFollowersHighWatermarkMoves) {
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(3, "first"), -1).error_code, 0);
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(2).log()->high_watermark() == 3; }, 10s));
  // Shared: a fetch still waiting when the test ends is answered as the broker goes.
  auto answered = std::make_shared<std::promise<absl::StatusOr<std::optional<ApiResponse>>>>();
  auto answer = answered->get_future();
  // Caught up, it waits for one byte, up to 60 s.
  broker(2).apis->Handle(FetchHeader(), ConsumerFetch("rack-2", 3, 60000, 1),
                         [answered](absl::StatusOr<std::optional<ApiResponse>> a) { answered->set_value(std::move(a)); });
  ASSERT_EQ(answer.wait_for(0s), std::future_status::timeout);  // nothing to read yet
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(2, "second"), -1).error_code, 0);
  ASSERT_EQ(answer.wait_for(10s), std::future_status::ready) << "not woken by the follower's high watermark";
  auto p = OnlyPartition(answer.get());
  EXPECT_EQ(p.error_code, 0);
  EXPECT_EQ(p.high_watermark, 5);
  EXPECT_FALSE(p.records->empty());
}

// Replication throttles (KIP-73): broker 1 leads orders-0 with leader.replication.throttled.rate
// 1000 bytes/s and the partition leader-throttled; broker 3 is out of the ISR. Once 50 KB
// went to it (the quota's window starts with room for ten seconds' worth, as Kafka's),
// the leader is above its quota: broker 3's fetches get no records while broker 2, in the
// ISR, still gets them. Without the throttle broker 3 gets them again.
TEST_F(ReplicationTest, ALeaderAnswersAThrottledFollowerOutOfTheIsrNoRecordsOnceOverItsQuota) {
  pb::MetadataBatch throttle;
  auto config = [&](pb::Config::ResourceType type, const std::string& name, const std::string& key,
                    std::optional<std::string> value) {
    auto* c = throttle.add_records()->mutable_config();
    c->set_resource_type(type);
    c->set_resource_name(name);
    c->set_name(key);
    if (value) c->set_value(*value);
  };
  config(pb::Config::BROKER, "1", "leader.replication.throttled.rate", "1000");
  config(pb::Config::TOPIC, "orders", "leader.replication.throttled.replicas", "0:1");
  ApplyEverywhere(throttle);
  ChangeLeader(1, {1, 2});
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(5, "first", 1000, 10000), 1).error_code, 0);
  auto follower_fetch = [&](int32_t replica, int64_t offset) {
    kafka::FetchRequest request;
    request.replica_id = replica;
    kafka::FetchRequest::Partition p;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    request.topics.push_back({"orders", std::string(16, '\0'), {p}});
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteFetchRequest(request, 11, w);
    return OnlyPartition(broker(1).apis->HandleAndWait(FetchHeader(), body));
  };
  // Broker 3's own fetcher or this fetch takes the 50 KB (whichever comes first).
  ASSERT_EQ(follower_fetch(3, 0).error_code, 0);
  ASSERT_TRUE(broker(1).replicas->leader_quota().Exceeded(std::chrono::steady_clock::now()));
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(2, "second"), 1).error_code, 0);
  auto held = follower_fetch(3, 5);
  EXPECT_EQ(held.error_code, 0);
  EXPECT_TRUE(held.records->empty()) << "over the quota: nothing for a throttled follower out of the ISR";
  EXPECT_FALSE(follower_fetch(2, 5).records->empty()) << "an ISR member is never throttled";
  pb::MetadataBatch lifted;
  throttle.Clear();
  config(pb::Config::BROKER, "1", "leader.replication.throttled.rate", std::nullopt);
  lifted = throttle;
  ApplyEverywhere(lifted);
  EXPECT_FALSE(follower_fetch(3, 5).records->empty()) << "no throttle any more";
}

// DeleteRecords (kafka-delete-records.sh): the leader moves its log start at once and
// answers once every live replica's did, which each follower learns from its next fetch's
// answer and reports in the fetch after it: the low watermark it names is then the log
// start of all three.
TEST_F(ReplicationTest, DeleteRecordsMovesTheLogStartOfEveryReplicaBeforeItAnswers) {
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Produce(broker(1), testing::MakeBatch(10, "r" + std::to_string(i)), -1).error_code, 0);
  auto deleted = DeleteRecords(broker(1), 0, 30);
  ASSERT_EQ(deleted.error_code, 0) << kafka::ErrorName(static_cast<kafka::ErrorCode>(deleted.error_code));
  EXPECT_EQ(deleted.low_watermark, 30);
  for (int32_t id : {1, 2, 3}) EXPECT_EQ(broker(id).log()->log_start_offset(), 30) << "broker " << id;
  // Below it nothing is served, from the leader or from a follower (KIP-392).
  EXPECT_EQ(OnlyPartition(broker(1).apis->HandleAndWait(FetchHeader(), ConsumerFetch("rack-1", 29))).error_code,
            static_cast<int16_t>(kafka::ErrorCode::kOffsetOutOfRange));
  EXPECT_EQ(OnlyPartition(broker(2).apis->HandleAndWait(FetchHeader(), ConsumerFetch("rack-2", 29))).error_code,
            static_cast<int16_t>(kafka::ErrorCode::kOffsetOutOfRange));
  auto from = OnlyPartition(broker(1).apis->HandleAndWait(FetchHeader(), ConsumerFetch("rack-1", 30)));
  EXPECT_EQ(from.error_code, 0);
  EXPECT_EQ(from.log_start_offset, 30);
  // -1 is the high watermark; a smaller offset than the log start changes nothing and
  // answers the low watermark as it is.
  auto all = DeleteRecords(broker(1), 0, -1);
  EXPECT_EQ(all.error_code, 0);
  EXPECT_EQ(all.low_watermark, 50);
  auto behind = DeleteRecords(broker(1), 0, 10);
  EXPECT_EQ(behind.error_code, 0);
  EXPECT_EQ(behind.low_watermark, 50);
  // The next leader keeps it.
  ChangeLeader(2, {1, 2, 3});
  EXPECT_EQ(broker(2).log()->log_start_offset(), 50);
  ASSERT_EQ(Produce(broker(2), testing::MakeBatch(2, "after"), -1).error_code, 0);
  EXPECT_EQ(DeleteRecords(broker(2), 0, 51).low_watermark, 51);
  for (int32_t id : {1, 2, 3}) EXPECT_EQ(broker(id).log()->log_start_offset(), 51) << "broker " << id;
}

TEST_F(ReplicationTest, DeleteRecordsRefusesWhatItCannotDoAndMovesNothing) {
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(10, "r"), -1).error_code, 0);
  EXPECT_EQ(DeleteRecords(broker(1), 0, 11).error_code, static_cast<int16_t>(kafka::ErrorCode::kOffsetOutOfRange));
  EXPECT_EQ(DeleteRecords(broker(1), 0, -2).error_code, static_cast<int16_t>(kafka::ErrorCode::kOffsetOutOfRange));
  EXPECT_EQ(DeleteRecords(broker(2), 0, 5).error_code, static_cast<int16_t>(kafka::ErrorCode::kNotLeaderOrFollower));
  EXPECT_EQ(DeleteRecords(broker(1), 7, 5).error_code,
            static_cast<int16_t>(kafka::ErrorCode::kUnknownTopicOrPartition));
  for (int32_t id : {1, 2, 3}) EXPECT_EQ(broker(id).log()->log_start_offset(), 0) << "broker " << id;
}

TEST_F(ReplicationTest, DeleteRecordsWaitsForALiveFollowerThatDoesNotFetchAndTimesOut) {
  ASSERT_EQ(Produce(broker(1), testing::MakeBatch(10, "r"), -1).error_code, 0);
  broker(3).replicas->Shutdown();  // alive in the image, not fetching
  auto waited = DeleteRecords(broker(1), 0, 5, /*timeout_ms=*/300);
  EXPECT_EQ(waited.error_code, static_cast<int16_t>(kafka::ErrorCode::kRequestTimedOut));
  EXPECT_EQ(broker(1).log()->log_start_offset(), 5);  // the leader moved at once
  ASSERT_TRUE(testing::WaitUntil([&] { return broker(2).log()->log_start_offset() == 5; }, 10s));
  EXPECT_EQ(broker(3).log()->log_start_offset(), 0);
  // Once its broker is fenced it no longer counts.
  pb::MetadataBatch batch;
  auto* fence = batch.add_records()->mutable_fence_broker();
  fence->set_broker_id(3);
  fence->set_broker_epoch(1);
  ApplyEverywhere(batch, {1, 2});
  auto again = DeleteRecords(broker(1), 0, 6);
  EXPECT_EQ(again.error_code, 0);
  EXPECT_EQ(again.low_watermark, 6);
}

}  // namespace
}  // namespace strata::broker
