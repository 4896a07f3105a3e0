#include "storage/file_slice.h"

#include "absl/strings/str_cat.h"
#include "storage/errc.h"

namespace strata::storage {

absl::StatusOr<std::string> FileSlice::ReadAll() const {
  std::string data(size, '\0');
  if (size == 0) return data;
  auto n = file->Read(position, data.data(), size);
  if (!n.ok()) return n.status();
  if (*n != size) {
    return MakeError(Errc::kStorageError, absl::StrCat("short read of ", file->path(), ": ", *n, " of ", size,
                                                       " bytes at ", position));
  }
  return data;
}

}  // namespace strata::storage
