#include "broker/log_dir_monitor.h"

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "storage/meta_properties.h"

namespace strata::broker {

namespace {
constexpr char kProbeFile[] = ".strata-probe";
}  // namespace

LogDirMonitor::LogDirMonitor(std::vector<MonitoredDir> dirs, std::chrono::milliseconds interval,
                             std::function<void(const MonitoredDir&, const absl::Status&)> on_offline,
                             storage::FileOps* ops)
    : dirs_(std::move(dirs)), interval_(interval), on_offline_(std::move(on_offline)), ops_(ops) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      wake_.wait_for(lock, interval_, [&] { return stopping_; });
      if (stopping_) return;
      lock.unlock();
      CheckAll();
      lock.lock();
    }
  });
}

LogDirMonitor::~LogDirMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

absl::Status LogDirMonitor::Check(const MonitoredDir& dir) {
  STRATA_ASSIGN_OR_RETURN(bool exists, ops_->Exists(storage::JoinPath(dir.path, storage::kMetaPropertiesFileName)));
  if (!exists) return absl::NotFoundError(absl::StrCat(dir.path, "/meta.properties is gone"));
  STRATA_ASSIGN_OR_RETURN(auto probe, ops_->Open(storage::JoinPath(dir.path, kProbeFile), storage::OpenMode::kCreateTruncate));
  STRATA_RETURN_IF_ERROR(probe->Write(0, "probe"));
  return probe->Sync();
}

void LogDirMonitor::CheckAll() {
  for (const MonitoredDir& dir : dirs_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (offline_.count(dir.path)) continue;
    }
    absl::Status s = Check(dir);
    if (s.ok()) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!offline_.insert(dir.path).second) continue;
    }
    spdlog::error("log dir {} is offline: {}", dir.path, s.ToString());
    on_offline_(dir, s);
  }
}

std::set<std::string> LogDirMonitor::offline() const {
  std::lock_guard<std::mutex> lock(mu_);
  return offline_;
}

}  // namespace strata::broker
