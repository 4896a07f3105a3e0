#include "storage/transfer_failure_checker.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "storage/errc.h"

namespace strata::storage {

std::shared_ptr<TransferFailureHandler> TransferFailureChecker::HandlerFor(const std::string& log_dir) {
  std::weak_ptr<TransferFailureChecker> weak = weak_from_this();
  return std::make_shared<TransferFailureHandler>(
      [weak, log_dir](const FileSlice& slice, uint64_t position, uint64_t count, const absl::Status& error) {
        if (auto self = weak.lock()) self->OnFailure(log_dir, slice, position, count, error);
      });
}

void TransferFailureChecker::OnFailure(const std::string& log_dir, const FileSlice& slice, uint64_t position,
                                       uint64_t count, const absl::Status& error) {
  {
    absl::MutexLock lock(&mu_);
    if (!rereading_.insert(log_dir).second) return;  // one re-read at a time per dir
  }
  std::weak_ptr<TransferFailureChecker> weak = weak_from_this();
  auto scheduled = scheduler_->Schedule(absl::StrCat("reread-after-transfer-failure ", log_dir),
                                        std::chrono::milliseconds(0),
                                        [weak, log_dir, slice, position, count, error] {
                                          if (auto self = weak.lock()) self->Reread(log_dir, slice, position, count, error);
                                        });
  if (!scheduled.ok()) {
    absl::MutexLock lock(&mu_);
    rereading_.erase(log_dir);
  }
}

void TransferFailureChecker::Reread(const std::string& log_dir, const FileSlice& slice, uint64_t position,
                                    uint64_t count, const absl::Status& error) {
  std::vector<char> buffer(static_cast<size_t>(std::min<uint64_t>(count, 1 << 20)));
  uint64_t done = 0;
  absl::Status read_error;
  bool short_read = false;
  while (done < count) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(count - done, buffer.size()));
    auto n = slice.file->Read(position + done, buffer.data(), want);
    if (!n.ok()) {
      read_error = n.status();
      break;
    }
    if (*n == 0) {
      short_read = true;
      break;
    }
    done += *n;
  }
  const std::string what = absl::StrCat("a zero-copy send of ", count, " bytes of ", slice.file->path(), " at ",
                                        position, " failed (", error.message(), ")");
  if (!read_error.ok()) {
    ++file_side_;
    channel_->MaybeAddOfflineLogDir(
        log_dir, MakeError(Errc::kStorageError, absl::StrCat(what, "; re-reading it failed: ", read_error.message())));
  } else if (short_read) {
    ++inconclusive_;
    spdlog::debug("{}; re-read ended early at {}: inconclusive (truncated or deleted meanwhile)", what,
                  position + done);
  } else {
    ++socket_side_;
    spdlog::debug("{}; the region re-reads fully: the socket failed", what);
  }
  ++rereads_;  // counted once its outcome is
  absl::MutexLock lock(&mu_);
  rereading_.erase(log_dir);
}

}  // namespace strata::storage
