#include "storage/checksummed_object.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/bytes.h"
#include "storage/crc32c.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

constexpr uint32_t kMagic = 0x5354524F;  // "STRO"
constexpr size_t kTailBytes = 4 + 8 + 4 + 4 + 4;

absl::Status RemoteError(const std::string& path, absl::string_view what) {
  return MakeError(Errc::kRemoteStorageError, absl::StrCat("remote object ", path, ": ", what));
}

// A local or remote file operation failed: the remote tier's error, with the cause.
absl::Status RemoteIo(const std::string& path, const absl::Status& cause) {
  return RemoteError(path, cause.message());
}

struct Footer {
  uint32_t chunk_bytes = 0;
  uint64_t data_length = 0;
  std::vector<uint32_t> crcs;
};

// Streams data into path.tmp, then the footer; fsync and rename.
class ObjectWriter {
 public:
  ObjectWriter(FileOps& ops, std::string path, uint32_t chunk_bytes)
      : ops_(ops), path_(std::move(path)), tmp_(path_ + ".tmp"), chunk_bytes_(chunk_bytes) {}

  absl::Status Open() {
    auto file = ops_.Open(tmp_, OpenMode::kCreateTruncate);
    if (!file.ok()) return RemoteIo(path_, file.status());
    file_ = std::move(*file);
    return absl::OkStatus();
  }

  absl::Status Append(absl::string_view bytes) {
    if (auto s = file_->Write(length_, bytes); !s.ok()) return RemoteIo(path_, s);
    // Checksums over chunk_bytes_-sized pieces of the whole stream, whatever the pieces.
    while (!bytes.empty()) {
      uint64_t in_chunk = length_ % chunk_bytes_;
      size_t take = static_cast<size_t>(std::min<uint64_t>(bytes.size(), chunk_bytes_ - in_chunk));
      if (in_chunk == 0) crcs_.push_back(0);
      crcs_.back() = Crc32cExtend(crcs_.back(), bytes.data(), take);
      bytes.remove_prefix(take);
      length_ += take;
    }
    return absl::OkStatus();
  }

  absl::Status Finish() {
    std::string footer;
    for (uint32_t crc : crcs_) AppendBigEndian(&footer, crc);
    AppendBigEndian(&footer, chunk_bytes_);
    AppendBigEndian(&footer, length_);
    AppendBigEndian(&footer, static_cast<uint32_t>(crcs_.size()));
    AppendBigEndian(&footer, kMagic);
    AppendBigEndian(&footer, Crc32c(footer.data(), footer.size()));
    if (auto s = file_->Write(length_, footer); !s.ok()) return RemoteIo(path_, s);
    if (auto s = file_->Sync(); !s.ok()) return RemoteIo(path_, s);
    file_.reset();
    if (auto s = ops_.Rename(tmp_, path_); !s.ok()) return RemoteIo(path_, s);
    return absl::OkStatus();
  }

  // After a failure: the temporary goes (best effort; a leftover .tmp is never read).
  void Abandon() {
    file_.reset();
    (void)ops_.Remove(tmp_);
  }

 private:
  FileOps& ops_;
  const std::string path_;
  const std::string tmp_;
  const uint32_t chunk_bytes_;
  std::unique_ptr<File> file_;
  uint64_t length_ = 0;
  std::vector<uint32_t> crcs_;
};

absl::StatusOr<Footer> ReadFooter(File& file, const std::string& path) {
  auto size = file.Size();
  if (!size.ok()) return RemoteIo(path, size.status());
  if (*size < kTailBytes) return RemoteError(path, absl::StrCat("only ", *size, " bytes, shorter than its footer"));
  char tail[kTailBytes];
  auto n = file.Read(*size - kTailBytes, tail, kTailBytes);
  if (!n.ok()) return RemoteIo(path, n.status());
  if (*n != kTailBytes) return RemoteError(path, "short read of its footer");
  Footer footer;
  footer.chunk_bytes = LoadBigEndian<uint32_t>(tail);
  footer.data_length = LoadBigEndian<uint64_t>(tail + 4);
  uint32_t count = LoadBigEndian<uint32_t>(tail + 12);
  uint32_t magic = LoadBigEndian<uint32_t>(tail + 16);
  uint32_t footer_crc = LoadBigEndian<uint32_t>(tail + 20);
  if (magic != kMagic) return RemoteError(path, "no object footer (bad magic)");
  uint64_t expected_count =
      footer.chunk_bytes == 0 ? 0 : (footer.data_length + footer.chunk_bytes - 1) / footer.chunk_bytes;
  if (footer.chunk_bytes == 0 || count != expected_count ||
      *size != footer.data_length + 4ull * count + kTailBytes) {
    return RemoteError(path, absl::StrCat("footer of ", footer.data_length, " bytes in ", count, " chunks of ",
                                          footer.chunk_bytes, " does not fit a file of ", *size, " bytes"));
  }
  std::string table(4ull * count + kTailBytes - 4, '\0');
  auto read = file.Read(footer.data_length, table.data(), table.size());
  if (!read.ok()) return RemoteIo(path, read.status());
  if (*read != table.size()) return RemoteError(path, "short read of its checksums");
  if (Crc32c(table.data(), table.size()) != footer_crc) return RemoteError(path, "its footer fails its checksum");
  footer.crcs.resize(count);
  for (uint32_t i = 0; i < count; ++i) footer.crcs[i] = LoadBigEndian<uint32_t>(table.data() + 4 * i);
  return footer;
}

