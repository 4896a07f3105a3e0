// KIP-890 part 1 through the real pieces of one broker: Produce requests encoded and
// answered by KafkaApis, appended by the ReplicaManager to logs on disk, with the
// partition leader asking the transaction coordinator (in-process, over an in-memory
// __transaction_state) before a batch opens a transaction. The coordinator's markers are
// written to the partitions as WriteTxnMarkers writes them. The network path to another
// broker's coordinator (AddPartitionsToTxn v4 verify_only) is exercised by the
// transactions process test (tests/compat/transactions_test.sh, three brokers).

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <future>
#include <memory>
#include <set>
#include <string>

#include "broker/handlers/kafka_apis.h"
#include "broker/transactions/add_partitions_to_txn_manager.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/api.h"
#include "proto/kafka/produce.h"
#include "storage/control_record.h"
#include "storage/record_batch.h"
#include "tests/support/broker_services.h"
#include "tests/support/memory_group_log.h"
#include "tests/support/metadata_records.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using kafka::ErrorCode;
using storage::TopicPartition;

constexpr int32_t kBroker = 1;
constexpr int32_t kStatePartitions = 4;
const std::string kTxnId = "orders-writer";

// Writes each transaction's markers to this broker's partitions, as their leader does
// for WriteTxnMarkers: at once, or (hold) when the test releases them.
class LocalMarkerWriter final : public TxnMarkerSender {
 public:
  explicit LocalMarkerWriter(ReplicaManager& replicas) : replicas_(replicas) {}
  void Send(Markers markers, std::function<void()> done) override {
    if (hold) {
      held.emplace_back(std::move(markers), std::move(done));
      return;
    }
    Write(markers, done);
  }
  void ReleaseAll() {
    auto todo = std::move(held);
    held.clear();
    for (auto& [markers, done] : todo) Write(markers, done);
  }
  bool hold = false;
  std::vector<std::pair<Markers, std::function<void()>>> held;

 private:
  void Write(const Markers& markers, const std::function<void()>& done) {
    for (const TopicPartition& tp : markers.partitions) {
      std::string batch = storage::BuildEndTxnMarkerBatch(
          markers.producer_id, markers.producer_epoch,
          storage::EndTxnMarker{markers.commit ? storage::ControlRecordType::kCommit : storage::ControlRecordType::kAbort,
                                markers.coordinator_epoch},
          1000);
      auto info = replicas_.AppendRecords(tp, batch, storage::AppendOrigin::kCoordinator);
      EXPECT_TRUE(info.ok()) << info.status();
    }
    done();
  }

  ReplicaManager& replicas_;
};

// The coordinator's answers held back until the test releases them (in order), as a
// coordinator on another broker answers later: the one fault injected here, the timing.
class HeldVerifier final : public TxnVerifier {
 public:
  explicit HeldVerifier(const TransactionCoordinator& coordinator) : coordinator_(coordinator) {}
  void Verify(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
              std::set<TopicPartition> partitions, TxnPartitionOperation operation, Callback done) override {
    EXPECT_EQ(operation, TxnPartitionOperation::kVerify);
    absl::MutexLock lock(&mu_);
    held_.push_back([=, this, done = std::move(done)] {
      Unverified out;
      for (const auto& [tp, e] : coordinator_.Verify(transactional_id, producer_id, producer_epoch, partitions)) {
        if (e != ErrorCode::kNone) out[tp] = e;
      }
      done(out);
    });
  }
  size_t held() {
    absl::MutexLock lock(&mu_);
    return held_.size();
  }
  // Answers the oldest question.
  void ReleaseOne() {
    std::function<void()> answer;
    {
      absl::MutexLock lock(&mu_);
      ASSERT_FALSE(held_.empty());
      answer = std::move(held_.front());
      held_.pop_front();
    }
    answer();
  }

 private:
  const TransactionCoordinator& coordinator_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> held_ ABSL_GUARDED_BY(mu_);
};

