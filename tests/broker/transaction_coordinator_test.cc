// TransactionCoordinator: Kafka's transaction state machine, driven with a ManualClock
// (no thread: RunDueTimers runs the loads, the completion of Prepare* transactions and
// the timeout sweep) over an in-memory GroupLog standing for __transaction_state, and a
// marker sender that records the markers it is asked to write and holds their done
// callbacks until the test releases them, so that a coordinator can be crashed at each
// step of a commit and a second one made to finish it from what the first wrote.
// Also: the records' layout (Kafka's TransactionLogValue v0, byte for byte), the
// partition an id lands in (Kafka's), and the group coordinator's side of transactions
// (TxnOffsetCommit pending until its marker, UNSTABLE_OFFSET_COMMIT, loading).

#include "broker/transactions/transaction_coordinator.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/group/group_coordinator.h"
#include "broker/transactions/transaction_record.h"
#include "storage/clock.h"
#include "tests/support/memory_group_log.h"

namespace strata::broker {
namespace {

using storage::TopicPartition;
using testing::MemoryGroupLog;

constexpr int32_t kStatePartitions = 4;
constexpr int32_t kTimeout = 60'000;
constexpr int32_t kMaxTimeout = 900'000;
constexpr int64_t kSweepInterval = 10'000;

// Records every Markers it is given; their done callbacks wait for Release.
class FakeMarkerSender final : public TxnMarkerSender {
 public:
  void Send(Markers markers, std::function<void()> done) override {
    sent.push_back(std::move(markers));
    held.push_back(std::move(done));
  }
  // Every partition has the markers sent so far.
  void ReleaseAll() {
    auto todo = std::move(held);
    held.clear();
    for (auto& done : todo) done();
  }
  // The coordinator that sent them is gone: its callbacks must never run.
  void Forget() { held.clear(); }

  std::vector<Markers> sent;
  std::deque<std::function<void()>> held;
};

class TransactionCoordinatorTest : public ::testing::Test {
 protected:
  TransactionCoordinatorTest() { coordinator_ = Make(kEpochA); }
  ~TransactionCoordinatorTest() override {
    // Callbacks held for a coordinator must not outlive it.
    coordinator_.reset();
  }

  static constexpr int32_t kEpochA = 7;
  static constexpr int32_t kEpochB = 8;

  static std::map<int32_t, int32_t> AllLed(int32_t epoch) {
    std::map<int32_t, int32_t> led;
    for (int32_t p = 0; p < kStatePartitions; ++p) led[p] = epoch;
    return led;
  }

  // A coordinator leading every partition of __transaction_state in leader_epoch; load:
  // whether to run the load (RunDueTimers) too.
  std::unique_ptr<TransactionCoordinator> Make(int32_t leader_epoch, bool load = true) {
    TransactionCoordinatorOptions o{.state_topic_partitions = kStatePartitions,
                                    .max_timeout_ms = kMaxTimeout,
                                    .abort_timed_out_interval_ms = kSweepInterval,
                                    .clock = &clock_,
                                    .start_thread = false};
    auto c = std::make_unique<TransactionCoordinator>(
        o, &log_, [this]() -> absl::StatusOr<int64_t> { return next_producer_id_++; }, &markers_);
    c->OnLeadership(AllLed(leader_epoch), kStatePartitions);
    if (load) c->RunDueTimers();
    return c;
  }

  // Destroys the coordinator as a crash would: the callbacks it left with the log and the
  // marker sender are dropped (never answered).
  void Crash() {
    coordinator_.reset();
    markers_.Forget();
    log_.held.clear();
  }

  std::optional<TransactionCoordinator::InitResult> Init(const std::string& id, int32_t timeout_ms = kTimeout,
                                                         int64_t producer_id = -1, int16_t producer_epoch = -1) {
    auto out = std::make_shared<std::optional<TransactionCoordinator::InitResult>>();
    coordinator_->InitProducerId(id, timeout_ms, producer_id, producer_epoch,
                                 [out](TransactionCoordinator::InitResult r) { *out = r; });
    return *out;
  }
  std::optional<ErrorCode> Add(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                               std::set<TopicPartition> partitions, bool verify_only = false, int16_t client_tv = 0) {
    if (verify_only) {  // one error for all, as the verify-only form was answered before Verify
      for (const auto& [tp, e] : coordinator_->Verify(id, producer_id, producer_epoch, partitions)) {
        if (e != ErrorCode::kNone) return e;
      }
      return ErrorCode::kNone;
    }
    auto out = std::make_shared<std::optional<ErrorCode>>();
    coordinator_->AddPartitions(id, producer_id, producer_epoch, std::move(partitions), client_tv,
                                [out](ErrorCode e) { *out = e; });
    return *out;
  }
  // A partition leader's add for a transaction protocol version 2 producer.
  std::optional<ErrorCode> AddV2(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                 std::set<TopicPartition> partitions) {
    return Add(id, producer_id, producer_epoch, std::move(partitions), false, 2);
  }
  std::optional<ErrorCode> End(const std::string& id, int64_t producer_id, int16_t producer_epoch, bool commit) {
    auto out = std::make_shared<std::optional<ErrorCode>>();
    coordinator_->EndTxn(id, producer_id, producer_epoch, commit, 0,
                         [out](TransactionCoordinator::EndResult r) { *out = r.error; });
    return *out;
  }
  // EndTxn v5 (transaction protocol version 2).
  std::optional<TransactionCoordinator::EndResult> EndV2(const std::string& id, int64_t producer_id,
                                                         int16_t producer_epoch, bool commit) {
    auto out = std::make_shared<std::optional<TransactionCoordinator::EndResult>>();
    coordinator_->EndTxn(id, producer_id, producer_epoch, commit, 2,
                         [out](TransactionCoordinator::EndResult r) { *out = r; });
    return *out;
  }
  TransactionDescription Describe(const std::string& id) { return coordinator_->Describe({id}).at(0); }

  // The values written for id to its partition of __transaction_state, in order (a
  // tombstone as nullopt).
  std::vector<TransactionLogValue> Written(const std::string& id) {
    std::vector<TransactionLogValue> out;
    for (const GroupLogRecord& r : log_.partitions[TransactionStatePartitionFor(id, kStatePartitions)]) {
      absl::StatusOr<std::string> key = DecodeTransactionLogKey(r.key);
      EXPECT_TRUE(key.ok()) << key.status();
      if (!key.ok() || *key != id) continue;
      EXPECT_TRUE(r.value.has_value());
      if (!r.value) continue;
      absl::StatusOr<TransactionLogValue> v = DecodeTransactionLogValue(*r.value);
      EXPECT_TRUE(v.ok()) << v.status();
      if (v.ok()) out.push_back(*v);
    }
    return out;
  }
  TransactionLogValue LastWritten(const std::string& id) {
    std::vector<TransactionLogValue> all = Written(id);
    EXPECT_FALSE(all.empty());
    return all.empty() ? TransactionLogValue{} : all.back();
  }

  // An id initialized (producer id, epoch 0) with an Ongoing transaction over partitions.
  std::pair<int64_t, int16_t> Ongoing(const std::string& id, std::set<TopicPartition> partitions,
                                      int32_t timeout_ms = kTimeout) {
    auto init = Init(id, timeout_ms);
    EXPECT_TRUE(init.has_value());
    EXPECT_EQ(init->error, ErrorCode::kNone);
    EXPECT_EQ(Add(id, init->producer_id, init->producer_epoch, std::move(partitions)), ErrorCode::kNone);
    EXPECT_EQ(Describe(id).state, TransactionState::kOngoing);
    return {init->producer_id, init->producer_epoch};
  }

  storage::ManualClock clock_;
  MemoryGroupLog log_;
  FakeMarkerSender markers_;
  int64_t next_producer_id_ = 1000;
  std::unique_ptr<TransactionCoordinator> coordinator_;
};

const std::set<TopicPartition> kOrders = {{"orders", 0}, {"orders", 1}};

// --- 1. InitProducerId -------------------------------------------------------------

// A write or markers that complete after the coordinator is gone (a broker shutting down
// with appends in flight) do nothing: no answer, no touch of the destroyed coordinator
// (ASan would see one).
TEST_F(TransactionCoordinatorTest, CallbacksAfterTheCoordinatorIsGoneDoNothing) {
  log_.hold = true;
  bool answered = false;
  coordinator_->InitProducerId("late", kTimeout, -1, -1, [&](TransactionCoordinator::InitResult) { answered = true; });
  ASSERT_FALSE(answered);
  coordinator_.reset();
  log_.ReleaseHeld();
  EXPECT_FALSE(answered);

  // The same for markers released after the coordinator that sent them went.
  log_.hold = false;
  log_.held.clear();
  coordinator_ = Make(kEpochB);
  auto init = Init("gone");
  ASSERT_TRUE(init && init->error == ErrorCode::kNone);
  ASSERT_EQ(Add("gone", init->producer_id, init->producer_epoch, {{"orders", 0}}), ErrorCode::kNone);
  ASSERT_EQ(End("gone", init->producer_id, init->producer_epoch, true), ErrorCode::kNone);
  ASSERT_EQ(markers_.held.size(), 1u);
  const size_t appends = log_.appends;
  coordinator_.reset();
  markers_.ReleaseAll();
  EXPECT_EQ(log_.appends, appends) << "no CompleteCommit written by a coordinator that is gone";
}

TEST_F(TransactionCoordinatorTest, InitProducerIdGivesANewIdEpochZeroAndWritesEmpty) {
  const int64_t t0 = clock_.NowMs();
  auto r = Init("txn-a");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, ErrorCode::kNone);
  EXPECT_EQ(r->producer_id, 1000);
  EXPECT_EQ(r->producer_epoch, 0);
  std::vector<TransactionLogValue> written = Written("txn-a");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0], (TransactionLogValue{1000, 0, kTimeout, TransactionState::kEmpty, {}, t0, -1}));
  TransactionDescription d = Describe("txn-a");
  EXPECT_EQ(d.error, ErrorCode::kNone);
  EXPECT_EQ(d.state, TransactionState::kEmpty);
  EXPECT_EQ(d.producer_id, 1000);
  EXPECT_EQ(d.producer_epoch, 0);
  EXPECT_EQ(d.timeout_ms, kTimeout);
  EXPECT_EQ(d.start_ms, -1);

  // Another id gets the next producer id.
  auto other = Init("txn-b");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->producer_id, 1001);
  EXPECT_EQ(other->producer_epoch, 0);
}

