#include "storage/index_file.h"

#include <cstring>

#include "base/check.h"
#include "base/status_macros.h"

namespace strata::storage {

absl::StatusOr<std::unique_ptr<IndexFile>> IndexFile::Open(FileOps& ops, const std::string& path,
                                                           size_t entry_size, size_t max_bytes, bool writable) {
  ABSL_CHECK_GT(entry_size, 0u);
  std::unique_ptr<IndexFile> index(new IndexFile(ops, path, entry_size));
  STRATA_ASSIGN_OR_RETURN(index->file_, ops.Open(path, OpenMode::kCreate));
  STRATA_ASSIGN_OR_RETURN(uint64_t length, index->file_->Size());
  size_t whole = static_cast<size_t>(length) / entry_size * entry_size;
  STRATA_RETURN_IF_ERROR(index->Remap(whole));
  // Count entries: real entries are never all zero and come first, so the count is
  // where the all-zero tail that preallocation left begins (found by bisection, which
  // touches few pages of a large preallocated file). A zero entry among real ones is
  // corruption that SanityCheck of the typed index reports.
  auto is_zero = [&](size_t i) {
    const char* e = index->region_->data() + i * entry_size;
    for (size_t b = 0; b < entry_size; ++b) {
      if (e[b] != 0) return false;
    }
    return true;
  };
  size_t lo = 0, hi = whole / entry_size;  // entries [0, lo) are real; [hi, end) are zero
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (is_zero(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  index->entries_ = lo;
  if (writable) {
    STRATA_RETURN_IF_ERROR(index->MakeWritable(max_bytes));
  } else if (whole != length || lo * entry_size != whole) {
    STRATA_RETURN_IF_ERROR(index->MakeReadOnly());
  }
  index->file_.reset();  // the mapping stays; the descriptor is opened again when needed
  return index;
}

absl::Status IndexFile::EnsureOpen() {
  if (file_ != nullptr) return absl::OkStatus();
  STRATA_ASSIGN_OR_RETURN(file_, ops_->Open(path_, OpenMode::kReadWrite));
  return absl::OkStatus();
}

absl::Status IndexFile::Remap(size_t bytes) {
  region_.reset();
  STRATA_RETURN_IF_ERROR(EnsureOpen());
  STRATA_ASSIGN_OR_RETURN(region_, file_->Map(bytes));
  capacity_bytes_ = bytes;
  return absl::OkStatus();
}

void IndexFile::Append(const char* entry) {
  ABSL_CHECK(writable_) << path_;
  ABSL_CHECK(!full()) << path_;
  region_->Store(entries_ * entry_size_, absl::string_view(entry, entry_size_));
  dirty_ = true;
  ++entries_;
}

void IndexFile::TruncateToEntries(size_t n) {
  if (n >= entries_) return;
  if (writable_) {
    region_->Zero(n * entry_size_, (entries_ - n) * entry_size_);
    dirty_ = true;
  }
  entries_ = n;
}

absl::Status IndexFile::Flush() {
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<File> file, StartFlush());
  return file != nullptr ? file->Sync() : absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<File>> IndexFile::StartFlush() {
  if (!dirty_) return std::shared_ptr<File>();
  // An fdatasync through any descriptor of the file covers the stores to its mapping
  // (they are the file's pages): a new one does.
  STRATA_RETURN_IF_ERROR(EnsureOpen());
  dirty_ = false;
  return std::move(file_);  // closed when the caller's sync is done
}

absl::Status IndexFile::MakeReadOnly() {
  size_t bytes = entries_ * entry_size_;
  // No sync here: the entries stay dirty and the next Flush makes them durable.
  region_.reset();
  STRATA_RETURN_IF_ERROR(EnsureOpen());
  STRATA_RETURN_IF_ERROR(file_->Truncate(bytes));
  STRATA_RETURN_IF_ERROR(Remap(bytes));
  file_.reset();
  writable_ = false;
  return absl::OkStatus();
}

absl::Status IndexFile::MakeWritable(size_t max_bytes) {
  size_t bytes = max_bytes / entry_size_ * entry_size_;
  if (bytes < entries_ * entry_size_) bytes = entries_ * entry_size_;
  region_.reset();
  STRATA_RETURN_IF_ERROR(EnsureOpen());
  // Cutting the file to its entries first makes the kernel hand back zero pages for
  // the rest (stale entries from before a truncation must not reappear).
  STRATA_RETURN_IF_ERROR(file_->Truncate(entries_ * entry_size_));
  STRATA_RETURN_IF_ERROR(file_->Truncate(bytes));
  STRATA_RETURN_IF_ERROR(Remap(bytes));
  file_.reset();
  writable_ = true;
  return absl::OkStatus();
}

absl::Status IndexFile::Rename(FileOps& ops, const std::string& new_path) {
  STRATA_RETURN_IF_ERROR(ops.Rename(path_, new_path));
  path_ = new_path;
  return absl::OkStatus();
}

absl::Status IndexFile::Close() {
  absl::Status status = writable_ ? MakeReadOnly() : absl::OkStatus();
  region_.reset();
  file_.reset();
  return status;
}

}  // namespace strata::storage
