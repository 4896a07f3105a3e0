#pragma once
// The watch on metadata.log.dir of a broker-only node (an observer of the metadata log;
// on a controller or combined node the Raft node itself stops on a failed metadata log):
// writes into a removed or failing directory may still succeed through files already
// open, so the directory itself is checked (LogDirMonitor). When
// it fails the node stops through on_fatal (exit code 70, server/main.cc), with one
// ERROR line naming the dir: a node never votes, leads or serves on metadata it cannot
// keep.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "base/logging.h"
#include "broker/lifecycle/log_dir_monitor.h"

namespace strata::server {

inline std::unique_ptr<broker::LogDirMonitor> WatchMetadataLogDir(const std::string& dir,
                                                                  std::function<void(const absl::Status&)> on_fatal) {
  return std::make_unique<broker::LogDirMonitor>(
      std::vector<broker::MonitoredDir>{{dir, ""}}, std::chrono::milliseconds(1000),
      [on_fatal = std::move(on_fatal)](const broker::MonitoredDir& failed, const absl::Status& why) {
        spdlog::error("metadata.log.dir {} failed, stopping: {}", failed.path, why.ToString());
        on_fatal(why);
      });
}

}  // namespace strata::server