absl::StatusOr<std::unique_ptr<File>> OpenObject(FileOps& ops, const std::string& path) {
  auto file = ops.Open(path, OpenMode::kRead);
  if (!file.ok()) return RemoteIo(path, file.status());
  return std::move(*file);
}

}  // namespace

absl::Status WriteChecksummedObject(FileOps& ops, const std::string& source, const std::string& path,
                                    uint32_t chunk_bytes) {
  ABSL_CHECK_GT(chunk_bytes, 0u);
  auto in = ops.Open(source, OpenMode::kRead);
  if (!in.ok()) return RemoteIo(path, in.status());
  ObjectWriter writer(ops, path, chunk_bytes);
  absl::Status status = [&]() -> absl::Status {
    STRATA_RETURN_IF_ERROR(writer.Open());
    std::string buffer(std::max<uint32_t>(chunk_bytes, 64 << 10), '\0');
    for (uint64_t offset = 0;;) {
      auto n = (*in)->Read(offset, buffer.data(), buffer.size());
      if (!n.ok()) return RemoteIo(path, n.status());
      if (*n == 0) break;
      STRATA_RETURN_IF_ERROR(writer.Append(absl::string_view(buffer.data(), *n)));
      offset += *n;
    }
    return writer.Finish();
  }();
  if (!status.ok()) writer.Abandon();
  return status;
}

absl::Status WriteChecksummedObjectFrom(FileOps& ops, absl::string_view bytes, const std::string& path,
                                        uint32_t chunk_bytes) {
  ABSL_CHECK_GT(chunk_bytes, 0u);
  ObjectWriter writer(ops, path, chunk_bytes);
  absl::Status status = [&]() -> absl::Status {
    STRATA_RETURN_IF_ERROR(writer.Open());
    STRATA_RETURN_IF_ERROR(writer.Append(bytes));
    return writer.Finish();
  }();
  if (!status.ok()) writer.Abandon();
  return status;
}

absl::StatusOr<std::string> ReadChecksummedObject(FileOps& ops, const std::string& path, uint64_t start,
                                                  uint64_t end) {
  STRATA_ASSIGN_OR_RETURN(auto file, OpenObject(ops, path));
  STRATA_ASSIGN_OR_RETURN(Footer footer, ReadFooter(*file, path));
  end = std::min(end, footer.data_length);
  if (start >= end) return std::string();
  // Whole chunks around the range, each verified, then the range cut out of them.
  uint64_t first = start / footer.chunk_bytes;
  uint64_t last = (end - 1) / footer.chunk_bytes;
  uint64_t from = first * footer.chunk_bytes;
  uint64_t to = std::min(footer.data_length, (last + 1) * footer.chunk_bytes);
  std::string chunks(static_cast<size_t>(to - from), '\0');
  auto n = file->Read(from, chunks.data(), chunks.size());
  if (!n.ok()) return RemoteIo(path, n.status());
  if (*n != chunks.size()) return RemoteError(path, absl::StrCat("short read at ", from));
  for (uint64_t c = first; c <= last; ++c) {
    uint64_t begin = c * footer.chunk_bytes - from;
    uint64_t size = std::min<uint64_t>(footer.chunk_bytes, footer.data_length - c * footer.chunk_bytes);
    if (Crc32c(chunks.data() + begin, size) != footer.crcs[c]) {
      return RemoteError(path, absl::StrCat("chunk ", c, " (bytes ", c * footer.chunk_bytes, " to ",
                                            c * footer.chunk_bytes + size, ") fails its checksum"));
    }
  }
  return chunks.substr(static_cast<size_t>(start - from), static_cast<size_t>(end - start));
}

absl::StatusOr<uint64_t> ChecksummedObjectLength(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(auto file, OpenObject(ops, path));
  STRATA_ASSIGN_OR_RETURN(Footer footer, ReadFooter(*file, path));
  return footer.data_length;
}

}  // namespace strata::storage
