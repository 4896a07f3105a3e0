#pragma once
// TransferFailureChecker: what happens after a zero-copy send of a FileSlice failed
// (ARCHITECTURE.md section 6, seed 000). sendfile(2) does not say which side failed —
// the socket or the file — so the checker re-reads the region the transfer was about
// to send, on the background scheduler, at most one re-read at a time per log dir:
//   * the region reads fully: the socket failed; nothing to do;
//   * end of file, no progress, or the segment closed meanwhile: inconclusive (a
//     truncation or deletion raced the send); nothing to do;
//   * any other read error: the log dir goes offline through the failure channel, with
//     the failed transfer in the reason.
// LogManager installs one handler per log (its dir); counts are kept for tests and
// metrics.
// Thread-safe.

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "storage/file_slice.h"
#include "storage/log_dir_failure_channel.h"
#include "storage/scheduler.h"

namespace strata::storage {

class TransferFailureChecker : public std::enable_shared_from_this<TransferFailureChecker> {
 public:
  TransferFailureChecker(Scheduler* scheduler, LogDirFailureChannel* channel)
      : scheduler_(scheduler), channel_(channel) {}

  // The handler for the slices of logs in log_dir.
  std::shared_ptr<TransferFailureHandler> HandlerFor(const std::string& log_dir);

  // Re-reads finished (each counted in one of the three outcomes first).
  int64_t rereads() const { return rereads_.load(); }
  int64_t socket_side() const { return socket_side_.load(); }
  int64_t inconclusive() const { return inconclusive_.load(); }
  int64_t file_side() const { return file_side_.load(); }

 private:
  void OnFailure(const std::string& log_dir, const FileSlice& slice, uint64_t position, uint64_t count,
                 const absl::Status& error);
  void Reread(const std::string& log_dir, const FileSlice& slice, uint64_t position, uint64_t count,
              const absl::Status& error);

  Scheduler* const scheduler_;
  LogDirFailureChannel* const channel_;
  absl::Mutex mu_;
  std::set<std::string> rereading_ ABSL_GUARDED_BY(mu_);  // log dirs with a re-read pending or running
  std::atomic<int64_t> rereads_{0}, socket_side_{0}, inconclusive_{0}, file_side_{0};
};

}  // namespace strata::storage