TEST_F(TransactionCoordinatorTest, InitProducerIdAgainBumpsTheEpochAndKeepsTheId) {
  ASSERT_EQ(Init("txn-a")->producer_epoch, 0);
  clock_.Advance(5);
  auto again = Init("txn-a", 30'000);  // a new producer instance (no id of its own)
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->error, ErrorCode::kNone);
  EXPECT_EQ(again->producer_id, 1000);
  EXPECT_EQ(again->producer_epoch, 1);
  EXPECT_EQ(next_producer_id_, 1001);  // no new producer id was taken
  TransactionLogValue v = LastWritten("txn-a");
  EXPECT_EQ(v.producer_epoch, 1);
  EXPECT_EQ(v.timeout_ms, 30'000);  // the new producer's timeout
  EXPECT_EQ(v.state, TransactionState::kEmpty);
  EXPECT_EQ(v.last_update_ms, clock_.NowMs());
}

TEST_F(TransactionCoordinatorTest, Kip360RetryOfTheLastEpochBumpIsAnsweredWithoutAnotherBump) {
  ASSERT_EQ(Init("txn-a")->producer_epoch, 0);
  // The producer with (1000, 0) asks for a bump: epoch 1.
  auto bumped = Init("txn-a", kTimeout, 1000, 0);
  ASSERT_TRUE(bumped.has_value());
  EXPECT_EQ(bumped->error, ErrorCode::kNone);
  EXPECT_EQ(bumped->producer_id, 1000);
  EXPECT_EQ(bumped->producer_epoch, 1);
  const int appends = log_.appends;
  // Its answer was lost: the same request again is the same answer, nothing written.
  auto retried = Init("txn-a", kTimeout, 1000, 0);
  ASSERT_TRUE(retried.has_value());
  EXPECT_EQ(retried->error, ErrorCode::kNone);
  EXPECT_EQ(retried->producer_id, 1000);
  EXPECT_EQ(retried->producer_epoch, 1);
  EXPECT_EQ(log_.appends, appends);
  // With the current epoch it bumps again.
  auto next = Init("txn-a", kTimeout, 1000, 1);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->error, ErrorCode::kNone);
  EXPECT_EQ(next->producer_epoch, 2);
  EXPECT_EQ(LastWritten("txn-a").producer_epoch, 2);
}

TEST_F(TransactionCoordinatorTest, InitProducerIdWithAnotherProducersIdOrEpochIsFenced) {
  ASSERT_EQ(Init("txn-a")->producer_epoch, 0);
  ASSERT_EQ(Init("txn-a")->producer_epoch, 1);
  const int appends = log_.appends;
  EXPECT_EQ(Init("txn-a", kTimeout, 999, 1)->error, ErrorCode::kProducerFenced);   // another id
  EXPECT_EQ(Init("txn-a", kTimeout, 1000, 5)->error, ErrorCode::kProducerFenced);  // an epoch never given
  // Epoch 0 is not the last epoch of a KIP-360 bump here (the bump to 1 came from a
  // producer without an id), so its producer is fenced.
  auto stale = Init("txn-a", kTimeout, 1000, 0);
  EXPECT_EQ(stale->error, ErrorCode::kProducerFenced);
  EXPECT_EQ(stale->producer_id, -1);
  EXPECT_EQ(log_.appends, appends);
  EXPECT_EQ(Describe("txn-a").producer_epoch, 1);
}

TEST_F(TransactionCoordinatorTest, AFencedInstanceCannotRetryItsWayToTheNewEpoch) {
  // The first instance bumps its own epoch (KIP-360): 0 -> 1.
  ASSERT_EQ(Init("txn-a")->producer_epoch, 0);
  ASSERT_EQ(Init("txn-a", kTimeout, 1000, 0)->producer_epoch, 1);
  // A second instance starts: epoch 2, the first is fenced.
  ASSERT_EQ(Init("txn-a")->producer_epoch, 2);
  // Whatever epoch the first instance retries with, it is not given 2.
  EXPECT_EQ(Init("txn-a", kTimeout, 1000, 0)->error, ErrorCode::kProducerFenced);
  EXPECT_EQ(Init("txn-a", kTimeout, 1000, 1)->error, ErrorCode::kProducerFenced);
  EXPECT_EQ(Add("txn-a", 1000, 1, kOrders), ErrorCode::kProducerFenced);
  // The second instance's own bump and its retry still work.
  EXPECT_EQ(Init("txn-a", kTimeout, 1000, 2)->producer_epoch, 3);
  auto retried = Init("txn-a", kTimeout, 1000, 2);
  EXPECT_EQ(retried->error, ErrorCode::kNone);
  EXPECT_EQ(retried->producer_epoch, 3);
}

TEST_F(TransactionCoordinatorTest, AnExhaustedEpochMovesToANewProducerId) {
  const int32_t p = TransactionStatePartitionFor("txn-a", kStatePartitions);
  GroupLogRecord r;
  r.key = EncodeTransactionLogKey("txn-a");
  r.value = EncodeTransactionLogValue(
      TransactionLogValue{5, INT16_MAX - 1, kTimeout, TransactionState::kCompleteCommit, {}, clock_.NowMs(), -1});
  log_.partitions[p].push_back(r);
  coordinator_.reset();
  coordinator_ = Make(kEpochB);
  ASSERT_EQ(Describe("txn-a").producer_epoch, INT16_MAX - 1);
  // The producer at the last epoch asks for a bump: a new producer id, epoch 0.
  auto rotated = Init("txn-a", kTimeout, 5, INT16_MAX - 1);
  ASSERT_TRUE(rotated.has_value());
  EXPECT_EQ(rotated->error, ErrorCode::kNone);
  EXPECT_EQ(rotated->producer_id, 1000);
  EXPECT_EQ(rotated->producer_epoch, 0);
  // The id replaced is written as PreviousProducerId (a v1 value, as Kafka writes it).
  EXPECT_EQ(LastWritten("txn-a"),
            (TransactionLogValue{1000, 0, kTimeout, TransactionState::kEmpty, {}, clock_.NowMs(), -1, /*prev=*/5}));
  // Its retry gets the same answer.
  auto retried = Init("txn-a", kTimeout, 5, INT16_MAX - 1);
  EXPECT_EQ(retried->error, ErrorCode::kNone);
  EXPECT_EQ(retried->producer_id, 1000);
  EXPECT_EQ(retried->producer_epoch, 0);
  EXPECT_EQ(next_producer_id_, 1001);
}

TEST_F(TransactionCoordinatorTest, TimeoutsOutsideTheBoundsAreInvalid) {
  EXPECT_EQ(Init("txn-a", 0)->error, ErrorCode::kInvalidTransactionTimeout);
  EXPECT_EQ(Init("txn-a", -1)->error, ErrorCode::kInvalidTransactionTimeout);
  EXPECT_EQ(Init("txn-a", kMaxTimeout + 1)->error, ErrorCode::kInvalidTransactionTimeout);
  EXPECT_EQ(log_.appends, 0);
  EXPECT_EQ(next_producer_id_, 1000);
  EXPECT_EQ(Init("txn-a", kMaxTimeout)->error, ErrorCode::kNone);
}

TEST_F(TransactionCoordinatorTest, AnIdOfAPartitionNotLedOrNotLoadedIsRefused) {
  coordinator_.reset();
  coordinator_ = Make(kEpochA, /*load=*/false);
  const int32_t p = TransactionStatePartitionFor("txn-a", kStatePartitions);
  EXPECT_FALSE(coordinator_->IsLoaded(p));
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(Add("txn-a", 1000, 0, kOrders), ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(End("txn-a", 1000, 0, true), ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(Describe("txn-a").error, ErrorCode::kCoordinatorLoadInProgress);
  coordinator_->RunDueTimers();
  EXPECT_TRUE(coordinator_->IsLoaded(p));
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kNone);

  // Every partition but the id's.
  std::map<int32_t, int32_t> led = AllLed(kEpochA);
  led.erase(p);
  coordinator_->OnLeadership(led, kStatePartitions);
  coordinator_->RunDueTimers();
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kNotCoordinator);
  EXPECT_EQ(Add("txn-a", 1000, 0, kOrders), ErrorCode::kNotCoordinator);
  EXPECT_EQ(End("txn-a", 1000, 0, true), ErrorCode::kNotCoordinator);
  EXPECT_EQ(Describe("txn-a").error, ErrorCode::kNotCoordinator);
}

TEST_F(TransactionCoordinatorTest, AFailedFirstWriteLeavesNoId) {
  log_.fail_with = ErrorCode::kNotLeaderOrFollower;
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kNotCoordinator);
  log_.fail_with = ErrorCode::kRequestTimedOut;
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kCoordinatorNotAvailable);
  EXPECT_EQ(Describe("txn-a").error, ErrorCode::kTransactionalIdNotFound);
  log_.fail_with = ErrorCode::kNone;
  auto r = Init("txn-a");
  EXPECT_EQ(r->error, ErrorCode::kNone);
  EXPECT_EQ(r->producer_epoch, 0);
}

