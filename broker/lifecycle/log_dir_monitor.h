#pragma once
// LogDirMonitor: notices a log directory that failed without waiting for the broker's
// next write into it: every interval it checks each of the broker's log.dirs (the
// directory exists, meta.properties is still there, and a probe file can be written
// and fsynced). A directory that fails is reported once, through on_offline, and never
// checked again (Kafka keeps an offline dir offline until the broker restarts). The
// storage engine's own I/O errors (LogDirFailureChannel) report through the same
// callback once partitions are served (issues 5 and 6).
// Thread-safe.

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/status.h"
#include "storage/file_ops.h"

namespace strata::broker {

struct MonitoredDir {
  std::string path;
  std::string directory_id;  // 16 bytes
};

class LogDirMonitor {
 public:
  LogDirMonitor(std::vector<MonitoredDir> dirs, std::chrono::milliseconds interval,
                std::function<void(const MonitoredDir&, const absl::Status&)> on_offline,
                storage::FileOps* ops = storage::FileOps::Default());
  ~LogDirMonitor();

  // One round of checks now (the thread does this every interval).
  void CheckAll();
  std::set<std::string> offline() const;  // paths

 private:
  absl::Status Check(const MonitoredDir& dir);

  const std::vector<MonitoredDir> dirs_;
  const std::chrono::milliseconds interval_;
  const std::function<void(const MonitoredDir&, const absl::Status&)> on_offline_;
  storage::FileOps* const ops_;
  mutable absl::Mutex mu_;  // the thread waits on stopping_ between checks
  std::set<std::string> offline_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace strata::broker
