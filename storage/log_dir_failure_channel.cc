#include "storage/log_dir_failure_channel.h"

#include "base/logging.h"

#include "base/check.h"

namespace strata::storage {

void LogDirFailureChannel::RegisterDir(const std::string& dir) {
  absl::MutexLock lock(&mu_);
  dirs_.try_emplace(dir, std::make_unique<DirState>());
}

const std::atomic<bool>* LogDirFailureChannel::OfflineFlag(const std::string& dir) const {
  absl::MutexLock lock(&mu_);
  auto it = dirs_.find(dir);
  ABSL_CHECK(it != dirs_.end()) << "log dir " << dir << " was never registered";
  return &it->second->offline;
}

bool LogDirFailureChannel::MaybeAddOfflineLogDir(const std::string& dir, const absl::Status& error) {
  std::vector<Listener> listeners;
  {
    absl::MutexLock lock(&mu_);
    ++reports_;
    auto it = dirs_.find(dir);
    ABSL_CHECK(it != dirs_.end()) << "log dir " << dir << " was never registered";
    if (it->second->offline.exchange(true)) return false;
    it->second->reason = error;
    listeners = listeners_;
  }
  spdlog::error("Log dir {} is offline: {}", dir, error.ToString());
  for (const auto& listener : listeners) listener(dir, error);
  return true;
}

void LogDirFailureChannel::AddListener(Listener listener) {
  absl::MutexLock lock(&mu_);
  listeners_.push_back(std::move(listener));
}

bool LogDirFailureChannel::IsOffline(const std::string& dir) const {
  absl::MutexLock lock(&mu_);
  auto it = dirs_.find(dir);
  return it != dirs_.end() && it->second->offline.load();
}

std::vector<std::string> LogDirFailureChannel::OfflineDirs() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [dir, state] : dirs_) {
    if (state->offline.load()) out.push_back(dir);
  }
  return out;
}

std::vector<std::string> LogDirFailureChannel::Dirs() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [dir, state] : dirs_) out.push_back(dir);
  return out;
}

absl::Status LogDirFailureChannel::OfflineReason(const std::string& dir) const {
  absl::MutexLock lock(&mu_);
  auto it = dirs_.find(dir);
  return it == dirs_.end() ? absl::OkStatus() : it->second->reason;
}

int64_t LogDirFailureChannel::reports() const {
  absl::MutexLock lock(&mu_);
  return reports_;
}

}  // namespace strata::storage
