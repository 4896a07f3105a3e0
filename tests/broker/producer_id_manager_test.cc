// ProducerIdManager against a fake block source (the real controller is in
// tests/raft/controller_process_test.cc): lazy first block, background prefetch at 90%,
// distinct increasing ids under concurrency, a bounded wait that says why, blocks that
// would repeat ids refused. And the InitProducerId handler: fresh ids
// with epoch 0, the documented errors for transactional ids, malformed v3+ requests, no
// manager and no block.

#include "broker/lifecycle/producer_id_manager.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "broker/handlers/api_registry.h"
#include "broker/handlers/init_producer_id_handler.h"
#include "broker/handlers/kafka_apis.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/init_producer_id.h"
#include "tests/support/broker_services.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Hands out consecutive blocks of `length` from 0, or the error set with Fail(). Counts
// calls and, once Observe() named the manager it serves, records for each call how many
// ids the manager had handed out when it asked (-1: asked before the test could ask
// anything). The source runs on the manager's fetch thread, outside its lock, so that
// count is what the manager knew when it decided to fetch. Thread-safe.
class FakeController {
 public:
  explicit FakeController(int32_t length = 1000) : length_(length) {}
  void Observe(const ProducerIdManager* manager) { manager_.store(manager); }
  ProducerIdBlockSource Source() {
    return [this]() -> absl::StatusOr<ProducerIdBlock> {
      const ProducerIdManager* manager = manager_.load();
      int64_t handed_out = manager != nullptr ? manager->stats().ids_handed_out : -1;
      absl::MutexLock lock(&mu_);
      handed_out_at_call_.push_back(handed_out);
      ++calls_;
      if (!scripted_.empty()) {
        ProducerIdBlock b = scripted_.front();
        scripted_.pop_front();
        return b;
      }
      if (!error_.empty()) return absl::UnavailableError(error_);
      ProducerIdBlock b{next_, length_};
      next_ += length_;
      return b;
    };
  }
  void Fail(std::string error) {
    absl::MutexLock lock(&mu_);
    error_ = std::move(error);
  }
  void Script(std::vector<ProducerIdBlock> blocks) {
    absl::MutexLock lock(&mu_);
    scripted_.assign(blocks.begin(), blocks.end());
  }
  int calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  std::vector<int64_t> handed_out_at_call() const {
    absl::MutexLock lock(&mu_);
    return handed_out_at_call_;
  }

 private:
  std::atomic<const ProducerIdManager*> manager_{nullptr};
  const int32_t length_;
  mutable absl::Mutex mu_;
  std::vector<int64_t> handed_out_at_call_ ABSL_GUARDED_BY(mu_);
  int64_t next_ ABSL_GUARDED_BY(mu_) = 0;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::string error_ ABSL_GUARDED_BY(mu_);
  std::deque<ProducerIdBlock> scripted_ ABSL_GUARDED_BY(mu_);
};

// True when every thread of this process but the calling one is asleep (state S in
// /proc/self/task/*/stat): blocked in a wait. A manager's fetch thread that does
// something unasked has done it by then, so what it did can be checked without waiting
// a fixed time.
bool OtherThreadsAsleep() {
  const std::string self = std::to_string(static_cast<long>(::gettid()));
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    if (task.path().filename() == self) continue;
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t end_of_name = stat.rfind(')');
    if (end_of_name == std::string::npos || end_of_name + 2 >= stat.size()) continue;  // the thread has gone
    if (stat[end_of_name + 2] != 'S') return false;
  }
  return true;
}

int64_t Next(ProducerIdManager& m) {
  auto id = m.NextProducerId();
  EXPECT_TRUE(id.ok()) << id.status();
  return id.ok() ? *id : -1;
}

TEST(ProducerIdManager, NothingIsFetchedUntilAProducerAsksThenIdsFollowTheBlock) {
  FakeController controller;
  ProducerIdManager m(controller.Source());
  controller.Observe(&m);
  // The fetch thread runs and goes to sleep: it fetched nothing on its own.
  ASSERT_TRUE(testing::WaitUntil(OtherThreadsAsleep, 10s)) << "the fetch thread never waits";
  EXPECT_EQ(controller.calls(), 0) << "fetched before anyone asked";
  for (int64_t expected = 0; expected < 10; ++expected) EXPECT_EQ(Next(m), expected);
  // One fetch, made for the first request (which waited for it: no id was out yet).
  EXPECT_EQ(controller.handed_out_at_call(), std::vector<int64_t>{0});
  EXPECT_EQ(m.stats().blocks_fetched, 1);
  EXPECT_EQ(m.stats().ids_handed_out, 10);
}

