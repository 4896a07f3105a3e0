#pragma once
// ChunkedReader: reads a file front to back through one buffer, so a scan costs one
// read per 1 MiB chunk rather than two per batch (recovery, index rebuild, the
// cleaner). Not thread-safe.

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "storage/file_ops.h"

namespace strata::storage {

class ChunkedReader {
 public:
  static constexpr size_t kChunk = 1 << 20;
  ChunkedReader(File& file, uint64_t end) : file_(file), end_(end) {}
  // [position, position + n), or fewer bytes at the end of the file. The view lives
  // until the next call.
  absl::StatusOr<absl::string_view> Get(uint64_t position, size_t n) {
    if (position < start_ || position + n > start_ + buffer_.size()) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(n, kChunk), end_ - std::min(end_, position)));
      buffer_.resize(want);
      STRATA_ASSIGN_OR_RETURN(size_t got, file_.Read(position, buffer_.data(), want));
      buffer_.resize(got);
      start_ = position;
    }
    absl::string_view view(buffer_);
    return view.substr(position - start_, n);
  }

 private:
  File& file_;
  const uint64_t end_;
  std::string buffer_;
  uint64_t start_ = 0;
};

}  // namespace strata::storage