TEST_F(TransactionCoordinatorTest, RequestsWhileAWriteIsInFlightAreConcurrent) {
  log_.hold = true;
  EXPECT_FALSE(Init("txn-a").has_value());  // the Empty record is not committed yet
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kConcurrentTransactions);
  log_.ReleaseHeld();
  log_.hold = false;
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kEmpty);
  EXPECT_EQ(Init("txn-a")->producer_epoch, 1);
}

// --- 2. AddPartitionsToTxn ------------------------------------------------------------

TEST_F(TransactionCoordinatorTest, AddPartitionsChecksTheProducer) {
  EXPECT_EQ(Add("txn-unknown", 1000, 0, kOrders), ErrorCode::kInvalidProducerIdMapping);
  auto init = Init("txn-a");
  EXPECT_EQ(Add("txn-a", 999, 0, kOrders), ErrorCode::kInvalidProducerIdMapping);
  EXPECT_EQ(Add("txn-a", init->producer_id, 1, kOrders), ErrorCode::kProducerFenced);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kEmpty);
  EXPECT_EQ(Written("txn-a").size(), 1u);
}

TEST_F(TransactionCoordinatorTest, AddPartitionsStartsTheTransactionAndAddsOnlyWhatIsNew) {
  auto init = Init("txn-a");
  clock_.Advance(100);
  const int64_t start = clock_.NowMs();
  EXPECT_EQ(Add("txn-a", 1000, 0, kOrders), ErrorCode::kNone);
  TransactionDescription d = Describe("txn-a");
  EXPECT_EQ(d.state, TransactionState::kOngoing);
  EXPECT_EQ(d.start_ms, start);
  EXPECT_EQ(d.partitions, kOrders);
  EXPECT_EQ(LastWritten("txn-a"),
            (TransactionLogValue{1000, 0, kTimeout, TransactionState::kOngoing, kOrders, start, start}));

  // The same partitions again: nothing to write.
  clock_.Advance(10);
  const int appends = log_.appends;
  EXPECT_EQ(Add("txn-a", 1000, 0, {{"orders", 1}}), ErrorCode::kNone);
  EXPECT_EQ(log_.appends, appends);

  // A new one: written with the others, the start unchanged.
  EXPECT_EQ(Add("txn-a", 1000, 0, {{"payments", 3}, {"orders", 0}}), ErrorCode::kNone);
  EXPECT_EQ(log_.appends, appends + 1);
  std::set<TopicPartition> all = kOrders;
  all.insert({"payments", 3});
  EXPECT_EQ(LastWritten("txn-a"),
            (TransactionLogValue{1000, 0, kTimeout, TransactionState::kOngoing, all, clock_.NowMs(), start}));
  EXPECT_EQ(Describe("txn-a").partitions, all);
  EXPECT_EQ(Describe("txn-a").start_ms, start);
  (void)init;
}

TEST_F(TransactionCoordinatorTest, VerifyOnlyAnswersWhetherThePartitionsAreInTheTransactionAndWritesNothing) {
  auto init = Init("txn-a");
  int appends = log_.appends;
  // Empty: no transaction yet.
  EXPECT_EQ(Add("txn-a", 1000, 0, {{"orders", 0}}, true), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(log_.appends, appends);
  ASSERT_EQ(Add("txn-a", 1000, 0, kOrders), ErrorCode::kNone);
  appends = log_.appends;
  EXPECT_EQ(Add("txn-a", 1000, 0, {{"orders", 0}}, true), ErrorCode::kNone);
  EXPECT_EQ(Add("txn-a", 1000, 0, kOrders, true), ErrorCode::kNone);
  EXPECT_EQ(Add("txn-a", 1000, 0, {{"orders", 0}, {"orders", 2}}, true), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(Add("txn-a", 1000, 0, {{"other", 0}}, true), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(Add("txn-a", 1000, 1, {{"orders", 0}}, true), ErrorCode::kProducerFenced);
  EXPECT_EQ(Add("txn-b", 1000, 0, {{"orders", 0}}, true), ErrorCode::kInvalidProducerIdMapping);
  EXPECT_EQ(log_.appends, appends);
  EXPECT_EQ(Describe("txn-a").partitions, kOrders);
  (void)init;
}

// --- 3. EndTxn ----------------------------------------------------------------------

TEST_F(TransactionCoordinatorTest, ACommitIsAnsweredOnceDecidedAndCompletedOnceTheMarkersAreWritten) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  const int64_t start = Describe("txn-a").start_ms;
  clock_.Advance(50);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);  // before any marker is written
  EXPECT_EQ(LastWritten("txn-a"),
            (TransactionLogValue{pid, epoch, kTimeout, TransactionState::kPrepareCommit, kOrders, clock_.NowMs(), start}));
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kPrepareCommit);
  ASSERT_EQ(markers_.sent.size(), 1u);
  const TxnMarkerSender::Markers& m = markers_.sent[0];
  EXPECT_EQ(m.transactional_id, "txn-a");
  EXPECT_TRUE(m.commit);
  EXPECT_EQ(m.producer_id, pid);
  EXPECT_EQ(m.producer_epoch, epoch);
  EXPECT_EQ(m.coordinator_epoch, kEpochA);
  EXPECT_EQ(m.partitions, kOrders);

  // While the markers are written, the id is busy.
  EXPECT_EQ(Add("txn-a", pid, epoch, {{"orders", 5}}), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(End("txn-a", pid, epoch, false), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(coordinator_->stats().ongoing, 1);
  // The sweep does not send them twice.
  clock_.Advance(kSweepInterval);
  coordinator_->RunDueTimers();
  EXPECT_EQ(markers_.sent.size(), 1u);

  markers_.ReleaseAll();
  TransactionLogValue done = LastWritten("txn-a");
  EXPECT_EQ(done.state, TransactionState::kCompleteCommit);
  EXPECT_TRUE(done.partitions.empty());
  EXPECT_EQ(done.producer_epoch, epoch);
  EXPECT_EQ(done.last_update_ms, clock_.NowMs());
  TransactionDescription d = Describe("txn-a");
  EXPECT_EQ(d.state, TransactionState::kCompleteCommit);
  EXPECT_TRUE(d.partitions.empty());
  EXPECT_EQ(d.start_ms, -1);
  EXPECT_EQ(coordinator_->stats().commits, 1);
  EXPECT_EQ(coordinator_->stats().ongoing, 0);

  // A retried EndTxn is answered from the outcome.
  const int appends = log_.appends;
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  EXPECT_EQ(End("txn-a", pid, epoch, false), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(log_.appends, appends);
  EXPECT_EQ(markers_.sent.size(), 1u);

  // The next transaction of the same producer starts afresh.
  clock_.Advance(20);
  EXPECT_EQ(Add("txn-a", pid, epoch, {{"payments", 0}}), ErrorCode::kNone);
  d = Describe("txn-a");
  EXPECT_EQ(d.state, TransactionState::kOngoing);
  EXPECT_EQ(d.partitions, (std::set<TopicPartition>{{"payments", 0}}));
  EXPECT_EQ(d.start_ms, clock_.NowMs());
}

TEST_F(TransactionCoordinatorTest, AnAbortSendsAbortMarkersAndIsRetriable) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  EXPECT_EQ(End("txn-a", pid, epoch, false), ErrorCode::kNone);
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kPrepareAbort);
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_FALSE(markers_.sent[0].commit);
  EXPECT_EQ(markers_.sent[0].producer_epoch, epoch);  // the producer's own abort: no bump
  markers_.ReleaseAll();
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kCompleteAbort);
  EXPECT_EQ(End("txn-a", pid, epoch, false), ErrorCode::kNone);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(coordinator_->stats().aborts, 1);
}

TEST_F(TransactionCoordinatorTest, EndTxnWithoutATransactionIsInvalid) {
  auto init = Init("txn-a");
  EXPECT_EQ(End("txn-a", init->producer_id, init->producer_epoch, true), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(End("txn-a", init->producer_id, init->producer_epoch, false), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(End("txn-a", init->producer_id, 3, true), ErrorCode::kProducerFenced);
  EXPECT_EQ(End("txn-b", 1000, 0, true), ErrorCode::kInvalidProducerIdMapping);
  EXPECT_TRUE(markers_.sent.empty());
  EXPECT_EQ(Written("txn-a").size(), 1u);
}

TEST_F(TransactionCoordinatorTest, AFailedCompletionWriteIsRetriedByTheNextSweep) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  ASSERT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  log_.fail_with = ErrorCode::kRequestTimedOut;
  markers_.ReleaseAll();
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kPrepareCommit);
  log_.fail_with = ErrorCode::kNone;
  coordinator_->RunDueTimers();
  ASSERT_EQ(markers_.sent.size(), 2u);  // sent again (markers are idempotent)
  EXPECT_TRUE(markers_.sent[1].commit);
  markers_.ReleaseAll();
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteCommit);
  EXPECT_EQ(coordinator_->stats().commits, 1);
}

// --- 4. A coordinator crashing at each step of a commit ------------------------------

TEST_F(TransactionCoordinatorTest, CrashWhileOngoingTheNextCoordinatorAbortsItAtItsTimeout) {
  const int64_t t0 = clock_.NowMs();
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  Crash();
  clock_.Advance(1000);
  coordinator_ = Make(kEpochB);
  TransactionDescription d = Describe("txn-a");
  EXPECT_EQ(d.state, TransactionState::kOngoing);
  EXPECT_EQ(d.producer_id, pid);
  EXPECT_EQ(d.producer_epoch, epoch);
  EXPECT_EQ(d.start_ms, t0);
  EXPECT_EQ(d.partitions, kOrders);
  EXPECT_TRUE(markers_.sent.empty());

  // Not yet past its timeout.
  clock_.Advance(kSweepInterval);
  coordinator_->RunDueTimers();
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kOngoing);
  // Past it, at the next sweep.
  clock_.Advance(kTimeout);
  coordinator_->RunDueTimers();
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_FALSE(markers_.sent[0].commit);
  EXPECT_EQ(markers_.sent[0].producer_id, pid);
  EXPECT_EQ(markers_.sent[0].producer_epoch, epoch + 1);
  EXPECT_EQ(markers_.sent[0].coordinator_epoch, kEpochB);
  EXPECT_EQ(markers_.sent[0].partitions, kOrders);
  TransactionLogValue prepare = LastWritten("txn-a");
  EXPECT_EQ(prepare.state, TransactionState::kPrepareAbort);
  EXPECT_EQ(prepare.producer_epoch, epoch + 1);
  markers_.ReleaseAll();
  TransactionLogValue complete = LastWritten("txn-a");
  EXPECT_EQ(complete.state, TransactionState::kCompleteAbort);
  EXPECT_EQ(complete.producer_epoch, epoch + 1);
  EXPECT_TRUE(complete.partitions.empty());
  EXPECT_EQ(coordinator_->stats().timed_out, 1);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kProducerFenced);
}

