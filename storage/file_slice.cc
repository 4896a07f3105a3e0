#include "storage/file_slice.h"

#include "absl/strings/str_cat.h"
#include "storage/errc.h"

namespace strata::storage {

absl::StatusOr<std::string> FileSlice::ReadAll() const {
  std::string data;
  if (absl::Status s = ReadInto(data); !s.ok()) return s;
  return data;
}

absl::Status FileSlice::ReadInto(std::string& buffer) const {
  buffer.resize(size);
  if (size == 0) return absl::OkStatus();
  auto n = file->Read(position, buffer.data(), size);
  if (!n.ok()) return n.status();
  if (*n != size) {
    return MakeError(Errc::kStorageError, absl::StrCat("short read of ", file->path(), ": ", *n, " of ", size,
                                                       " bytes at ", position));
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
