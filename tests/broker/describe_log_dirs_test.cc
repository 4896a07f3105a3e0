// DescribeLogDirs over a real LogManager of two log dirs: each dir by its absolute path
// with the partitions in it (their sizes), the volume's bytes, a request naming
// partitions (one not here left out), and an offline dir answered KAFKA_STORAGE_ERROR
// with nothing else.

#include <gtest/gtest.h>

#include <filesystem>

#include "absl/status/status.h"
#include "broker/handlers/describe_log_dirs_handler.h"
#include "proto/kafka/error_code.h"
#include "storage/log_manager.h"
#include "storage/scheduler.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;

class DescribeLogDirsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::LogManagerOptions options;
    options.log_dirs = {tmp_.Sub("a"), tmp_.Sub("b")};
    options.cluster_id = "test-cluster";
    options.node_id = 1;
    options.scheduler = &scheduler_;
    auto logs = storage::LogManager::Open(options);
    ASSERT_TRUE(logs.ok()) << logs.status();
    logs_ = std::move(*logs);
    // New logs go to the emptier dir: orders-0 and orders-1 land in different ones.
    for (int32_t p : {0, 1}) {
      auto log = logs_->GetOrCreateLog({"orders", p});
      ASSERT_TRUE(log.ok()) << log.status();
      std::string records = testing::MakeBatch(5 * (p + 1), "r");
      ASSERT_TRUE((*log)->AppendAsLeader(records, 0).ok());
    }
    ASSERT_NE(logs_->dir_of({"orders", 0}), logs_->dir_of({"orders", 1}));
  }
  void TearDown() override {
    (void)logs_->Shutdown();
    scheduler_.Shutdown();
  }

  // The result of the dir holding tp.
  static const kafka::DescribeLogDirsResponse::Result* ResultFor(const kafka::DescribeLogDirsResponse& response,
                                                                 const std::string& dir) {
    for (const auto& r : response.results) {
      if (r.log_dir == std::filesystem::absolute(dir).lexically_normal().string()) return &r;
    }
    return nullptr;
  }

  testing::TempDir tmp_;
  storage::Scheduler scheduler_{1};
  std::unique_ptr<storage::LogManager> logs_;
};

TEST_F(DescribeLogDirsTest, EveryDirWithItsPartitionsAndTheirSizes) {
  kafka::DescribeLogDirsResponse response = DescribeLogDirs(*logs_, {});
  ASSERT_EQ(response.results.size(), 2u);
  for (int32_t p : {0, 1}) {
    SCOPED_TRACE(p);
    const auto* result = ResultFor(response, logs_->dir_of({"orders", p}));
    ASSERT_NE(result, nullptr);
    EXPECT_EQ(result->error_code, 0);
    ASSERT_EQ(result->topics.size(), 1u);
    EXPECT_EQ(result->topics[0].name, "orders");
    ASSERT_EQ(result->topics[0].partitions.size(), 1u);
    const auto& partition = result->topics[0].partitions[0];
    EXPECT_EQ(partition.partition_index, p);
    EXPECT_EQ(partition.partition_size, logs_->GetLog({"orders", p})->size_in_bytes());
    EXPECT_GT(partition.partition_size, 0);
    EXPECT_EQ(partition.offset_lag, 0);
    EXPECT_FALSE(partition.is_future_key);
    EXPECT_GT(result->total_bytes, 0);
    EXPECT_GE(result->total_bytes, result->usable_bytes);
    EXPECT_GE(result->usable_bytes, 0);
  }
}

TEST_F(DescribeLogDirsTest, NamedPartitionsOnlyAndOneNotHereLeftOut) {
  kafka::DescribeLogDirsRequest request;
  request.topics.emplace();
  request.topics->push_back({"orders", {1, 7}});
  kafka::DescribeLogDirsResponse response = DescribeLogDirs(*logs_, request);
  ASSERT_EQ(response.results.size(), 2u);  // every dir, even one holding none of them
  const auto* with = ResultFor(response, logs_->dir_of({"orders", 1}));
  ASSERT_NE(with, nullptr);
  ASSERT_EQ(with->topics.size(), 1u);
  ASSERT_EQ(with->topics[0].partitions.size(), 1u);
  EXPECT_EQ(with->topics[0].partitions[0].partition_index, 1);
  const auto* without = ResultFor(response, logs_->dir_of({"orders", 0}));
  ASSERT_NE(without, nullptr);
  EXPECT_TRUE(without->topics.empty());
}

TEST_F(DescribeLogDirsTest, AnOfflineDirIsAStorageErrorWithNothingElse) {
  std::string failed = logs_->dir_of({"orders", 0});
  logs_->failure_channel().MaybeAddOfflineLogDir(failed, absl::DataLossError("test: EIO"));
  ASSERT_TRUE(testing::WaitUntil([&] { return logs_->online_dirs().size() == 1; }, std::chrono::seconds(10)));
  kafka::DescribeLogDirsResponse response = DescribeLogDirs(*logs_, {});
  const auto* offline = ResultFor(response, failed);
  ASSERT_NE(offline, nullptr);
  EXPECT_EQ(offline->error_code, static_cast<int16_t>(kafka::ErrorCode::kKafkaStorageError));
  EXPECT_TRUE(offline->topics.empty());
  EXPECT_EQ(offline->total_bytes, -1);
  const auto* online = ResultFor(response, logs_->dir_of({"orders", 1}));
  ASSERT_NE(online, nullptr);
  EXPECT_EQ(online->error_code, 0);
  EXPECT_EQ(online->topics.size(), 1u);
}

}  // namespace
}  // namespace strata::broker