TEST_F(TransactionCoordinatorTest, CrashAfterPrepareCommitTheNextCoordinatorSendsTheMarkersAgain) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  ASSERT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_EQ(markers_.sent[0].coordinator_epoch, kEpochA);
  Crash();  // before the markers were all written

  coordinator_ = Make(kEpochB, /*load=*/false);
  coordinator_->RunDueTimers();  // loads, then completes what was decided
  ASSERT_EQ(markers_.sent.size(), 2u);
  const TxnMarkerSender::Markers& m = markers_.sent[1];
  EXPECT_TRUE(m.commit);
  EXPECT_EQ(m.producer_id, pid);
  EXPECT_EQ(m.producer_epoch, epoch);
  EXPECT_EQ(m.coordinator_epoch, kEpochB);
  EXPECT_EQ(m.partitions, kOrders);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kPrepareCommit);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kConcurrentTransactions);
  markers_.ReleaseAll();
  TransactionLogValue v = LastWritten("txn-a");
  EXPECT_EQ(v.state, TransactionState::kCompleteCommit);
  EXPECT_TRUE(v.partitions.empty());
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteCommit);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  EXPECT_EQ(coordinator_->stats().commits, 1);
}

TEST_F(TransactionCoordinatorTest, CrashAfterTheMarkersWhenTheCompletionWasNotWrittenTheNextCoordinatorCompletes) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  ASSERT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  // The markers are written; the completion's write fails (the leadership is moving).
  log_.fail_with = ErrorCode::kNotLeaderOrFollower;
  markers_.ReleaseAll();
  log_.fail_with = ErrorCode::kNone;
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kPrepareCommit);
  Crash();

  coordinator_ = Make(kEpochB);
  ASSERT_EQ(markers_.sent.size(), 2u);
  EXPECT_TRUE(markers_.sent[1].commit);
  EXPECT_EQ(markers_.sent[1].coordinator_epoch, kEpochB);
  EXPECT_EQ(markers_.sent[1].partitions, kOrders);
  markers_.ReleaseAll();
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kCompleteCommit);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteCommit);
}

TEST_F(TransactionCoordinatorTest, CrashWhileTheCompletionIsReplicated) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  ASSERT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  // The CompleteCommit record is appended but not yet acknowledged when A dies.
  log_.hold = true;
  markers_.ReleaseAll();
  log_.hold = false;
  ASSERT_EQ(log_.held.size(), 1u);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kPrepareCommit);  // A applies only acknowledged writes
  const int32_t p = TransactionStatePartitionFor("txn-a", kStatePartitions);
  const GroupLogRecord unacknowledged = log_.partitions[p].back();
  Crash();

  // (1) It was committed (it reached the new leader): B loads CompleteCommit and has
  // nothing to send.
  coordinator_ = Make(kEpochB);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteCommit);
  EXPECT_EQ(markers_.sent.size(), 1u);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  Crash();

  // (2) It was not (the new leader truncated it): C loads PrepareCommit and completes it.
  ASSERT_EQ(log_.partitions[p].back().key, unacknowledged.key);
  log_.partitions[p].pop_back();
  ASSERT_EQ(LastWritten("txn-a").state, TransactionState::kPrepareCommit);
  coordinator_ = Make(kEpochB + 1);
  ASSERT_EQ(markers_.sent.size(), 2u);
  EXPECT_TRUE(markers_.sent[1].commit);
  EXPECT_EQ(markers_.sent[1].coordinator_epoch, kEpochB + 1);
  markers_.ReleaseAll();
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kCompleteCommit);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteCommit);
}

TEST_F(TransactionCoordinatorTest, ADeposedCoordinatorsMarkersDoNotCompleteAndTheNextLeaderFinishes) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  ASSERT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kNone);
  const int appends = log_.appends;
  coordinator_->OnLeadership({}, kStatePartitions);
  markers_.ReleaseAll();  // the old markers finish after the leadership moved
  EXPECT_EQ(log_.appends, appends);  // no CompleteCommit from the deposed coordinator
  // Led again in a new epoch: loaded and completed with the new coordinator epoch.
  coordinator_->OnLeadership(AllLed(kEpochB), kStatePartitions);
  coordinator_->RunDueTimers();
  ASSERT_EQ(markers_.sent.size(), 2u);
  EXPECT_EQ(markers_.sent[1].coordinator_epoch, kEpochB);
  markers_.ReleaseAll();
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteCommit);
}

// --- 5. InitProducerId while a transaction is open ------------------------------------

TEST_F(TransactionCoordinatorTest, InitProducerIdWhileOngoingAbortsTheTransactionWithABumpedEpoch) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders);
  auto first = Init("txn-a");  // a new instance of the producer
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->error, ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(first->producer_id, -1);
  TransactionLogValue prepare = LastWritten("txn-a");
  EXPECT_EQ(prepare.state, TransactionState::kPrepareAbort);
  EXPECT_EQ(prepare.producer_epoch, epoch + 1);
  EXPECT_EQ(prepare.partitions, kOrders);
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_FALSE(markers_.sent[0].commit);
  EXPECT_EQ(markers_.sent[0].producer_id, pid);
  EXPECT_EQ(markers_.sent[0].producer_epoch, epoch + 1);
  EXPECT_EQ(markers_.sent[0].partitions, kOrders);

  // The old producer is fenced; the new one waits for the abort.
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kProducerFenced);
  EXPECT_EQ(Add("txn-a", pid, epoch, {{"orders", 9}}), ErrorCode::kProducerFenced);
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kConcurrentTransactions);
  markers_.ReleaseAll();
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kCompleteAbort);

  auto retried = Init("txn-a");
  ASSERT_TRUE(retried.has_value());
  EXPECT_EQ(retried->error, ErrorCode::kNone);
  EXPECT_EQ(retried->producer_id, pid);
  EXPECT_EQ(retried->producer_epoch, epoch + 2);
  TransactionLogValue v = LastWritten("txn-a");
  EXPECT_EQ(v.state, TransactionState::kEmpty);
  EXPECT_EQ(v.producer_epoch, epoch + 2);
  EXPECT_TRUE(v.partitions.empty());
  EXPECT_EQ(coordinator_->stats().aborts, 1);
  EXPECT_EQ(coordinator_->stats().timed_out, 0);
}

// --- 6. The timeout sweep ------------------------------------------------------------

TEST_F(TransactionCoordinatorTest, ATransactionPastItsTimeoutIsAbortedAtTheNextSweep) {
  auto [pid, epoch] = Ongoing("txn-a", kOrders, 1000);
  auto [pid_b, epoch_b] = Ongoing("txn-b", {{"orders", 3}}, kTimeout);
  clock_.Advance(1001);
  coordinator_->RunDueTimers();  // past its timeout, but the sweep runs every 10 s
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kOngoing);
  clock_.Advance(kSweepInterval - 1001);
  coordinator_->RunDueTimers();
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kPrepareAbort);
  EXPECT_EQ(Describe("txn-a").producer_epoch, epoch + 1);
  EXPECT_EQ(Describe("txn-b").state, TransactionState::kOngoing);  // within its own
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_EQ(markers_.sent[0].transactional_id, "txn-a");
  EXPECT_FALSE(markers_.sent[0].commit);
  EXPECT_EQ(markers_.sent[0].producer_epoch, epoch + 1);
  EXPECT_EQ(markers_.sent[0].coordinator_epoch, kEpochA);
  EXPECT_EQ(coordinator_->stats().timed_out, 1);
  // The producer finding out: fenced, whatever it asks.
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kProducerFenced);
  markers_.ReleaseAll();
  TransactionLogValue v = LastWritten("txn-a");
  EXPECT_EQ(v.state, TransactionState::kCompleteAbort);
  EXPECT_EQ(v.producer_epoch, epoch + 1);
  EXPECT_EQ(End("txn-a", pid, epoch, true), ErrorCode::kProducerFenced);
  EXPECT_EQ(End("txn-a", pid, epoch, false), ErrorCode::kProducerFenced);
  EXPECT_EQ(Add("txn-a", pid, epoch, kOrders), ErrorCode::kProducerFenced);
  EXPECT_EQ(coordinator_->stats().timed_out, 1);
  EXPECT_EQ(coordinator_->stats().aborts, 1);
  (void)pid_b;
  (void)epoch_b;
}