class TxnVerificationTest : public ::testing::Test {
 protected:
  TxnVerificationTest() {
    services_.Apply({strata::testing::RegisterBrokerRecord(kBroker), strata::testing::TopicRecord("orders", std::string(16, 'o')),
                     strata::testing::PartitionRecord(std::string(16, 'o'), 0, {kBroker}, {kBroker}, kBroker),
                     strata::testing::PartitionRecord(std::string(16, 'o'), 1, {kBroker}, {kBroker}, kBroker)});
    TransactionCoordinatorOptions o{.state_topic_partitions = kStatePartitions, .start_thread = false};
    coordinator_ = std::make_unique<TransactionCoordinator>(
        o, &state_log_, [this]() -> absl::StatusOr<int64_t> { return next_producer_id_++; }, &markers_);
    std::map<int32_t, int32_t> led;
    for (int32_t p = 0; p < kStatePartitions; ++p) led[p] = 1;
    coordinator_->OnLeadership(led, kStatePartitions);
    coordinator_->RunDueTimers();  // loads
  }
  ~TxnVerificationTest() override {
    apis_.reset();
    verifier_.reset();
    held_.reset();
    coordinator_.reset();
  }

  // KafkaApis with verification (transaction.partition.verification.enable) or without;
  // held: through a HeldVerifier. The manager is there either way, as in the broker
  // (protocol version 2's adds go through it).
  void Serve(bool verify, bool held = false) {
    apis_.reset();
    verifier_.reset();
    held_.reset();
    if (held) held_ = std::make_unique<HeldVerifier>(*coordinator_);
    if (!held) {
      AddPartitionsToTxnManagerOptions vo;
      vo.broker_id = kBroker;
      vo.state_topic_partitions = kStatePartitions;
      vo.local = coordinator_.get();
      vo.coordinator_of = [this](int32_t) { return BrokerEndpoint{coordinator_broker_, "127.0.0.1", 1}; };
      verifier_ = std::make_unique<AddPartitionsToTxnManager>(std::move(vo));
    }
    KafkaApisContext context = services_.Context();
    context.transaction_coordinator = coordinator_.get();
    context.txn_verifier = held ? static_cast<TxnVerifier*>(held_.get()) : verifier_.get();
    context.txn_partition_verification = verify;
    apis_ = std::make_unique<KafkaApis>(std::move(context));
  }

  // InitProducerId for kTxnId: (producer id, epoch).
  std::pair<int64_t, int16_t> Init() {
    std::optional<TransactionCoordinator::InitResult> out;
    coordinator_->InitProducerId(kTxnId, 60000, -1, -1, [&](TransactionCoordinator::InitResult r) { out = r; });
    EXPECT_TRUE(out.has_value() && out->error == ErrorCode::kNone);
    return out ? std::make_pair(out->producer_id, out->producer_epoch) : std::make_pair(int64_t{-1}, int16_t{-1});
  }
  ErrorCode AddPartitions(std::pair<int64_t, int16_t> producer, std::set<TopicPartition> partitions) {
    std::optional<ErrorCode> out;
    coordinator_->AddPartitions(kTxnId, producer.first, producer.second, std::move(partitions), 0,
                                [&](ErrorCode e) { out = e; });
    EXPECT_TRUE(out.has_value());
    return out.value_or(ErrorCode::kUnknownServerError);
  }
  ErrorCode EndTxn(std::pair<int64_t, int16_t> producer, bool commit) {
    std::optional<ErrorCode> out;
    coordinator_->EndTxn(kTxnId, producer.first, producer.second, commit, 0,
                         [&](TransactionCoordinator::EndResult r) { out = r.error; });
    EXPECT_TRUE(out.has_value());
    return out.value_or(ErrorCode::kUnknownServerError);
  }

