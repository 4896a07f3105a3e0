#pragma once
// LogDirFailureChannel: where any I/O error on a log dir's files is reported. The first
// report for a dir marks it offline (an atomic flag every log of the dir checks before
// touching the disk), logs one ERROR and calls the listeners once; later reports for
// that dir are counted and otherwise ignored. A dir never comes back online in a
// running process.
// Thread-safe. Listeners run on the reporting thread while no storage lock of the
// channel is held; they must not block (schedule work instead).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace strata::storage {

class LogDirFailureChannel {
 public:
  using Listener = std::function<void(const std::string& dir, const absl::Status& error)>;

  // Registers a dir (online). Must precede reports for it.
  void RegisterDir(const std::string& dir);
  // The flag logs of dir check; valid for the channel's lifetime.
  const std::atomic<bool>* OfflineFlag(const std::string& dir) const;
  // Marks dir offline; true for the first report only.
  bool MaybeAddOfflineLogDir(const std::string& dir, const absl::Status& error);
  void AddListener(Listener listener);

  bool IsOffline(const std::string& dir) const;
  std::vector<std::string> OfflineDirs() const;
  std::vector<std::string> Dirs() const;
  // The error that took dir offline (OK while online).
  absl::Status OfflineReason(const std::string& dir) const;
  int64_t reports() const;

 private:
  struct DirState {
    std::atomic<bool> offline{false};
    absl::Status reason;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<DirState>> dirs_ ABSL_GUARDED_BY(mu_);
  std::vector<Listener> listeners_ ABSL_GUARDED_BY(mu_);
  int64_t reports_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::storage