TEST(ProducerIdManager, TheNextBlockIsFetchedInTheBackgroundOnceNinetyPercentIsUsed) {
  FakeController controller;
  ProducerIdManager m(controller.Source());
  controller.Observe(&m);
  for (int i = 0; i < 899; ++i) Next(m);
  // The fetch thread is asleep again: 899 ids out did not make it prefetch.
  ASSERT_TRUE(testing::WaitUntil(OtherThreadsAsleep, 10s)) << "the fetch thread never waits";
  EXPECT_EQ(controller.calls(), 1) << "prefetched before 90%";
  EXPECT_EQ(Next(m), 899);  // the 900th id of the block
  ASSERT_TRUE(testing::WaitUntil([&] { return m.stats().blocks_fetched == 2; }, 5s));
  // No id is handed out while the prefetch is awaited: the second fetch saw exactly the
  // 900 ids out that made it due (one made earlier would have seen fewer).
  EXPECT_EQ(controller.handed_out_at_call(), (std::vector<int64_t>{0, 900})) << "not prefetched at 90%";
  // The controller goes away: the prefetched block still serves the next thousand ids.
  controller.Fail("controller away");
  for (int64_t expected = 900; expected < 2000; ++expected) ASSERT_EQ(Next(m), expected);
}

TEST(ProducerIdManager, ConcurrentRequestsGetDistinctIdsEachIncreasing) {
  FakeController controller(/*length=*/64);
  ProducerIdManager m(controller.Source());
  constexpr int kThreads = 8, kEach = 2000;
  std::vector<std::vector<int64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto id = m.NextProducerId();
        if (id.ok()) got[t].push_back(*id);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> all;
  for (const auto& ids : got) {
    ASSERT_EQ(ids.size(), static_cast<size_t>(kEach)) << "a request timed out";
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    all.insert(ids.begin(), ids.end());
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach)) << "an id was handed out twice";
  EXPECT_EQ(*all.rbegin(), kThreads * kEach - 1) << "ids were skipped";
}

TEST(ProducerIdManager, ARequestWaitsNoLongerThanTheBoundAndSaysWhy) {
  FakeController controller;
  controller.Fail("no active controller within 3000 ms");
  ProducerIdManagerOptions options;
  options.wait = 200ms;
  // Retries at most 50 ms apart: the request once the controller is back must not wait
  // out a backoff longer than its own bound (with 1 s, a loaded machine failed it once).
  options.max_retry_backoff = 50ms;
  ProducerIdManager m(controller.Source(), options);
  auto t0 = Clock::now();
  auto id = m.NextProducerId();
  auto waited = Clock::now() - t0;
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(id.status().message().find("no active controller"), std::string::npos) << id.status();
  EXPECT_GE(waited, 200ms);
  EXPECT_LT(waited, 3s);
  EXPECT_GE(m.stats().fetch_failures, 1);
  // The controller is back: the next request gets an id.
  controller.Fail("");
  EXPECT_EQ(Next(m), 0);
}

TEST(ProducerIdManager, ABlockThatWouldRepeatIdsIsRefused) {
  FakeController controller;
  // [0, 10), then an overlapping [5, 15) and an empty block, both refused, then [20, 30)
  // and [30, 40) (which the prefetch may take before the test ends).
  controller.Script({{0, 10}, {5, 10}, {30, 0}, {20, 10}, {30, 10}});
  ProducerIdManager m(controller.Source());
  std::vector<int64_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(Next(m));
  std::vector<int64_t> expected;
  for (int64_t id = 0; id < 10; ++id) expected.push_back(id);
  for (int64_t id = 20; id < 30; ++id) expected.push_back(id);
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(m.stats().fetch_failures, 2);
}

TEST(ProducerIdManager, StoppingDoesNotWaitOutTheRetryBackoff) {
  FakeController controller;
  controller.Fail("away");
  ProducerIdManagerOptions options;
  options.wait = 50ms;
  options.retry_backoff = 10s;
  options.max_retry_backoff = 10s;
  auto t0 = Clock::now();
  {
    ProducerIdManager m(controller.Source(), options);
    EXPECT_FALSE(m.NextProducerId().ok());
  }
  EXPECT_LT(Clock::now() - t0, 5s);
}

// ---------------------------------------------------------------------------------------
// The InitProducerId handler.

// The request as a client encodes it, answered by the handler, the response as the
// client decodes it.
kafka::InitProducerIdResponse Call(const KafkaApisContext& context, int16_t version,
                                   const kafka::InitProducerIdRequest& request) {
  std::string bytes;
  kafka::Writer w(&bytes);
  kafka::WriteInitProducerIdRequest(request, version, w);
  kafka::Reader r(bytes);
  auto decoded = kafka::ReadInitProducerIdRequest(r, version);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  std::string out;
  kafka::Writer ow(&out);
  kafka::WriteInitProducerIdResponse(AnswerInitProducerId(context, *decoded), version, ow);
  kafka::Reader rr(out);
  auto response = kafka::ReadInitProducerIdResponse(rr, version);
  EXPECT_TRUE(response.ok()) << response.status();
  return response.ok() ? *response : kafka::InitProducerIdResponse{};
}

int16_t Code(kafka::ErrorCode c) { return static_cast<int16_t>(c); }

// A broker's real services whose producer-id blocks come from source.
struct Broker {
  explicit Broker(ProducerIdBlockSource source, ProducerIdManagerOptions options = {})
      : services(tmp.path(), {.producer_id_source = std::move(source), .producer_ids = options}) {}
  testing::TempDir tmp;
  testing::BrokerServices services;
};

