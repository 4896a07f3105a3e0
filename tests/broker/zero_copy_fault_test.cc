// Faults injected into the zero-copy path: Listener sends file slices with
// File::SendFile, so a FaultInjectingFileOps rule on sendfile reaches it. An injected
// sendfile error, or a sendfile that stops short (the file seems to end), is a transfer
// failure: the slice's failure handler hears where the transfer stopped and why, the
// connection closes, and the server goes on serving. Through a LogManager the failure
// is re-read: a file that reads fine blames the socket, one that does not takes the
// log dir offline.

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "broker/network/listener.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/log_manager.h"
#include "storage/scheduler.h"
#include "tests/support/batches.h"
#include "tests/support/kafka_test_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
using testing::KafkaTestClient;

constexpr absl::string_view kHead = "HEAD";  // the response body before the slice

// One transfer failure as the slice's handler heard it.
struct Failure {
  uint64_t position = 0;
  uint64_t count = 0;
  absl::Status error;
};

class ZeroCopyFaultTest : public ::testing::Test {
 protected:
  void TearDown() override {
    server_.reset();
    scheduler_.Shutdown();
  }

  // Every request is answered with kHead followed by the slice `next_slice()` returns.
  void StartServer(std::function<storage::FileSlice()> next_slice) {
    auto server = Listener::Start(ListenerOptions{}, [next_slice](const auto&, auto, ApiResponder respond) {
      ApiResponse response;
      response.body = std::string(kHead);
      response.slices.push_back(next_slice());
      response.splices.push_back({kHead.size(), 0, response.slices[0].size});
      respond(std::optional<ApiResponse>(std::move(response)));
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  // What came back for one request (correlation id, head, slice bytes), shorter than
  // the frame's size when the server closed mid-frame; nullopt when nothing came.
  std::optional<std::string> Request() {
    KafkaTestClient client(server_->port());
    client.SendRaw(KafkaTestClient::Frame(18, 0, 7, ""));
    return client.ReadFrame();
  }

  // A file of n patterned bytes written through the fault-injecting FileOps.
  std::string WriteFile(const std::string& name, size_t n) {
    std::string contents(n, '\0');
    for (size_t i = 0; i < n; ++i) contents[i] = static_cast<char>('a' + i % 23);
    std::string path = tmp_.Sub(name);
    EXPECT_TRUE(storage::WriteFileAtomically(faults_, path, contents).ok());
    return contents;
  }

  // The whole of tmp_/name as a slice whose failures are recorded in failures_.
  storage::FileSlice SliceOf(const std::string& name) {
    auto file = faults_.Open(tmp_.Sub(name), storage::OpenMode::kRead);
    EXPECT_TRUE(file.ok()) << file.status();
    storage::FileSlice slice;
    slice.file = std::move(*file);
    slice.size = *slice.file->Size();
    slice.on_transfer_failure = std::make_shared<storage::TransferFailureHandler>(
        [this](const storage::FileSlice&, uint64_t position, uint64_t count, const absl::Status& error) {
          absl::MutexLock lock(&mu_);
          failures_.push_back({position, count, error});
        });
    return slice;
  }

  std::vector<Failure> failures() {
    absl::MutexLock lock(&mu_);
    return failures_;
  }

  testing::TempDir tmp_;
  storage::FaultInjectingFileOps faults_;
  storage::Scheduler scheduler_{1};
  std::unique_ptr<Listener> server_;
  absl::Mutex mu_;
  std::vector<Failure> failures_ ABSL_GUARDED_BY(mu_);
};

TEST_F(ZeroCopyFaultTest, AnInjectedSendFileErrorIsATransferFailureAndClosesOnlyThatConnection) {
  std::string contents = WriteFile("segment.log", 64 << 10);
  StartServer([this] { return SliceOf("segment.log"); });
  faults_.AddRule({"segment.log", storage::FaultOp::kSendFile, 0, UINT64_MAX, EIO, 1});

  auto partial = Request();
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->size(), 4 + kHead.size()) << "the correlation id and the head, none of the slice";
  ASSERT_TRUE(::strata::testing::WaitUntil([&] { return server_->transfer_failures() == 1; }, 10s));
  EXPECT_EQ(faults_.faults_fired(), 1);
  EXPECT_EQ(server_->bytes_sent_from_files(), 0);
  std::vector<Failure> seen = failures();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].position, 0u);
  EXPECT_EQ(seen[0].count, contents.size());
  EXPECT_EQ(storage::ErrnoOf(seen[0].error), EIO) << seen[0].error;
  EXPECT_NE(seen[0].error.message().find("sendfile (injected)"), absl::string_view::npos) << seen[0].error;