  // A transactional Produce of one batch (records from sequence) to orders-partition.
  kafka::ProduceResponse::Partition Produce(int32_t partition, std::pair<int64_t, int16_t> producer, int32_t sequence,
                                            int records = 2, int16_t version = kVersion) {
    std::promise<kafka::ProduceResponse::Partition> answered;
    ProduceAsync(
        partition, producer, sequence, records,
        [&](kafka::ProduceResponse::Partition p) { answered.set_value(std::move(p)); }, version);
    return answered.get_future().get();
  }
  // The same, answered through done (at once, or when a held verification is released).
  void ProduceAsync(int32_t partition, std::pair<int64_t, int16_t> producer, int32_t sequence, int records,
                    std::function<void(kafka::ProduceResponse::Partition)> done, int16_t version = kVersion) {
    storage::RecordBatchBuilder builder;
    builder.set_producer(producer.first, producer.second, sequence).set_transactional(true);
    for (int i = 0; i < records; ++i) builder.Add("k", "v" + std::to_string(sequence + i), 1000 + i);
    kafka::ProduceRequest request;
    request.transactional_id = kTxnId;
    request.acks = 1;
    request.timeout_ms = 5000;
    request.topic_data.push_back({"orders", {{partition, builder.Build()}}});
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteProduceRequest(request, version, w);
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(kafka::ApiKey::kProduce);
    header.api_version = version;
    header.correlation_id = 7;
    apis_->Handle(header, body, [done, version](absl::StatusOr<std::optional<ApiResponse>> answer) {
      EXPECT_TRUE(answer.ok() && answer->has_value()) << answer.status();
      if (!answer.ok() || !answer->has_value()) return done({});
      kafka::Reader r((*answer)->body);
      auto response = kafka::ReadProduceResponse(r, version);
      EXPECT_TRUE(response.ok()) << response.status();
      done(response.ok() ? response->responses.at(0).partition_responses.at(0) : kafka::ProduceResponse::Partition{});
    });
  }

  storage::Log& LogOf(int32_t partition) { return *services_.logs().GetLog({"orders", partition}); }

  static constexpr int16_t kVersion = 9;
  strata::testing::TempDir tmp_;
  strata::testing::BrokerServices services_{tmp_.Sub("broker")};
  testing::MemoryGroupLog state_log_;  // strata::broker::testing
  LocalMarkerWriter markers_{services_.replicas()};
  int64_t next_producer_id_ = 4000;
  int32_t coordinator_broker_ = kBroker;
  std::unique_ptr<TransactionCoordinator> coordinator_;
  std::unique_ptr<AddPartitionsToTxnManager> verifier_;
  std::unique_ptr<HeldVerifier> held_;
  std::unique_ptr<KafkaApis> apis_;
};

int16_t Code(ErrorCode e) { return static_cast<int16_t>(e); }

TEST_F(TxnVerificationTest, ABatchForAPartitionNotInTheTransactionIsRefusedAndStoresNothing) {
  Serve(true);
  auto producer = Init();
  ASSERT_EQ(AddPartitions(producer, {{"orders", 0}}), ErrorCode::kNone);
  // orders-1 was never added: refused, nothing stored.
  EXPECT_EQ(Produce(1, producer, 0).error_code, Code(ErrorCode::kInvalidTxnState));
  EXPECT_EQ(LogOf(1).log_end_offset(), 0);
  // orders-0 is in the transaction: verified, appended; the next batch joins the open
  // transaction without asking again.
  auto first = Produce(0, producer, 0);
  EXPECT_EQ(first.error_code, 0);
  EXPECT_EQ(first.base_offset, 0);
  EXPECT_EQ(Produce(0, producer, 2).error_code, 0);
  EXPECT_EQ(verifier_->stats().verified, 1);
  EXPECT_EQ(verifier_->stats().unverified, 1);
  EXPECT_EQ(LogOf(0).log_end_offset(), 4);
  ASSERT_EQ(EndTxn(producer, true), ErrorCode::kNone);
  LogOf(0).UpdateHighWatermark(LogOf(0).log_end_offset());
  EXPECT_EQ(LogOf(0).last_stable_offset(), 5) << "committed: the marker at 4 closed it";
}

// The hanging transaction: a producer's batch delayed past its transaction's abort (a
// retry held up in the network) arrives once the marker is written. Unverified it opens
// a transaction no coordinator knows of, and the partition's last stable offset stays
// behind it for good; verified it is refused.
TEST_F(TxnVerificationTest, ABatchDelayedPastItsTransactionsEndCannotLeaveItHanging) {
  for (bool verify : {false, true}) {
    SCOPED_TRACE(verify ? "verified" : "unverified");
    Serve(verify);
    const int32_t partition = verify ? 1 : 0;
    auto producer = Init();
    ASSERT_EQ(AddPartitions(producer, {{"orders", partition}}), ErrorCode::kNone);
    ASSERT_EQ(Produce(partition, producer, 0).error_code, 0);
    ASSERT_EQ(EndTxn(producer, false), ErrorCode::kNone);  // aborted: the marker is written
    storage::Log& log = LogOf(partition);
    const int64_t after_marker = log.log_end_offset();
    ASSERT_EQ(after_marker, 3);

    auto late = Produce(partition, producer, 2);
    log.UpdateHighWatermark(log.log_end_offset());
    if (!verify) {
      EXPECT_EQ(late.error_code, 0) << "without verification the late batch is stored";
      EXPECT_EQ(log.last_stable_offset(), after_marker) << "and hangs: the LSO stays at it";
      continue;
    }
    EXPECT_EQ(late.error_code, Code(ErrorCode::kInvalidTxnState));
    EXPECT_EQ(log.log_end_offset(), after_marker) << "nothing stored";
    EXPECT_EQ(log.last_stable_offset(), after_marker) << "nothing hangs";
    // The producer's next transaction goes on.
    ASSERT_EQ(AddPartitions(producer, {{"orders", partition}}), ErrorCode::kNone);
    EXPECT_EQ(Produce(partition, producer, 2).error_code, 0);
  }
}