// A fence forgets the epoch of the last KIP-360 bump: the producer that had it is fenced,
// not answered with the epoch that fenced it.
TEST_F(TransactionCoordinatorTest, AFenceForgetsTheLastBumpsEpoch) {
  ASSERT_EQ(Init("txn-a")->producer_epoch, 0);
  ASSERT_EQ(Init("txn-a", kTimeout, 1000, 0)->producer_epoch, 1);  // last epoch 0 kept for a retry
  ASSERT_EQ(Add("txn-a", 1000, 1, kOrders), ErrorCode::kNone);
  clock_.Advance(kTimeout + kSweepInterval);
  coordinator_->RunDueTimers();  // aborted under epoch 2
  markers_.ReleaseAll();
  ASSERT_EQ(Describe("txn-a").state, TransactionState::kCompleteAbort);
  ASSERT_EQ(Describe("txn-a").producer_epoch, 2);
  const int appends = log_.appends;
  auto zombie = Init("txn-a", kTimeout, 1000, 0);
  ASSERT_TRUE(zombie.has_value());
  EXPECT_EQ(zombie->error, ErrorCode::kProducerFenced);
  EXPECT_EQ(zombie->producer_epoch, -1);
  EXPECT_EQ(Init("txn-a", kTimeout, 1000, 1)->error, ErrorCode::kProducerFenced);  // the fenced one, as Kafka
  EXPECT_EQ(log_.appends, appends);
  // A new instance goes on from the fence.
  EXPECT_EQ(Init("txn-a")->producer_epoch, 3);
}

// transactional.id.expiration.ms: an id idle (Empty, CompleteCommit, CompleteAbort) past
// it is tombstoned and forgotten, and starts again with a new producer id; one with a
// transaction in progress is not.
TEST_F(TransactionCoordinatorTest, AnIdIdlePastTheExpirationIsTombstonedAndStartsAgainWithANewProducerId) {
  constexpr int64_t kExpiration = 604'800'000;  // the default
  constexpr int64_t kExpirySweep = 3'600'000;
  auto idle = Init("txn-idle");
  ASSERT_EQ(idle->error, ErrorCode::kNone);
  Ongoing("txn-busy", kOrders, kMaxTimeout);
  clock_.Advance(kExpiration - 1);
  coordinator_->RunDueTimers();  // the busy one is aborted (its timeout); nothing expires yet
  markers_.ReleaseAll();
  EXPECT_EQ(Describe("txn-idle").error, ErrorCode::kNone);
  ASSERT_EQ(Describe("txn-busy").state, TransactionState::kCompleteAbort);
  clock_.Advance(kExpirySweep + 2);
  coordinator_->RunDueTimers();
  EXPECT_EQ(Describe("txn-idle").error, ErrorCode::kTransactionalIdNotFound);
  EXPECT_EQ(Describe("txn-busy").state, TransactionState::kCompleteAbort) << "updated by its abort: not idle that long";
  EXPECT_EQ(coordinator_->stats().expired, 1);
  const auto& records = log_.partitions[TransactionStatePartitionFor("txn-idle", kStatePartitions)];
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(DecodeTransactionLogKey(records.back().key).value_or(""), "txn-idle");
  EXPECT_FALSE(records.back().value.has_value()) << "a tombstone";
  // The next coordinator does not load it either.
  Crash();
  coordinator_ = Make(kEpochB);
  EXPECT_EQ(Describe("txn-idle").error, ErrorCode::kTransactionalIdNotFound);
  auto again = Init("txn-idle");
  ASSERT_EQ(again->error, ErrorCode::kNone);
  EXPECT_NE(again->producer_id, idle->producer_id);
  EXPECT_EQ(again->producer_epoch, 0);
}

// --- 7. Leadership ------------------------------------------------------------------

TEST_F(TransactionCoordinatorTest, LosingLeadershipDropsTheIds) {
  Ongoing("txn-a", kOrders);
  auto init_b = Init("txn-b");
  ASSERT_EQ(coordinator_->List({}, {}, -1).second.size(), 2u);
  coordinator_->OnLeadership({}, kStatePartitions);
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kNotCoordinator);
  EXPECT_EQ(Add("txn-a", 1000, 0, kOrders), ErrorCode::kNotCoordinator);
  EXPECT_EQ(End("txn-b", init_b->producer_id, init_b->producer_epoch, true), ErrorCode::kNotCoordinator);
  EXPECT_EQ(Describe("txn-a").error, ErrorCode::kNotCoordinator);
  auto [error, listed] = coordinator_->List({}, {}, -1);
  EXPECT_EQ(error, ErrorCode::kNone);
  EXPECT_TRUE(listed.empty());
  TransactionStats s = coordinator_->stats();
  EXPECT_EQ(s.partitions_owned, 0);
  EXPECT_EQ(s.ongoing, 0);
  // Nothing is swept for ids no longer here.
  clock_.Advance(10 * kTimeout);
  coordinator_->RunDueTimers();
  EXPECT_TRUE(markers_.sent.empty());
}

// --- 8. Describe and List ------------------------------------------------------------

TEST_F(TransactionCoordinatorTest, ListFiltersByStateProducerIdAndDuration) {
  const int64_t t0 = clock_.NowMs();
  ASSERT_EQ(Init("txn-empty")->producer_id, 1000);
  auto [pid_old, e1] = Ongoing("txn-old", kOrders);        // 1001, from t0
  clock_.Advance(5000);
  auto [pid_new, e2] = Ongoing("txn-new", {{"orders", 4}});  // 1002, from t0 + 5 s
  auto [pid_done, e3] = Ongoing("txn-done", {{"orders", 7}});
  ASSERT_EQ(End("txn-done", pid_done, e3, true), ErrorCode::kNone);
  markers_.ReleaseAll();
  clock_.Advance(3000);  // now t0 + 8 s

  auto ids = [](const std::vector<TransactionDescription>& ds) {
    std::set<std::string> out;
    for (const auto& d : ds) out.insert(d.transactional_id);
    return out;
  };
  auto [error, all] = coordinator_->List({}, {}, -1);
  EXPECT_EQ(error, ErrorCode::kNone);
  EXPECT_EQ(ids(all), (std::set<std::string>{"txn-empty", "txn-old", "txn-new", "txn-done"}));
  EXPECT_EQ(ids(coordinator_->List({TransactionState::kOngoing}, {}, -1).second),
            (std::set<std::string>{"txn-old", "txn-new"}));
  EXPECT_EQ(ids(coordinator_->List({TransactionState::kEmpty, TransactionState::kCompleteCommit}, {}, -1).second),
            (std::set<std::string>{"txn-empty", "txn-done"}));
  EXPECT_EQ(ids(coordinator_->List({}, {pid_new, 4242}, -1).second), (std::set<std::string>{"txn-new"}));
  EXPECT_EQ(ids(coordinator_->List({}, {}, 6000).second), (std::set<std::string>{"txn-old"}));  // 8 s vs 3 s
  EXPECT_TRUE(coordinator_->List({}, {}, 8000).second.empty()) << "longer than the filter, not as long as it";
  EXPECT_EQ(ids(coordinator_->List({}, {}, 1000).second), (std::set<std::string>{"txn-old", "txn-new"}));
  EXPECT_TRUE(coordinator_->List({TransactionState::kPrepareAbort}, {}, -1).second.empty());
  EXPECT_TRUE(coordinator_->List({TransactionState::kOngoing}, {pid_done}, -1).second.empty());
  for (const TransactionDescription& d : all) {
    if (d.transactional_id == "txn-old") {
      EXPECT_EQ(d.state, TransactionState::kOngoing);
      EXPECT_EQ(d.producer_id, pid_old);
    }
  }
  EXPECT_EQ(Describe("txn-old").start_ms, t0);
  (void)e1;
  (void)e2;
}

TEST_F(TransactionCoordinatorTest, DescribeAnswersEachIdAndListWaitsForLoads) {
  Ongoing("txn-a", kOrders);
  std::vector<TransactionDescription> ds = coordinator_->Describe({"txn-a", "txn-nope"});
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].error, ErrorCode::kNone);
  EXPECT_EQ(ds[0].state, TransactionState::kOngoing);
  EXPECT_EQ(ds[0].partitions, kOrders);
  EXPECT_EQ(ds[1].transactional_id, "txn-nope");
  EXPECT_EQ(ds[1].error, ErrorCode::kTransactionalIdNotFound);

  coordinator_.reset();
  coordinator_ = Make(kEpochB, /*load=*/false);
  EXPECT_EQ(coordinator_->List({}, {}, -1).first, ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(Describe("txn-a").error, ErrorCode::kCoordinatorLoadInProgress);
  coordinator_->RunDueTimers();
  auto [error, listed] = coordinator_->List({}, {}, -1);
  EXPECT_EQ(error, ErrorCode::kNone);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].transactional_id, "txn-a");
  EXPECT_EQ(coordinator_->stats().partitions_owned, kStatePartitions);
  EXPECT_EQ(coordinator_->stats().ongoing, 1);
}

TEST_F(TransactionCoordinatorTest, AnUnreadablePartitionIsNotServedUntilItLoads) {
  const int32_t p = TransactionStatePartitionFor("txn-a", kStatePartitions);
  GroupLogRecord garbage;
  garbage.key = EncodeTransactionLogKey("txn-a");
  garbage.value = std::string("\x00\x07garbage", 9);  // value version 7
  log_.partitions[p].push_back(garbage);
  coordinator_.reset();
  coordinator_ = Make(kEpochB);
  EXPECT_FALSE(coordinator_->IsLoaded(p));
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kCoordinatorLoadInProgress);
  log_.partitions[p].clear();
  coordinator_->RunDueTimers();  // retried
  EXPECT_TRUE(coordinator_->IsLoaded(p));
  EXPECT_EQ(Init("txn-a")->error, ErrorCode::kNone);
}

// --- 10. Transaction protocol version 2 (KIP-890 part 2) ----------------------------

