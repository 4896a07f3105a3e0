#include "broker/lifecycle/log_dir_monitor.h"

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
    mu_.Lock();  // released while checking
    while (!stopping_) {
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(interval_))) break;
      mu_.Unlock();
      CheckAll();
      mu_.Lock();
    }
    mu_.Unlock();
  });
}

LogDirMonitor::~LogDirMonitor() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
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
      absl::MutexLock lock(&mu_);
      if (offline_.count(dir.path)) continue;
    }
    absl::Status s = Check(dir);
    if (s.ok()) continue;
    {
      absl::MutexLock lock(&mu_);
      if (!offline_.insert(dir.path).second) continue;
    }
    spdlog::error("log dir {} is offline: {}", dir.path, s.ToString());
    on_offline_(dir, s);
  }
}

std::set<std::string> LogDirMonitor::offline() const {
  absl::MutexLock lock(&mu_);
  return offline_;
}

}  // namespace strata::broker
