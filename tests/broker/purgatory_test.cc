// The purgatory: an operation completes once, by whoever makes it completable or by the
// reaper at its deadline, and leaves the purgatory when it completes (not at its deadline,
// which for an acks=all produce is request.timeout.ms away).

#include "broker/replication/purgatory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class Op final : public DelayedOperation {
 public:
  explicit Op(Clock::time_point deadline) : DelayedOperation(deadline) {}
  void TryComplete() override {
    if (ready) ForceComplete();
  }
  void OnComplete() override { ++completions; }
  std::atomic<bool> ready{false};
  std::atomic<int> completions{0};
};

TEST(Purgatory, AnOperationLeavesWhenItCompletesNotAtItsDeadline) {
  Purgatory purgatory("test");
  auto op = std::make_shared<Op>(Clock::now() + 1h);
  purgatory.TryCompleteElseWatch(op, {"t-0", "t-1"});
  EXPECT_EQ(purgatory.waiting(), 1u);
  EXPECT_EQ(purgatory.held(), 1u);
  EXPECT_EQ(purgatory.CheckAndComplete("t-0"), 0);  // not ready: it stays
  op->ready = true;
  EXPECT_EQ(purgatory.CheckAndComplete("t-1"), 1);
  EXPECT_EQ(op->completions.load(), 1);
  EXPECT_EQ(purgatory.held(), 0u);                   // gone, an hour before its deadline
  EXPECT_EQ(purgatory.CheckAndComplete("t-0"), 0);  // and from its other key's list
}

TEST(Purgatory, AnOperationThatCompletesAtOnceIsNotHeld) {
  Purgatory purgatory("test");
  auto op = std::make_shared<Op>(Clock::now() + 1h);
  op->ready = true;
  purgatory.TryCompleteElseWatch(op, {"t-0"});
  EXPECT_EQ(op->completions.load(), 1);
  EXPECT_EQ(purgatory.held(), 0u);
}

TEST(Purgatory, TheReaperCompletesAnExpiredOperationOnce) {
  Purgatory purgatory("test");
  auto op = std::make_shared<Op>(Clock::now() + 50ms);
  purgatory.TryCompleteElseWatch(op, {"t-0"});
  ASSERT_TRUE(testing::WaitUntil([&] { return op->completions.load() == 1; }, 5s));
  ASSERT_TRUE(testing::WaitUntil([&] { return purgatory.held() == 0; }, 5s));
  op->ready = true;
  EXPECT_EQ(purgatory.CheckAndComplete("t-0"), 0);
  EXPECT_EQ(op->completions.load(), 1);
}

TEST(Purgatory, ManyThreadsCheckingTheSameKeysCompleteEachOperationOnce) {
  Purgatory purgatory("test");
  std::vector<std::shared_ptr<Op>> ops;
  for (int i = 0; i < 200; ++i) {
    ops.push_back(std::make_shared<Op>(Clock::now() + 1h));
    purgatory.TryCompleteElseWatch(ops.back(), {"t-" + std::to_string(i % 3), "t-" + std::to_string(i % 5)});
  }
  for (auto& op : ops) op->ready = true;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&purgatory, t] {
      for (int k = 0; k < 5; ++k) purgatory.CheckAndComplete("t-" + std::to_string((k + t) % 5));
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& op : ops) EXPECT_EQ(op->completions.load(), 1);
  EXPECT_EQ(purgatory.held(), 0u);
  EXPECT_EQ(purgatory.waiting(), 0u);
}

}  // namespace
}  // namespace strata::broker