TEST_F(TransactionCoordinatorTest, V2EveryEndTxnMovesToTheNextEpoch) {
  auto init = Init("txn-a");
  const int64_t pid = init->producer_id;
  ASSERT_EQ(AddV2("txn-a", pid, 0, kOrders), ErrorCode::kNone);
  EXPECT_EQ(LastWritten("txn-a").client_transaction_version, 2);
  auto end = EndV2("txn-a", pid, 0, true);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->error, ErrorCode::kNone);
  EXPECT_EQ(end->producer_id, pid);
  EXPECT_EQ(end->producer_epoch, 1) << "the next transaction's epoch";
  TransactionLogValue prepared = LastWritten("txn-a");
  EXPECT_EQ(prepared.state, TransactionState::kPrepareCommit);
  EXPECT_EQ(prepared.producer_epoch, 1);
  EXPECT_EQ(prepared.partitions, kOrders);
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_EQ(markers_.sent[0].producer_epoch, 1) << "the markers carry the bumped epoch";
  markers_.ReleaseAll();
  EXPECT_EQ(LastWritten("txn-a").state, TransactionState::kCompleteCommit);
  EXPECT_EQ(LastWritten("txn-a").producer_epoch, 1);

  // The next transaction runs at epoch 1; epoch 0 is fenced now.
  EXPECT_EQ(AddV2("txn-a", pid, 0, {{"orders", 0}}), ErrorCode::kProducerFenced);
  EXPECT_EQ(AddV2("txn-a", pid, 1, {{"orders", 0}}), ErrorCode::kNone);
  auto aborted = EndV2("txn-a", pid, 1, false);
  EXPECT_EQ(aborted->error, ErrorCode::kNone);
  EXPECT_EQ(aborted->producer_epoch, 2);
  ASSERT_EQ(markers_.sent.size(), 2u);
  EXPECT_FALSE(markers_.sent[1].commit);
  EXPECT_EQ(markers_.sent[1].producer_epoch, 2);
  markers_.ReleaseAll();
  EXPECT_EQ(Describe("txn-a").producer_epoch, 2);
}

TEST_F(TransactionCoordinatorTest, V2ARetriedEndTxnIsRecognisedByTheEpochBeforeTheBump) {
  auto init = Init("txn-a");
  const int64_t pid = init->producer_id;
  ASSERT_EQ(AddV2("txn-a", pid, 0, kOrders), ErrorCode::kNone);
  ASSERT_EQ(EndV2("txn-a", pid, 0, true)->error, ErrorCode::kNone);
  // While the markers are in flight the retry waits, and so does the next transaction's
  // EndTxn (an abort before anything was sent).
  EXPECT_EQ(EndV2("txn-a", pid, 0, true)->error, ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(EndV2("txn-a", pid, 1, false)->error, ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(EndV2("txn-a", pid, 5, true)->error, ErrorCode::kProducerFenced);
  markers_.ReleaseAll();
  const int appends = log_.appends;
  auto retried = EndV2("txn-a", pid, 0, true);
  EXPECT_EQ(retried->error, ErrorCode::kNone);
  EXPECT_EQ(retried->producer_id, pid);
  EXPECT_EQ(retried->producer_epoch, 1);
  EXPECT_EQ(EndV2("txn-a", pid, 0, false)->error, ErrorCode::kInvalidTxnState) << "an abort is no retry of a commit";
  EXPECT_EQ(EndV2("txn-a", pid, 1, true)->error, ErrorCode::kInvalidTxnState) << "no transaction to commit";
  EXPECT_EQ(EndV2("txn-a", pid + 1, 0, true)->error, ErrorCode::kInvalidProducerIdMapping);
  EXPECT_EQ(log_.appends, appends) << "a retry writes nothing";
  EXPECT_EQ(markers_.sent.size(), 1u);
}

TEST_F(TransactionCoordinatorTest, V2AnAbortNeedsNoTransaction) {
  auto init = Init("txn-a");
  const int64_t pid = init->producer_id;
  EXPECT_EQ(EndV2("txn-a", pid, 0, true)->error, ErrorCode::kInvalidTxnState);
  auto aborted = EndV2("txn-a", pid, 0, false);
  EXPECT_EQ(aborted->error, ErrorCode::kNone);
  EXPECT_EQ(aborted->producer_epoch, 1);
  // Nothing to mark: completed at once.
  EXPECT_TRUE(markers_.sent.empty());
  TransactionLogValue done = LastWritten("txn-a");
  EXPECT_EQ(done.state, TransactionState::kCompleteAbort);
  EXPECT_EQ(done.producer_epoch, 1);
  // Again from CompleteAbort at the current epoch: another bump.
  EXPECT_EQ(EndV2("txn-a", pid, 1, false)->producer_epoch, 2);
  EXPECT_EQ(Describe("txn-a").state, TransactionState::kCompleteAbort);
}

TEST_F(TransactionCoordinatorTest, V2AnExhaustedEpochMovesToANewProducerIdWhenTheTransactionCompletes) {
  const int32_t p = TransactionStatePartitionFor("txn-a", kStatePartitions);
  GroupLogRecord r;
  r.key = EncodeTransactionLogKey("txn-a");
  TransactionLogValue ongoing{5,       INT16_MAX - 1,  kTimeout,      TransactionState::kOngoing,
                              kOrders, clock_.NowMs(), clock_.NowMs()};
  ongoing.client_transaction_version = 2;
  r.value = EncodeTransactionLogValue(ongoing);
  log_.partitions[p].push_back(r);
  coordinator_ = Make(kEpochB);
  auto end = EndV2("txn-a", 5, INT16_MAX - 1, true);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->error, ErrorCode::kNone);
  EXPECT_EQ(end->producer_id, 1000) << "a new producer id";
  EXPECT_EQ(end->producer_epoch, 0);
  TransactionLogValue prepared = LastWritten("txn-a");
  EXPECT_EQ(prepared.producer_id, 5);
  EXPECT_EQ(prepared.producer_epoch, INT16_MAX);
  EXPECT_EQ(prepared.next_producer_id, 1000);
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_EQ(markers_.sent[0].producer_id, 5);
  EXPECT_EQ(markers_.sent[0].producer_epoch, INT16_MAX);

  // A new coordinator loading the PrepareCommit finishes the move.
  Crash();
  coordinator_ = Make(kEpochA + 2);
  ASSERT_EQ(markers_.sent.size(), 2u);
  markers_.ReleaseAll();
  TransactionLogValue done = LastWritten("txn-a");
  EXPECT_EQ(done.state, TransactionState::kCompleteCommit);
  EXPECT_EQ(done.producer_id, 1000);
  EXPECT_EQ(done.producer_epoch, 0);
  EXPECT_EQ(done.prev_producer_id, 5);
  EXPECT_EQ(done.next_producer_id, -1);
  // The producer's retry of its EndTxn (it never saw the answer) is recognised.
  auto retried = EndV2("txn-a", 5, INT16_MAX - 1, true);
  EXPECT_EQ(retried->error, ErrorCode::kNone);
  EXPECT_EQ(retried->producer_id, 1000);
  EXPECT_EQ(retried->producer_epoch, 0);
  EXPECT_EQ(AddV2("txn-a", 1000, 0, kOrders), ErrorCode::kNone);
  EXPECT_EQ(next_producer_id_, 1001);
}

TEST_F(TransactionCoordinatorTest, V2AnAddWaitsForTheTransitionInFlight) {
  auto init = Init("txn-a");
  const int64_t pid = init->producer_id;
  ASSERT_EQ(AddV2("txn-a", pid, 0, kOrders), ErrorCode::kNone);
  ASSERT_EQ(EndV2("txn-a", pid, 0, true)->error, ErrorCode::kNone);
  ASSERT_EQ(markers_.held.size(), 1u);  // the markers in flight
  // Version 1's add is refused at once; version 2's (a leader's) waits.
  EXPECT_EQ(Add("txn-a", pid, 1, {{"payments", 0}}), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(AddV2("txn-a", pid, 1, {{"payments", 0}}), std::nullopt);
  auto second = std::make_shared<std::optional<ErrorCode>>();
  coordinator_->AddPartitions("txn-a", pid, 1, {{"payments", 1}}, 2, [second](ErrorCode e) { *second = e; });
  EXPECT_FALSE(second->has_value());
  markers_.ReleaseAll();  // CompleteCommit written: the waiting adds run, in order
  EXPECT_EQ(*second, ErrorCode::kNone);
  TransactionDescription d = Describe("txn-a");
  EXPECT_EQ(d.state, TransactionState::kOngoing);
  EXPECT_EQ(d.partitions, (std::set<TopicPartition>{{"payments", 0}, {"payments", 1}}));

  // One that waits past kBusyAddWaitMs is answered CONCURRENT_TRANSACTIONS.
  ASSERT_EQ(EndV2("txn-a", pid, 1, false)->error, ErrorCode::kNone);
  auto late = std::make_shared<std::optional<ErrorCode>>();
  coordinator_->AddPartitions("txn-a", pid, 2, {{"orders", 0}}, 2, [late](ErrorCode e) { *late = e; });
  EXPECT_FALSE(late->has_value());
  clock_.Advance(TransactionCoordinator::kBusyAddWaitMs);
  coordinator_->RunDueTimers();
  EXPECT_EQ(*late, ErrorCode::kConcurrentTransactions);
}

// Two batches of a producer wait for the same partition's add; the first one's write
// completes and its leader appends it from the answer. A second add asked meanwhile (the
// next batch, from another request) must not be answered before that answer returns, or
// its batch could be appended first: out of the producer's order.
TEST_F(TransactionCoordinatorTest, V2AnAddAskedWhileAnotherIsAnsweredWaitsForIt) {
  auto init = Init("txn-a");
  const int64_t pid = init->producer_id;
  log_.hold = true;
  std::vector<std::string> order;
  auto second = std::make_shared<std::optional<ErrorCode>>();
  coordinator_->AddPartitions("txn-a", pid, 0, {{"orders", 0}}, 2, [&](ErrorCode e) {
    ASSERT_EQ(e, ErrorCode::kNone);
    // The first batch's leader is appending it now; the second batch's add comes in.
    coordinator_->AddPartitions("txn-a", pid, 0, {{"orders", 0}}, 2, [&, second](ErrorCode e2) {
      *second = e2;
      order.push_back("second");
    });
    EXPECT_FALSE(second->has_value()) << "answered while the first is still being answered";
    order.push_back("first");
  });
  log_.hold = false;
  log_.ReleaseHeld();
  EXPECT_EQ(*second, ErrorCode::kNone);
  EXPECT_EQ(order, (std::vector<std::string>{"first", "second"}));
}

// Adds of one id are answered in the order they came, also when one comes while those
// before it are being retried: the batches waiting for them are appended in that order.
TEST_F(TransactionCoordinatorTest, V2AddsAreAnsweredInTheOrderTheyCame) {
  auto init = Init("txn-a");
  const int64_t pid = init->producer_id;
  std::vector<std::string> order;
  auto add = [&](TopicPartition tp, std::string name, std::function<void()> then = nullptr) {
    coordinator_->AddPartitions("txn-a", pid, 0, {tp}, 2, [&order, name, then](ErrorCode e) {
      EXPECT_EQ(e, ErrorCode::kNone) << name;
      order.push_back(name);
      if (then) then();
    });
  };
  log_.hold = true;
  add({"orders", 1}, "w");  // its write is held: the id is busy
  add({"orders", 0}, "b", [&] { add({"orders", 0}, "d"); });  // d comes while b is answered
  add({"orders", 0}, "c");
  EXPECT_TRUE(order.empty());
  log_.hold = false;
  log_.ReleaseHeld();
  EXPECT_EQ(order, (std::vector<std::string>{"w", "b", "c", "d"}));
  EXPECT_EQ(Describe("txn-a").partitions, kOrders);
}

TEST_F(TransactionCoordinatorTest, V2ATimeoutBumpsTheEpochTwice) {
  auto init = Init("txn-a", 1000);
  const int64_t pid = init->producer_id;
  ASSERT_EQ(AddV2("txn-a", pid, 0, kOrders), ErrorCode::kNone);
  clock_.Advance(kSweepInterval);
  coordinator_->RunDueTimers();
  TransactionLogValue aborting = LastWritten("txn-a");
  EXPECT_EQ(aborting.state, TransactionState::kPrepareAbort);
  EXPECT_EQ(aborting.producer_epoch, 2);
  ASSERT_EQ(markers_.sent.size(), 1u);
  EXPECT_EQ(markers_.sent[0].producer_epoch, 2);
  markers_.ReleaseAll();
  // The producer's own EndTxn at epoch 0 is no retry (epoch 1 would read as one): fenced.
  EXPECT_EQ(EndV2("txn-a", pid, 0, true)->error, ErrorCode::kProducerFenced);
  EXPECT_EQ(EndV2("txn-a", pid, 0, false)->error, ErrorCode::kProducerFenced);
}

// --- The records ---------------------------------------------------------------------

TEST(TransactionRecordTest, ValuesRoundTrip) {
  TransactionLogValue v{123456789012345, 77, 60'000, TransactionState::kPrepareCommit,
                        {{"b", 2}, {"a", 9}, {"a", 1}, {"b", 0}}, 1'700'000'000'123, 1'700'000'000'000};
  absl::StatusOr<TransactionLogValue> back = DecodeTransactionLogValue(EncodeTransactionLogValue(v));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, v);
  for (int8_t s = 0; s <= 7; ++s) {
    TransactionLogValue each;
    each.state = static_cast<TransactionState>(s);
    auto decoded = DecodeTransactionLogValue(EncodeTransactionLogValue(each));
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, each);
    TransactionState parsed;
    ASSERT_TRUE(ParseTransactionState(TransactionStateName(each.state), &parsed));
    EXPECT_EQ(parsed, each.state);
  }
  absl::StatusOr<std::string> id = DecodeTransactionLogKey(EncodeTransactionLogKey("my-txn"));
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "my-txn");
}

