// TransferFailureChecker on its own: after a failed zero-copy send it re-reads the region
// on the scheduler. A region that re-reads fully means the socket failed (counted, the
// dir stays online); while a dir's re-read is pending or running, further failures in
// that dir start none (one re-read at a time per dir), other dirs still get theirs, and
// once it finished the next failure re-reads again. (The file-side and inconclusive
// outcomes over a real socket: tests/broker/data_path_test.cc.)

#include "storage/transfer_failure_checker.h"

#include <gtest/gtest.h>

#include <future>

#include "storage/file_ops.h"
#include "storage/log_dir_failure_channel.h"
#include "storage/scheduler.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::storage {
namespace {

using namespace std::chrono_literals;

class TransferFailureCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& dir : {dir_a_, dir_b_}) channel_.RegisterDir(dir);
  }
  void TearDown() override { scheduler_.Shutdown(); }

  // A slice of `size` bytes of a new file that holds them all.
  FileSlice SliceOf(const std::string& name, uint64_t size) {
    auto file = FileOps::Default()->Open(tmp_.Sub(name), OpenMode::kCreateTruncate);
    EXPECT_TRUE(file.ok()) << file.status();
    EXPECT_TRUE((*file)->Write(0, std::string(size, 'r')).ok());
    FileSlice slice;
    slice.file = std::shared_ptr<File>(std::move(*file));
    slice.position = 0;
    slice.size = size;
    return slice;
  }
  // What the server does when sendfile fails `sent` bytes into the slice.
  static void Fail(TransferFailureHandler& handler, const FileSlice& slice, uint64_t sent) {
    handler(slice, slice.position + sent, slice.size - sent, absl::UnavailableError("sendfile: Broken pipe"));
  }
  // Blocks the scheduler's only thread until the returned promise is set, so that
  // re-reads scheduled meanwhile stay pending.
  std::shared_ptr<std::promise<void>> BlockScheduler() {
    auto release = std::make_shared<std::promise<void>>();
    auto started = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    EXPECT_TRUE(scheduler_.Schedule("block", 0ms, [started, released] {
                            started->set_value();
                            released.wait();
                          }).ok());
    started->get_future().wait();
    return release;
  }

  testing::TempDir tmp_;
  const std::string dir_a_ = tmp_.Sub("a"), dir_b_ = tmp_.Sub("b");
  Scheduler scheduler_{1};
  LogDirFailureChannel channel_;
  std::shared_ptr<TransferFailureChecker> checker_ = std::make_shared<TransferFailureChecker>(&scheduler_, &channel_);
};

TEST_F(TransferFailureCheckerTest, ARegionThatRereadsFullyMeansTheSocketFailedAndTheDirStaysOnline) {
  FileSlice slice = SliceOf("a.log", 3 << 20);  // more than the 1 MiB re-read buffer
  Fail(*checker_->HandlerFor(dir_a_), slice, 4096);
  ASSERT_TRUE(testing::WaitUntil([&] { return checker_->rereads() == 1; }, 10s));
  EXPECT_EQ(checker_->socket_side(), 1);
  EXPECT_EQ(checker_->inconclusive(), 0);
  EXPECT_EQ(checker_->file_side(), 0);
  EXPECT_FALSE(channel_.IsOffline(dir_a_));
  EXPECT_EQ(channel_.reports(), 0);
}

TEST_F(TransferFailureCheckerTest, OneRereadAtATimePerLogDir) {
  FileSlice in_a = SliceOf("a.log", 4096), also_in_a = SliceOf("a2.log", 4096), in_b = SliceOf("b.log", 4096);
  auto handler_a = checker_->HandlerFor(dir_a_);
  auto release = BlockScheduler();
  Fail(*handler_a, in_a, 0);
  Fail(*handler_a, also_in_a, 100);  // dir a's re-read is pending: none for this one
  Fail(*handler_a, in_a, 200);
  Fail(*checker_->HandlerFor(dir_b_), in_b, 0);  // another dir: a re-read of its own
  EXPECT_EQ(scheduler_.pending(), 2u) << "one re-read pending per dir";
  release->set_value();
  ASSERT_TRUE(scheduler_.WaitIdle(10s));
  EXPECT_EQ(checker_->rereads(), 2);
  EXPECT_EQ(checker_->socket_side(), 2);
  // Dir a's re-read is over: its next failure is re-read again.
  Fail(*handler_a, also_in_a, 0);
  ASSERT_TRUE(testing::WaitUntil([&] { return checker_->rereads() == 3; }, 10s));
  ASSERT_TRUE(scheduler_.WaitIdle(10s));
  EXPECT_EQ(checker_->rereads(), 3);
  EXPECT_EQ(checker_->socket_side(), 3);
  EXPECT_TRUE(channel_.OfflineDirs().empty());
}

}  // namespace
}  // namespace strata::storage