// A producer pipelines its batches (max.in.flight.requests.per.connection): the ones
// behind a batch being verified wait for their own answer, even once the first opened the
// transaction, so that they are appended in the producer's order.
TEST_F(TxnVerificationTest, BatchesBehindOneBeingVerifiedAreAppendedInOrder) {
  Serve(true, /*held=*/true);
  auto producer = Init();
  ASSERT_EQ(AddPartitions(producer, {{"orders", 0}}), ErrorCode::kNone);
  std::vector<kafka::ProduceResponse::Partition> answers(3);
  std::atomic<int> answered{0};
  auto keep = [&](int i) {
    return [&, i](kafka::ProduceResponse::Partition p) {
      answers[i] = std::move(p);
      ++answered;
    };
  };
  ProduceAsync(0, producer, 0, 2, keep(0));  // opens the transaction: asks
  ProduceAsync(0, producer, 2, 2, keep(1));  // behind it: asks too
  ASSERT_EQ(held_->held(), 2u);
  held_->ReleaseOne();  // the first is verified and appended: the transaction is open
  ASSERT_EQ(answered.load(), 1);
  EXPECT_EQ(LogOf(0).log_end_offset(), 2);
  ProduceAsync(0, producer, 4, 2, keep(2));  // open, but the second is still being verified
  EXPECT_EQ(held_->held(), 2u) << "the third waits behind the second";
  EXPECT_EQ(answered.load(), 1);
  held_->ReleaseOne();
  held_->ReleaseOne();
  ASSERT_EQ(answered.load(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(answers[i].error_code, 0) << i;
    EXPECT_EQ(answers[i].base_offset, 2 * i) << i;
  }
  // Nothing in flight any more: the next batch joins without asking.
  EXPECT_EQ(Produce(0, producer, 6).error_code, 0);
  EXPECT_EQ(held_->held(), 0u);
}

TEST_F(TxnVerificationTest, AFencedProducerAndAnUnreachableCoordinatorAreAnsweredAsKafkaDoes) {
  Serve(true);
  auto old_producer = Init();
  auto producer = Init();  // a new instance: the old epoch is fenced
  ASSERT_EQ(producer.second, old_producer.second + 1);
  ASSERT_EQ(AddPartitions(producer, {{"orders", 0}}), ErrorCode::kNone);
  // The producer's errors come back as a producer handles them.
  EXPECT_EQ(Produce(0, old_producer, 0).error_code, Code(ErrorCode::kInvalidProducerEpoch));
  // No coordinator now: retriable, nothing stored.
  coordinator_broker_ = -1;
  EXPECT_EQ(Produce(0, producer, 0).error_code, Code(ErrorCode::kNotEnoughReplicas));
  EXPECT_EQ(LogOf(0).log_end_offset(), 0);
  coordinator_broker_ = kBroker;
  EXPECT_EQ(Produce(0, producer, 0).error_code, 0);
}

// KIP-890 part 2: a producer on transaction protocol version 2 sends no
// AddPartitionsToTxn; its Produce v12 has the leader add the partition (whatever
// transaction.partition.verification.enable says), and every EndTxn moves it to a new
// epoch, so a batch of an ended transaction is fenced at the leader.
TEST_F(TxnVerificationTest, Version2ProducesAddTheirPartitionsAndAnEndedTransactionsBatchIsFenced) {
  Serve(/*verify=*/false);
  constexpr int16_t kV2 = kafka::kProduceImplicitAddVersion;
  auto producer = Init();
  EXPECT_EQ(Produce(0, producer, 0, 2, kV2).error_code, 0);
  EXPECT_EQ(Produce(1, producer, 0, 2, kV2).error_code, 0);
  TransactionDescription d = coordinator_->Describe({kTxnId}).at(0);
  EXPECT_EQ(d.state, TransactionState::kOngoing);
  EXPECT_EQ(d.partitions, (std::set<TopicPartition>{{"orders", 0}, {"orders", 1}})) << "added by their leader";
  EXPECT_EQ(Produce(0, producer, 2, 2, kV2).error_code, 0) << "joins the open transaction";
  EXPECT_EQ(verifier_->stats().verified, 2);

  std::optional<TransactionCoordinator::EndResult> end;
  coordinator_->EndTxn(kTxnId, producer.first, producer.second, true, 2,
                       [&](TransactionCoordinator::EndResult r) { end = r; });
  ASSERT_TRUE(end.has_value());
  ASSERT_EQ(end->error, ErrorCode::kNone);
  ASSERT_EQ(end->producer_epoch, producer.second + 1);
  for (int32_t p : {0, 1}) {
    storage::Log& log = LogOf(p);
    log.UpdateHighWatermark(log.log_end_offset());
    EXPECT_EQ(log.last_stable_offset(), log.log_end_offset()) << "committed: orders-" << p;
  }
  // A batch of the ended transaction (a retry held up in the network) is fenced: the
  // markers carry the new epoch.
  const int64_t end_1 = LogOf(1).log_end_offset();
  EXPECT_EQ(Produce(1, producer, 2, 2, kV2).error_code, Code(ErrorCode::kInvalidProducerEpoch));
  EXPECT_EQ(LogOf(1).log_end_offset(), end_1) << "nothing stored, nothing hangs";
  // The next transaction, at the epoch EndTxn named, starts over.
  const std::pair<int64_t, int16_t> next{end->producer_id, end->producer_epoch};
  EXPECT_EQ(Produce(1, next, 0, 2, kV2).error_code, 0);
  EXPECT_EQ(coordinator_->Describe({kTxnId}).at(0).partitions, (std::set<TopicPartition>{{"orders", 1}}));
}

// A version 2 producer's next transaction often reaches a partition before the previous
// transaction's marker does (the coordinator answers EndTxn once its decision is
// written, then sends the markers). The leader's add waits for the previous transaction
// to complete, so the marker, which carries the batch's own epoch, lands before the
// batch; it must not end the batch's guard, or the batch is refused INVALID_TXN_STATE
// and the new transaction is aborted.
TEST_F(TxnVerificationTest, Version2NextTransactionsBatchWaitsForThePreviousMarker) {
  Serve(/*verify=*/true);
  constexpr int16_t kV2 = kafka::kProduceImplicitAddVersion;
  auto producer = Init();
  ASSERT_EQ(Produce(0, producer, 0, 2, kV2).error_code, 0);
  markers_.hold = true;
  std::optional<TransactionCoordinator::EndResult> end;
  coordinator_->EndTxn(kTxnId, producer.first, producer.second, true, 2,
                       [&](TransactionCoordinator::EndResult r) { end = r; });
  ASSERT_TRUE(end.has_value() && end->error == ErrorCode::kNone);
  ASSERT_EQ(markers_.held.size(), 1u);
  const std::pair<int64_t, int16_t> next{end->producer_id, end->producer_epoch};
  std::optional<kafka::ProduceResponse::Partition> answer;
  ProduceAsync(0, next, 0, 2, [&](kafka::ProduceResponse::Partition p) { answer = std::move(p); }, kV2);
  EXPECT_FALSE(answer.has_value()) << "the add waits for the previous transaction";
  markers_.hold = false;
  markers_.ReleaseAll();  // the marker at offset 2, then CompleteCommit: the add goes on
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->error_code, 0);
  EXPECT_EQ(answer->base_offset, 3) << "after the marker";
  TransactionDescription d = coordinator_->Describe({kTxnId}).at(0);
  EXPECT_EQ(d.state, TransactionState::kOngoing);
  EXPECT_EQ(d.producer_epoch, next.second);
  storage::Log& log = LogOf(0);
  log.UpdateHighWatermark(log.log_end_offset());
  EXPECT_EQ(log.last_stable_offset(), 3) << "the new transaction is open from offset 3";
}

}  // namespace
}  // namespace strata::broker