// Big-endian bytes, as Kafka writes its fixed-width fields.
std::string BE(uint64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

TEST(TransactionRecordTest, TheValueIsKafkasLayoutVersion0) {
  TransactionLogValue v{1000, 3, 60'000, TransactionState::kOngoing,
                        {{"ab", 1}, {"ab", 0}, {"c", 7}}, 0x0102030405060708, 0x1112131415161718};
  const std::string expected = std::string("\x00\x00", 2)                       // int16 version 0
                               + std::string("\x00\x00\x00\x00\x00\x00\x03\xe8", 8)  // int64 producer id 1000
                               + std::string("\x00\x03", 2)                     // int16 epoch 3
                               + std::string("\x00\x00\xea\x60", 4)             // int32 timeout 60000
                               + std::string("\x01", 1)                         // int8 Ongoing
                               + std::string("\x00\x00\x00\x02", 4)             // 2 topics, in name order
                               + std::string("\x00\x02", 2) + "ab"              // int16-length "ab"
                               + std::string("\x00\x00\x00\x02", 4)             // 2 partitions, in order
                               + std::string("\x00\x00\x00\x00", 4) + std::string("\x00\x00\x00\x01", 4)
                               + std::string("\x00\x01", 2) + "c"
                               + std::string("\x00\x00\x00\x01", 4) + std::string("\x00\x00\x00\x07", 4)
                               + std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)   // last update
                               + std::string("\x11\x12\x13\x14\x15\x16\x17\x18", 8);  // start
  EXPECT_EQ(EncodeTransactionLogValue(v), expected);
  EXPECT_EQ(EncodeTransactionLogKey("ab"), std::string("\x00\x00\x00\x02", 4) + "ab");
  // The same with the helper, for an Empty value with no partitions.
  TransactionLogValue empty{-1, -1, 1, TransactionState::kEmpty, {}, 5, -1};
  EXPECT_EQ(EncodeTransactionLogValue(empty), BE(0, 2) + BE(-1, 8) + BE(0xffff, 2) + BE(1, 4) + BE(0, 1) + BE(0, 4) +
                                                  BE(5, 8) + BE(-1, 8));
}

