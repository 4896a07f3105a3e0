// A replica moving between log dirs (AlterReplicaLogDirs) on real logs: the partition
// keeps taking appends while the LogDirMover copies it and swaps the future log in, and
// a follower's truncation during the copy is repeated on the future log.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "absl/cleanup/cleanup.h"

#include "broker/replication/log_dir_mover.h"
#include "broker/replication/partition.h"
#include "storage/log_manager.h"
#include "storage/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;

class LogDirMoveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::LogManagerOptions o;
    o.log_dirs = {tmp_.Sub("d1"), tmp_.Sub("d2")};
    o.cluster_id = "c1";
    o.node_id = 1;
    o.default_config.segment_bytes = 256 << 10;  // several segments to copy
    o.default_config.file_delete_delay_ms = 0;
    o.scheduler = &scheduler_;
    auto logs = storage::LogManager::Open(o);
    ASSERT_TRUE(logs.ok()) << logs.status();
    logs_ = std::move(*logs);
    auto log = logs_->GetOrCreateLog(tp_);
    ASSERT_TRUE(log.ok());
    partition_ = std::make_shared<Partition>(tp_, 1, *log);
  }
  void TearDown() override {
    if (mover_) mover_->Shutdown();
  }
  PartitionState State(int32_t leader, int32_t epoch) {
    PartitionState s;
    s.topic_id = std::string(16, 't');
    s.leader = leader;
    s.leader_epoch = epoch;
    s.partition_epoch = epoch;
    s.replicas = {1, 2};
    s.isr = {1};
    return s;
  }
  void StartMover(uint64_t copy_bytes) {
    mover_ = std::make_unique<LogDirMover>(LogDirMoverOptions{
        .broker_id = 1,
        .logs = logs_.get(),
        .partition = [this](const storage::TopicPartition& tp) {
          return tp == tp_ ? partition_ : std::shared_ptr<Partition>();
        },
        .controller = nullptr,
        .broker_epoch = nullptr,
        .copy_bytes = copy_bytes});
  }
  std::string OtherDir() {
    return logs_->dir_of(tp_) == tmp_.Sub("d1") ? tmp_.Sub("d2") : tmp_.Sub("d1");
  }
  void StartMove(const std::string& dir) {
    auto future = logs_->GetOrCreateFutureLog(tp_, dir);
    ASSERT_TRUE(future.ok()) << future.status();
    partition_->AttachFutureLog(*future);
    mover_->Add(tp_);
  }

  testing::TempDir tmp_;
  storage::Scheduler scheduler_{1};
  const storage::TopicPartition tp_{"moving", 0};
  std::unique_ptr<storage::LogManager> logs_;
  std::shared_ptr<Partition> partition_;
  std::unique_ptr<LogDirMover> mover_;
};

TEST_F(LogDirMoveTest, APartitionUnderAppendsMovesWithEveryAcknowledgedRecord) {
  ASSERT_TRUE(partition_->Update(State(1, 0), 0).ok());
  for (int i = 0; i < 200; ++i) {
    std::string batch = testing::MakeBatch(10, "before" + std::to_string(i), 1000, 100);
    ASSERT_TRUE(partition_->AppendRecordsToLeader(batch).ok());
  }
  const std::string target = OtherDir();
  StartMover(/*copy_bytes=*/256 << 10);
  // A producer that keeps going through the move, a batch every 200 us (a load the copy
  // outpaces: one faster than the disk copy would keep any move from ending, in Kafka
  // too); what it was acknowledged must be there.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};
  std::atomic<int64_t> refused{0};
  std::thread producer([&] {
    for (int i = 0; !stop.load(); ++i) {
      std::this_thread::sleep_for(200us);  // the load's pace, not a synchronisation
      std::string batch = testing::MakeBatch(5, "during" + std::to_string(i), 1000, 100);
      auto appended = partition_->AppendRecordsToLeader(batch);
      if (appended.ok()) {
        acknowledged.fetch_add(5);
      } else {
        refused.fetch_add(1);
      }
    }
  });
  absl::Cleanup join = [&] {
    stop.store(true);
    producer.join();
  };
  ASSERT_TRUE(testing::WaitUntil([&] { return acknowledged.load() > 500; }, 30s));
  StartMove(target);
  ASSERT_TRUE(testing::WaitUntil([&] { return mover_->moves_completed() == 1; }, 60s))
      << "failed moves: " << mover_->moves_failed();
  ASSERT_TRUE(testing::WaitUntil([&] { return acknowledged.load() > 3000; }, 30s));  // appends go on after
  std::move(join).Invoke();

  EXPECT_EQ(refused.load(), 0);  // the swap held appends back, it refused none
  EXPECT_EQ(partition_->log()->log_dir(), target);
  EXPECT_EQ(logs_->dir_of(tp_), target);
  EXPECT_EQ(partition_->future_log(), nullptr);
  EXPECT_GT(mover_->bytes_copied(), 0);
  auto records = testing::ReadAll(*partition_->log());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(static_cast<int64_t>(records->size()), 2000 + acknowledged.load());
  for (size_t i = 0; i < records->size(); ++i) ASSERT_EQ((*records)[i].offset, static_cast<int64_t>(i));
  EXPECT_TRUE(mover_->moving().empty());
}

