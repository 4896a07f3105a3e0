// LogDirMonitor: a healthy dir is never reported; a dir whose meta.properties went, or
// where a write fails (injected EIO), is reported once and then left alone.

#include "broker/lifecycle/log_dir_monitor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "storage/fault_injecting_file_ops.h"
#include "storage/meta_properties.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;

TEST(LogDirMonitor, AHealthyDirIsNeverReported) {
  testing::TempDir tmp;
  ASSERT_TRUE(storage::FormatDirectory(*storage::FileOps::Default(), tmp.Sub("a"), storage::NewBase64Uuid(), 1).ok());
  std::vector<std::string> reported;
  LogDirMonitor monitor({{tmp.Sub("a"), std::string(16, 'a')}}, 1h,
                        [&](const MonitoredDir& d, const absl::Status&) { reported.push_back(d.path); });
  monitor.CheckAll();
  monitor.CheckAll();
  EXPECT_TRUE(reported.empty());
  EXPECT_TRUE(monitor.offline().empty());
}

TEST(LogDirMonitor, ARemovedDirIsReportedOnce) {
  testing::TempDir tmp;
  std::string cluster = storage::NewBase64Uuid();
  for (const char* d : {"a", "b"}) ASSERT_TRUE(storage::FormatDirectory(*storage::FileOps::Default(), tmp.Sub(d), cluster, 1).ok());
  std::vector<std::string> reported;
  LogDirMonitor monitor({{tmp.Sub("a"), std::string(16, 'a')}, {tmp.Sub("b"), std::string(16, 'b')}}, 1h,
                        [&](const MonitoredDir& d, const absl::Status&) { reported.push_back(d.path); });
  std::filesystem::remove_all(tmp.Sub("b"));
  monitor.CheckAll();
  monitor.CheckAll();
  EXPECT_EQ(reported, std::vector<std::string>{tmp.Sub("b")});
  EXPECT_EQ(monitor.offline(), std::set<std::string>{tmp.Sub("b")});
}

TEST(LogDirMonitor, AFailingWriteMakesTheDirOffline) {
  testing::TempDir tmp;
  ASSERT_TRUE(storage::FormatDirectory(*storage::FileOps::Default(), tmp.Sub("a"), storage::NewBase64Uuid(), 1).ok());
  storage::FaultInjectingFileOps failing;
  std::vector<std::string> reported;
  LogDirMonitor monitor({{tmp.Sub("a"), std::string(16, 'a')}}, 1h,
                        [&](const MonitoredDir& d, const absl::Status&) { reported.push_back(d.path); }, &failing);
  monitor.CheckAll();
  EXPECT_TRUE(reported.empty());
  failing.AddRule({.path_substring = tmp.Sub("a"), .op = storage::FaultOp::kWrite, .error = EIO});
  monitor.CheckAll();
  EXPECT_EQ(reported, std::vector<std::string>{tmp.Sub("a")});
}

}  // namespace
}  // namespace strata::broker