  // The rule fired its once: the next connection gets the slice whole, through the seam.
  auto whole = Request();
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->substr(4), absl::StrCat(kHead, contents));
  // The client can hold every byte before the server thread counts the send.
  EXPECT_TRUE(::strata::testing::WaitUntil(
      [&] { return server_->bytes_sent_from_files() == static_cast<int64_t>(contents.size()); }, 10s))
      << server_->bytes_sent_from_files();
  EXPECT_EQ(server_->transfer_failures(), 1);
  EXPECT_EQ(failures().size(), 1u);
}

TEST_F(ZeroCopyFaultTest, ASendFileThatStopsShortReportsWhereTheTransferStopped) {
  std::string contents = WriteFile("segment.log", 10'000);
  StartServer([this] { return SliceOf("segment.log"); });
  // sendfile sends the bytes before 1000, then finds nothing more (as if the file ended).
  faults_.AddRule({"segment.log", storage::FaultOp::kSendFile, 1000, UINT64_MAX, 0, -1});

  auto partial = Request();
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->substr(4), absl::StrCat(kHead, contents.substr(0, 1000)));
  ASSERT_TRUE(::strata::testing::WaitUntil([&] { return server_->transfer_failures() == 1; }, 10s));
  EXPECT_EQ(server_->bytes_sent_from_files(), 1000);
  std::vector<Failure> seen = failures();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].position, 1000u);
  EXPECT_EQ(seen[0].count, contents.size() - 1000);
  EXPECT_EQ(storage::ErrcOf(seen[0].error), storage::Errc::kStorageError) << seen[0].error;
  EXPECT_NE(seen[0].error.message().find("ended at 1000"), absl::string_view::npos) << seen[0].error;
}

// A log's slices carry the LogManager's failure handler: the re-read decides.
class ZeroCopyLogFaultTest : public ZeroCopyFaultTest {
 protected:
  void SetUp() override {
    storage::LogManagerOptions options;
    options.log_dirs = {tmp_.Sub("logs")};
    options.cluster_id = "test-cluster";
    options.node_id = 1;
    options.scheduler = &scheduler_;
    options.ops = &faults_;
    auto logs = storage::LogManager::Open(options);
    ASSERT_TRUE(logs.ok()) << logs.status();
    logs_ = std::move(*logs);
    auto log = logs_->GetOrCreateLog({"orders", 0});
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = *log;
    std::string batch = ::strata::testing::MakeBatch(50, "v", 1000, 100);
    ASSERT_TRUE(log_->AppendAsLeader(batch, 0).ok());
    StartServer([this] {
      auto read = log_->Read(0, 1 << 20, log_->log_end_offset(), true);
      EXPECT_TRUE(read.ok()) << read.status();
      return read->records;
    });
  }
  void TearDown() override {
    server_.reset();
    ASSERT_TRUE(scheduler_.WaitIdle(10s));
    logs_.reset();
    ZeroCopyFaultTest::TearDown();
  }

  std::unique_ptr<storage::LogManager> logs_;
  storage::Log* log_ = nullptr;
};

TEST_F(ZeroCopyLogFaultTest, AnInjectedSendFileErrorOnAReadableSegmentBlamesTheSocket) {
  faults_.AddRule({".log", storage::FaultOp::kSendFile, 0, UINT64_MAX, EIO, 1});
  auto partial = Request();
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->size(), 4 + kHead.size());
  ASSERT_TRUE(::strata::testing::WaitUntil([&] { return logs_->transfer_checker().rereads() == 1; }, 10s));
  EXPECT_EQ(server_->transfer_failures(), 1);
  EXPECT_EQ(logs_->transfer_checker().socket_side(), 1);
  EXPECT_EQ(logs_->online_dirs().size(), 1u);
}

TEST_F(ZeroCopyLogFaultTest, AnInjectedSendFileErrorOnAnUnreadableSegmentTakesTheLogDirOffline) {
  faults_.AddRule({".log", storage::FaultOp::kSendFile, 0, UINT64_MAX, EIO, -1});
  // Past the batch header the fetch reads: only the re-read of the slice goes there.
  faults_.AddRule({".log", storage::FaultOp::kRead, 100, UINT64_MAX, EIO, -1});
  (void)Request();
  ASSERT_TRUE(::strata::testing::WaitUntil([&] { return logs_->online_dirs().empty(); }, 10s));
  EXPECT_EQ(server_->transfer_failures(), 1);
  EXPECT_EQ(logs_->transfer_checker().file_side(), 1);
  std::string reason(logs_->failure_channel().OfflineReason(tmp_.Sub("logs")).message());
  EXPECT_NE(reason.find("zero-copy send"), std::string::npos) << reason;
  EXPECT_NE(reason.find("sendfile (injected)"), std::string::npos) << reason;
}

}  // namespace
}  // namespace strata::broker