TEST_F(LogDirMoveTest, AFollowersTruncationDuringTheCopyIsRepeatedOnTheFutureLog) {
  // As a follower of broker 2: records of epochs 0 and 1 fetched from it.
  int32_t following_in = 1;
  ASSERT_TRUE(partition_->Update(State(2, following_in), 0).ok());
  auto append = [&](int64_t base, int32_t epoch, int records) {
    std::string batch = testing::MakeBatch(records, "e" + std::to_string(epoch), 1000, 100);
    storage::SetBaseOffset(batch.data(), base);
    storage::SetPartitionLeaderEpoch(batch.data(), epoch);
    ASSERT_TRUE(partition_->AppendRecordsToFollower(following_in, batch, 0, 0).ok());
  };
  for (int i = 0; i < 50; ++i) append(i * 10, 0, 10);
  for (int i = 50; i < 100; ++i) append(i * 10, 1, 10);
  auto future = logs_->GetOrCreateFutureLog(tp_, OtherDir());
  ASSERT_TRUE(future.ok());
  partition_->AttachFutureLog(*future);
  // Copy all of it, then the leader says the log diverges at 600: both logs end there.
  for (;;) {
    auto copied = partition_->CopyToFutureLog(8 << 10);
    ASSERT_TRUE(copied.ok()) << copied.status();
    if (copied->lag == 0) break;
  }
  ASSERT_EQ((*future)->log_end_offset(), 1000);
  ASSERT_TRUE(partition_->TruncateToLeaderLogEnd(1, 600).ok());
  EXPECT_EQ(partition_->log()->log_end_offset(), 600);
  EXPECT_EQ((*future)->log_end_offset(), 600);
  // New records of epoch 2 replace what was cut; the move ends with the same records.
  following_in = 2;
  ASSERT_TRUE(partition_->Update(State(2, following_in), 0).ok());
  for (int i = 60; i < 80; ++i) append(i * 10, 2, 10);
  ASSERT_TRUE(partition_->ReplaceLogWithFuture(*logs_, 8 << 10).ok());
  auto records = testing::ReadAll(*partition_->log());
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 800u);
  for (size_t i = 0; i < records->size(); ++i) {
    ASSERT_EQ((*records)[i].offset, static_cast<int64_t>(i));
    ASSERT_EQ((*records)[i].leader_epoch, i < 500 ? 0 : i < 600 ? 1 : 2) << i;
  }
  EXPECT_EQ(partition_->log()->leader_epoch_cache().Latest()->epoch, 2);
}

TEST_F(LogDirMoveTest, ACancelledMoveLeavesTheReplicaWhereItWas) {
  ASSERT_TRUE(partition_->Update(State(1, 0), 0).ok());
  for (int i = 0; i < 20; ++i) {
    std::string batch = testing::MakeBatch(10, "v", 1000, 100);
    ASSERT_TRUE(partition_->AppendRecordsToLeader(batch).ok());
  }
  const std::string source = logs_->dir_of(tp_);
  auto future = logs_->GetOrCreateFutureLog(tp_, OtherDir());
  ASSERT_TRUE(future.ok());
  partition_->AttachFutureLog(*future);
  ASSERT_TRUE(partition_->CopyToFutureLog(1 << 10).ok());
  partition_->DetachFutureLog();
  ASSERT_TRUE(logs_->DeleteFutureLog(tp_).ok());
  EXPECT_FALSE(partition_->ReplaceLogWithFuture(*logs_, 1 << 10).ok());
  EXPECT_EQ(logs_->dir_of(tp_), source);
  EXPECT_EQ(testing::ReadAll(*partition_->log())->size(), 200u);
}

}  // namespace
}  // namespace strata::broker