TEST(TransactionRecordTest, Version1CarriesKIP890sFieldsAsKafkasTaggedFields) {
  TransactionLogValue v{1000, 3, 60'000, TransactionState::kPrepareCommit, {{"ab", 1}}, 5, 6};
  v.prev_producer_id = 999;
  v.next_producer_id = 1001;
  v.client_transaction_version = 2;
  const std::string expected = BE(1, 2) + BE(1000, 8) + BE(3, 2) + BE(60'000, 4) + BE(2, 1)  // version 1
                               + BE(2, 1)                          // compact array: 1 topic
                               + BE(3, 1) + "ab"                   // compact string
                               + BE(2, 1) + BE(1, 4) + BE(0, 1)    // 1 partition; no tags
                               + BE(5, 8) + BE(6, 8)               // last update, start
                               + BE(3, 1)                          // 3 tagged fields
                               + BE(0, 1) + BE(8, 1) + BE(999, 8)  // PreviousProducerId
                               + BE(1, 1) + BE(8, 1) + BE(1001, 8) // NextProducerId
                               + BE(2, 1) + BE(2, 1) + BE(2, 2);   // ClientTransactionVersion
  EXPECT_EQ(EncodeTransactionLogValue(v), expected);
  absl::StatusOr<TransactionLogValue> back = DecodeTransactionLogValue(expected);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, v);
}

TEST(TransactionRecordTest, UnreadableRecordsAreRefused) {
  std::string good = EncodeTransactionLogValue(TransactionLogValue{1, 0, 1, TransactionState::kEmpty, {}, 0, -1});
  std::string bad_version = good;
  bad_version[1] = 9;
  EXPECT_FALSE(DecodeTransactionLogValue(bad_version).ok());
  std::string bad_state = good;
  bad_state[2 + 8 + 2 + 4] = 9;  // the state byte
  EXPECT_FALSE(DecodeTransactionLogValue(bad_state).ok());
  EXPECT_FALSE(DecodeTransactionLogValue(good.substr(0, good.size() - 1)).ok());
  EXPECT_FALSE(DecodeTransactionLogKey(std::string("\x00\x01\x00\x01x", 5)).ok());
}

// Java's String.hashCode for ASCII: h = 31 * h + c in int32 arithmetic (wrapping).
int32_t JavaHashCode(const std::string& s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

TEST(TransactionRecordTest, IdsLandInKafkasPartition) {
  // Kafka: Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions,
  // where Utils.abs(n) is n & 0x7fffffff.
  //   "a":   'a' = 97                                    -> 97 % 50 = 47
  //   "ab":  97 * 31 + 98 = 3105                          -> 3105 % 50 = 5
  //   "txn": (116 * 31 + 120) * 31 + 110 = 115306         -> 115306 % 50 = 6
  EXPECT_EQ(TransactionStatePartitionFor("a", 50), 47);
  EXPECT_EQ(TransactionStatePartitionFor("ab", 50), 5);
  EXPECT_EQ(TransactionStatePartitionFor("txn", 50), 6);
  //   "my-txn" overflows: its hashCode is -1061187895 (0xc0bf7ac9); & 0x7fffffff =
  //   1086295753, % 50 = 3 (a plain abs would give 1061187895 % 50 = 45).
  EXPECT_EQ(JavaHashCode("my-txn"), -1061187895);
  EXPECT_EQ(TransactionStatePartitionFor("my-txn", 50), 3);
  for (const std::string id : {"transactional-id-1", "producer-7", "orders-writer"}) {
    EXPECT_EQ(TransactionStatePartitionFor(id, 50), (JavaHashCode(id) & 0x7fffffff) % 50) << id;
  }
}

// --- 9. The group coordinator's transactional offsets --------------------------------

class TxnOffsetsTest : public ::testing::Test {
 protected:
  TxnOffsetsTest() { coordinator_ = Make(1); }

  // Every group lands in partition 0 (one partition).
  std::unique_ptr<GroupCoordinator> Make(int32_t epoch) {
    GroupCoordinatorOptions o;
    o.offsets_topic_partitions = 1;
    o.offsets_retention_ms = 3'600'000;
    o.offsets_retention_check_interval_ms = 1000;
    o.clock = &clock_;
    o.start_thread = false;
    auto c = std::make_unique<GroupCoordinator>(o, &log_);
    c->OnLeadership({{0, epoch}}, 1);
    c->RunDueTimers();
    return c;
  }

  ErrorCode Commit(int64_t offset, const std::string& topic = "orders", int32_t partition = 0) {
    OffsetCommitParams p;
    p.group_id = "g";
    p.partitions = {{topic, partition, offset, 3, std::string("m")}};
    std::vector<PartitionError> out;
    coordinator_->CommitOffsets(p, [&out](std::vector<PartitionError> r) { out = std::move(r); });
    coordinator_->RunDueTimers();
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? ErrorCode::kUnknownServerError : out[0].error;
  }

  ErrorCode TxnCommit(int64_t producer_id, int64_t offset, const std::string& topic = "orders", int32_t partition = 0) {
    TxnOffsetCommitParams p;
    p.group_id = "g";
    p.transactional_id = "t";
    p.producer_id = producer_id;
    p.producer_epoch = 0;
    p.generation_id = -1;
    p.partitions = {{topic, partition, offset, 3, std::string("txn")}};
    std::vector<PartitionError> out;
    coordinator_->CommitTransactionalOffsets(p, [&out](std::vector<PartitionError> r) { out = std::move(r); });
    coordinator_->RunDueTimers();
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? ErrorCode::kUnknownServerError : out[0].error;
  }

  FetchedOffset Fetch(bool require_stable, const std::string& topic = "orders", int32_t partition = 0) {
    OffsetFetchResult r = coordinator_->FetchOffsets("g", std::vector<TopicPartition>{{topic, partition}}, require_stable);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(r.partitions.size(), 1u);
    return r.partitions.empty() ? FetchedOffset{} : r.partitions[0];
  }

  storage::ManualClock clock_;
  MemoryGroupLog log_;
  std::unique_ptr<GroupCoordinator> coordinator_;
};

TEST_F(TxnOffsetsTest, ATransactionalCommitIsPendingUntilItsCommitMarker) {
  ASSERT_EQ(coordinator_->PartitionFor("g"), 0);
  ASSERT_EQ(Commit(5), ErrorCode::kNone);
  ASSERT_EQ(TxnCommit(1000, 10), ErrorCode::kNone);
  // Written as the producer's transactional batch.
  ASSERT_FALSE(log_.partitions[0].empty());
  EXPECT_EQ(log_.partitions[0].back().producer_id, 1000);

  FetchedOffset stable = Fetch(true);
  EXPECT_EQ(stable.error, ErrorCode::kUnstableOffsetCommit);
  EXPECT_EQ(stable.offset, -1);
  FetchedOffset unstable = Fetch(false);
  EXPECT_EQ(unstable.error, ErrorCode::kNone);
  EXPECT_EQ(unstable.offset, 5);
  EXPECT_EQ(Fetch(true, "orders", 1).error, ErrorCode::kNone);  // no transaction there
  // All the group's offsets: the committed ones only.
  OffsetFetchResult all = coordinator_->FetchOffsets("g", std::nullopt, true);
  ASSERT_EQ(all.partitions.size(), 1u);
  EXPECT_EQ(all.partitions[0].offset, 5);

  coordinator_->OnTransactionCompleted(0, 999, true);  // another producer's marker
  EXPECT_EQ(Fetch(true).error, ErrorCode::kUnstableOffsetCommit);
  coordinator_->OnTransactionCompleted(0, 1000, true);
  FetchedOffset committed = Fetch(true);
  EXPECT_EQ(committed.error, ErrorCode::kNone);
  EXPECT_EQ(committed.offset, 10);
  EXPECT_EQ(committed.metadata, "txn");
}

// Kafka's rule: the later record wins. A plain commit written after a transaction's
// offset stays when the COMMIT marker comes; a new coordinator loading the log agrees.
TEST_F(TxnOffsetsTest, ACommitMarkerDoesNotOverrideAPlainCommitWrittenSince) {
  ASSERT_EQ(TxnCommit(1000, 10), ErrorCode::kNone);
  ASSERT_EQ(Commit(20), ErrorCode::kNone);
  ASSERT_EQ(Commit(30, "orders", 1), ErrorCode::kNone);
  ASSERT_EQ(TxnCommit(1000, 40, "orders", 1), ErrorCode::kNone);
  log_.AppendMarker(0, 1000, true);
  coordinator_->OnTransactionCompleted(0, 1000, true);
  EXPECT_EQ(Fetch(true).offset, 20) << "the plain commit was written after the transaction's";
  EXPECT_EQ(Fetch(true, "orders", 1).offset, 40) << "the transaction's was written after the plain one";
  coordinator_ = Make(2);
  EXPECT_EQ(Fetch(true).offset, 20);
  EXPECT_EQ(Fetch(true, "orders", 1).offset, 40);
}

TEST_F(TxnOffsetsTest, AnAbortedTransactionsOffsetsAreDropped) {
  ASSERT_EQ(Commit(5), ErrorCode::kNone);
  ASSERT_EQ(TxnCommit(1000, 10), ErrorCode::kNone);
  coordinator_->OnTransactionCompleted(0, 1000, false);
  FetchedOffset f = Fetch(true);
  EXPECT_EQ(f.error, ErrorCode::kNone);
  EXPECT_EQ(f.offset, 5);
  coordinator_->OnTransactionCompleted(0, 1000, true);  // nothing left to commit
  EXPECT_EQ(Fetch(true).offset, 5);
}

TEST_F(TxnOffsetsTest, ANewCoordinatorReplaysTheMarkers) {
  ASSERT_EQ(Commit(5), ErrorCode::kNone);
  ASSERT_EQ(TxnCommit(1000, 10), ErrorCode::kNone);  // committed
  log_.AppendMarker(0, 1000, true);
  ASSERT_EQ(TxnCommit(1001, 20), ErrorCode::kNone);  // aborted
  log_.AppendMarker(0, 1001, false);
  ASSERT_EQ(TxnCommit(1002, 30, "orders", 1), ErrorCode::kNone);  // still open
  ASSERT_EQ(TxnCommit(1003, 40, "orders", 2), ErrorCode::kNone);  // open, aborted later
  ASSERT_EQ(TxnCommit(1004, 50, "orders", 3), ErrorCode::kNone);  // a marker with no offsets
  log_.AppendMarker(0, 999, true);  // another producer's marker, nothing of it here

  coordinator_->OnLeadership({}, 1);
  coordinator_ = Make(2);
  FetchedOffset p0 = Fetch(true);
  EXPECT_EQ(p0.error, ErrorCode::kNone);
  EXPECT_EQ(p0.offset, 10);
  EXPECT_EQ(Fetch(true, "orders", 1).error, ErrorCode::kUnstableOffsetCommit);
  EXPECT_EQ(Fetch(false, "orders", 1).offset, -1);
  EXPECT_EQ(Fetch(true, "orders", 2).error, ErrorCode::kUnstableOffsetCommit);

  coordinator_->OnTransactionCompleted(0, 1002, true);
  coordinator_->OnTransactionCompleted(0, 1003, false);
  EXPECT_EQ(Fetch(true, "orders", 1).offset, 30);
  FetchedOffset p2 = Fetch(true, "orders", 2);
  EXPECT_EQ(p2.error, ErrorCode::kNone);
  EXPECT_EQ(p2.offset, -1);

  // The markers as they would reach the log: a third coordinator agrees.
  log_.AppendMarker(0, 1002, true);
  log_.AppendMarker(0, 1003, false);
  coordinator_->OnLeadership({}, 1);
  coordinator_ = Make(3);
  EXPECT_EQ(Fetch(true).offset, 10);
  EXPECT_EQ(Fetch(true, "orders", 1).offset, 30);
  EXPECT_EQ(Fetch(true, "orders", 2).offset, -1);
  EXPECT_EQ(Fetch(true, "orders", 2).error, ErrorCode::kNone);
  EXPECT_EQ(Fetch(true, "orders", 3).error, ErrorCode::kUnstableOffsetCommit);
}

TEST_F(TxnOffsetsTest, AGroupWithOnlyPendingOffsetsOutlivesTheRetentionCheck) {
  // A producer committing for a group that has no committed offsets yet (the first
  // transaction of a consume-transform-produce application).
  ASSERT_EQ(TxnCommit(1000, 10), ErrorCode::kNone);
  clock_.Advance(5000);  // several retention checks while the transaction is open
  coordinator_->RunDueTimers();
  clock_.Advance(5000);
  coordinator_->RunDueTimers();
  EXPECT_EQ(Fetch(true).error, ErrorCode::kUnstableOffsetCommit);
  coordinator_->OnTransactionCompleted(0, 1000, true);
  FetchedOffset f = Fetch(true);
  EXPECT_EQ(f.error, ErrorCode::kNone);
  EXPECT_EQ(f.offset, 10);
}

TEST_F(TxnOffsetsTest, ATransactionalCommitOfAPartitionNotLedIsRefused) {
  coordinator_->OnLeadership({}, 1);
  EXPECT_EQ(TxnCommit(1000, 10), ErrorCode::kNotCoordinator);
  OffsetFetchResult r = coordinator_->FetchOffsets("g", std::vector<TopicPartition>{{"orders", 0}}, true);
  EXPECT_EQ(r.error, ErrorCode::kNotCoordinator);
}

TEST_F(TxnOffsetsTest, AFailedTransactionalWriteLeavesNothingPending) {
  log_.fail_with = ErrorCode::kNotEnoughReplicas;
  EXPECT_EQ(TxnCommit(1000, 10), ErrorCode::kCoordinatorNotAvailable);
  log_.fail_with = ErrorCode::kNone;
  EXPECT_EQ(Fetch(true).error, ErrorCode::kNone);
  EXPECT_EQ(Fetch(true).offset, -1);
}

}  // namespace
}  // namespace strata::broker
