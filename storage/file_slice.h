#pragma once
// What Log::Read returns: a byte range of a segment file that the network layer can
// send with sendfile(2) without copying. The slice keeps the file open, so a segment
// deleted or closed meanwhile still reads. A transfer that fails hands the slice, the
// position reached, the count and the error to the slice's failure handler (the log
// dir failure check of ARCHITECTURE.md section 6 hangs there). Copyable; thread-safe
// to read from several threads.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/file_ops.h"

namespace strata::storage {

struct FileSlice;
// (slice, file position where the transfer failed, bytes it was about to send, error)
using TransferFailureHandler =
    std::function<void(const FileSlice& slice, uint64_t position, uint64_t count, const absl::Status& error)>;

struct FileSlice {
  std::shared_ptr<File> file;
  uint64_t position = 0;
  uint64_t size = 0;
  std::shared_ptr<TransferFailureHandler> on_transfer_failure;

  bool empty() const { return size == 0; }
  // Copies the slice's bytes into memory (TLS, tests, tools). A short read is an
  // error: the slice promised those bytes.
  absl::StatusOr<std::string> ReadAll() const;
  // The same into a caller's buffer, reusing its capacity (no allocation once warm).
  absl::Status ReadInto(std::string& buffer) const;
};

}  // namespace strata::storage