TEST(InitProducerIdHandler, IsAdvertisedForV0ToV4) {
  const ApiEntry* range = FindApi(static_cast<int16_t>(kafka::ApiKey::kInitProducerId));
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->min_version, 0);
  EXPECT_EQ(range->max_version, 4);
}

TEST(InitProducerIdHandler, AnIdempotentProducerGetsAFreshIdWithEpochZeroInEveryVersion) {
  FakeController controller;
  Broker broker(controller.Source());
  KafkaApisContext context = broker.services.Context();
  for (int16_t version = 0; version <= 4; ++version) {
    kafka::InitProducerIdRequest request;
    request.transaction_timeout_ms = 60000;
    auto response = Call(context, version, request);
    EXPECT_EQ(response.error_code, 0) << version;
    EXPECT_EQ(response.producer_id, version) << "ids 0, 1, 2, ... in order";
    EXPECT_EQ(response.producer_epoch, 0);
  }
}

TEST(InitProducerIdHandler, AProducerBringingItsIdAndEpochGetsAFreshIdWithEpochZero) {
  FakeController controller;
  Broker broker(controller.Source());
  KafkaApisContext context = broker.services.Context();
  auto first = Call(context, 4, {});
  ASSERT_EQ(first.error_code, 0);
  kafka::InitProducerIdRequest bump;
  bump.producer_id = first.producer_id;
  bump.producer_epoch = 3;
  auto second = Call(context, 4, bump);
  EXPECT_EQ(second.error_code, 0);
  EXPECT_NE(second.producer_id, first.producer_id);
  EXPECT_EQ(second.producer_epoch, 0);
}

// Transactional ids go to the transaction coordinator (its tests and the client tests);
// the idempotent answer never hands one an id.
TEST(InitProducerIdHandler, TheIdempotentAnswerRefusesTransactionalIds) {
  FakeController controller;
  Broker broker(controller.Source());
  KafkaApisContext context = broker.services.Context();
  for (int16_t version : {0, 2, 4}) {
    auto transactional = Call(context, version, {std::string("orders-tx"), 60000});
    EXPECT_EQ(transactional.error_code, Code(kafka::ErrorCode::kInvalidRequest)) << version;
    EXPECT_EQ(transactional.producer_id, kafka::kNoProducerId);
    EXPECT_EQ(transactional.producer_epoch, kafka::kNoProducerEpoch);
    auto empty = Call(context, version, {std::string(""), 60000});
    EXPECT_EQ(empty.error_code, Code(kafka::ErrorCode::kInvalidRequest)) << version;
  }
  EXPECT_EQ(controller.calls(), 0) << "no block is fetched for a refused request";
}

TEST(InitProducerIdHandler, AnIdWithoutAnEpochOrAnEpochWithoutAnIdIsAnInvalidRequest) {
  FakeController controller;
  Broker broker(controller.Source());
  KafkaApisContext context = broker.services.Context();
  EXPECT_EQ(Call(context, 3, {std::nullopt, 0, 42, kafka::kNoProducerEpoch}).error_code, Code(kafka::ErrorCode::kInvalidRequest));
  EXPECT_EQ(Call(context, 4, {std::nullopt, 0, kafka::kNoProducerId, 2}).error_code, Code(kafka::ErrorCode::kInvalidRequest));
}

TEST(InitProducerIdHandler, NoBlockFromTheControllerInTimeIsARetriableLoadInProgress) {
  FakeController controller;
  controller.Fail("away");
  ProducerIdManagerOptions options;
  options.wait = 50ms;
  Broker broker(controller.Source(), options);
  KafkaApisContext context = broker.services.Context();
  auto response = Call(context, 4, {});
  EXPECT_EQ(response.error_code, Code(kafka::ErrorCode::kCoordinatorLoadInProgress));
  EXPECT_TRUE(kafka::IsRetriable(kafka::ErrorCode::kCoordinatorLoadInProgress));
  EXPECT_EQ(response.producer_id, kafka::kNoProducerId);
}

TEST(InitProducerIdHandler, TheDispatchAnswersItAndRefusesATruncatedRequest) {
  FakeController controller;
  Broker broker(controller.Source());
  KafkaApisContext context = broker.services.Context();
  KafkaApis apis(context);
  kafka::RequestHeader header;
  header.api_key = static_cast<int16_t>(kafka::ApiKey::kInitProducerId);
  header.api_version = 4;
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteInitProducerIdRequest({}, 4, w);
  auto out = apis.HandleAndWait(header, body);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->has_value());
  kafka::Reader r((*out)->body);
  auto response = kafka::ReadInitProducerIdResponse(r, 4);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->error_code, 0);
  EXPECT_EQ(response->producer_id, 0);
  EXPECT_EQ(response->producer_epoch, 0);
  EXPECT_FALSE(apis.HandleAndWait(header, std::string("\x00\x00\x00", 3)).ok());
}

}  // namespace
}  // namespace strata::broker
