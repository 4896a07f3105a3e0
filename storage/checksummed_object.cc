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
static_assert(kObjectTailBytes == 4 + 8 + 4 + 4 + 4);

absl::Status RemoteError(const std::string& path, absl::string_view what) {
  return MakeError(Errc::kRemoteStorageError, absl::StrCat("remote object ", path, ": ", what));
}

// A local or remote file operation failed: the remote tier's error, with the cause.
absl::Status RemoteIo(const std::string& path, const absl::Status& cause) {
  return RemoteError(path, cause.message());
}

// Streams data into path.tmp, then the footer; fsync and rename.
class ObjectWriter {
 public:
  ObjectWriter(FileOps& ops, std::string path, uint32_t chunk_bytes)
      : ops_(ops), path_(std::move(path)), tmp_(path_ + ".tmp"), checksums_(chunk_bytes) {}

  absl::Status Open() {
    auto file = ops_.Open(tmp_, OpenMode::kCreateTruncate);
    if (!file.ok()) return RemoteIo(path_, file.status());
    file_ = std::move(*file);
    return absl::OkStatus();
  }

  absl::Status Append(absl::string_view bytes) {
    if (auto s = file_->Write(checksums_.length(), bytes); !s.ok()) return RemoteIo(path_, s);
    checksums_.Append(bytes);
    return absl::OkStatus();
  }

  absl::Status Finish() {
    if (auto s = file_->Write(checksums_.length(), checksums_.Footer()); !s.ok()) return RemoteIo(path_, s);
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
  ObjectChecksums checksums_;
  std::unique_ptr<File> file_;
};

absl::StatusOr<ObjectFooter> ReadFooter(File& file, const std::string& path) {
  auto size = file.Size();
  if (!size.ok()) return RemoteIo(path, size.status());
  if (*size < kObjectTailBytes) {
    return RemoteError(path, absl::StrCat("only ", *size, " bytes, shorter than its footer"));
  }
  char tail[kObjectTailBytes];
  auto n = file.Read(*size - kObjectTailBytes, tail, kObjectTailBytes);
  if (!n.ok()) return RemoteIo(path, n.status());
  if (*n != kObjectTailBytes) return RemoteError(path, "short read of its footer");
  STRATA_ASSIGN_OR_RETURN(uint64_t footer_bytes, ObjectFooterBytes(absl::string_view(tail, kObjectTailBytes), *size, path));
  std::string footer(footer_bytes, '\0');
  auto read = file.Read(*size - footer_bytes, footer.data(), footer.size());
  if (!read.ok()) return RemoteIo(path, read.status());
  if (*read != footer.size()) return RemoteError(path, "short read of its checksums");
  return ParseObjectFooter(footer, *size, path);
}

absl::StatusOr<std::unique_ptr<File>> OpenObject(FileOps& ops, const std::string& path) {
  auto file = ops.Open(path, OpenMode::kRead);
  if (!file.ok()) return RemoteIo(path, file.status());
  return std::move(*file);
}

}  // namespace

absl::Status WriteChecksummedObject(FileOps& ops, const std::string& source, const std::string& path,
                                    uint32_t chunk_bytes, const std::function<void(int64_t)>& pace) {
  ABSL_CHECK_GT(chunk_bytes, 0u);
  auto in = ops.Open(source, OpenMode::kRead);
  if (!in.ok()) return RemoteIo(path, in.status());
  ObjectWriter writer(ops, path, chunk_bytes);
  absl::Status status = [&]() -> absl::Status {
    STRATA_RETURN_IF_ERROR(writer.Open());
    std::string buffer(std::max<uint32_t>(chunk_bytes, 64 << 10), '\0');
    uint64_t size = 0;
    if (pace) {
      auto known = (*in)->Size();
      if (!known.ok()) return RemoteIo(path, known.status());
      size = *known;
    }
    for (uint64_t offset = 0;;) {
      if (pace && offset < size) pace(static_cast<int64_t>(std::min<uint64_t>(buffer.size(), size - offset)));
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
  STRATA_ASSIGN_OR_RETURN(ObjectFooter footer, ReadFooter(*file, path));
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
  STRATA_RETURN_IF_ERROR(VerifyObjectChunks(footer, first, chunks, path));
  return chunks.substr(static_cast<size_t>(start - from), static_cast<size_t>(end - start));
}

absl::StatusOr<uint64_t> ChecksummedObjectLength(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(auto file, OpenObject(ops, path));
  STRATA_ASSIGN_OR_RETURN(ObjectFooter footer, ReadFooter(*file, path));
  return footer.data_length;
}

ObjectChecksums::ObjectChecksums(uint32_t chunk_bytes) : chunk_bytes_(chunk_bytes) { ABSL_CHECK_GT(chunk_bytes, 0u); }

void ObjectChecksums::Append(absl::string_view bytes) {
  // Checksums over chunk_bytes_-sized pieces of the whole stream, whatever the pieces.
  while (!bytes.empty()) {
    uint64_t in_chunk = length_ % chunk_bytes_;
    size_t take = static_cast<size_t>(std::min<uint64_t>(bytes.size(), chunk_bytes_ - in_chunk));
    if (in_chunk == 0) crcs_.push_back(0);
    crcs_.back() = Crc32cExtend(crcs_.back(), bytes.data(), take);
    bytes.remove_prefix(take);
    length_ += take;
  }
}

std::string ObjectChecksums::Footer() const {
  std::string footer;
  footer.reserve(4 * crcs_.size() + kObjectTailBytes);
  for (uint32_t crc : crcs_) AppendBigEndian(&footer, crc);
  AppendBigEndian(&footer, chunk_bytes_);
  AppendBigEndian(&footer, length_);
  AppendBigEndian(&footer, static_cast<uint32_t>(crcs_.size()));
  AppendBigEndian(&footer, kMagic);
  AppendBigEndian(&footer, Crc32c(footer.data(), footer.size()));
  return footer;
}

uint64_t ObjectChecksums::ObjectSize(uint64_t data_length, uint32_t chunk_bytes) {
  return data_length + 4 * ((data_length + chunk_bytes - 1) / chunk_bytes) + kObjectTailBytes;
}

absl::StatusOr<uint64_t> ObjectFooterBytes(absl::string_view tail, uint64_t object_size, const std::string& name) {
  if (object_size < kObjectTailBytes || tail.size() < kObjectTailBytes) {
    return RemoteError(name, absl::StrCat("only ", object_size, " bytes, shorter than its footer"));
  }
  tail = tail.substr(tail.size() - kObjectTailBytes);
  const uint32_t chunk_bytes = LoadBigEndian<uint32_t>(tail.data());
  const uint64_t data_length = LoadBigEndian<uint64_t>(tail.data() + 4);
  const uint32_t count = LoadBigEndian<uint32_t>(tail.data() + 12);
  if (LoadBigEndian<uint32_t>(tail.data() + 16) != kMagic) return RemoteError(name, "no object footer (bad magic)");
  const uint64_t expected_count = chunk_bytes == 0 ? 0 : (data_length + chunk_bytes - 1) / chunk_bytes;
  if (chunk_bytes == 0 || count != expected_count || object_size != data_length + 4ull * count + kObjectTailBytes) {
    return RemoteError(name, absl::StrCat("footer of ", data_length, " bytes in ", count, " chunks of ", chunk_bytes,
                                          " does not fit an object of ", object_size, " bytes"));
  }
  return 4ull * count + kObjectTailBytes;
}

absl::StatusOr<ObjectFooter> ParseObjectFooter(absl::string_view footer_bytes, uint64_t object_size,
                                               const std::string& name) {
  STRATA_ASSIGN_OR_RETURN(uint64_t size, ObjectFooterBytes(footer_bytes, object_size, name));
  if (footer_bytes.size() < size) return RemoteError(name, "short read of its checksums");
  footer_bytes = footer_bytes.substr(footer_bytes.size() - size);
  const char* tail = footer_bytes.data() + size - kObjectTailBytes;
  if (Crc32c(footer_bytes.data(), size - 4) != LoadBigEndian<uint32_t>(tail + 20)) {
    return RemoteError(name, "its footer fails its checksum");
  }
  ObjectFooter footer;
  footer.chunk_bytes = LoadBigEndian<uint32_t>(tail);
  footer.data_length = LoadBigEndian<uint64_t>(tail + 4);
  footer.crcs.resize(LoadBigEndian<uint32_t>(tail + 12));
  for (size_t i = 0; i < footer.crcs.size(); ++i) footer.crcs[i] = LoadBigEndian<uint32_t>(footer_bytes.data() + 4 * i);
  return footer;
}

absl::Status VerifyObjectChunks(const ObjectFooter& footer, uint64_t first_chunk, absl::string_view bytes,
                                const std::string& name) {
  for (uint64_t c = first_chunk, begin = 0; begin < bytes.size(); ++c) {
    const uint64_t at = c * footer.chunk_bytes;
    if (c >= footer.crcs.size()) return RemoteError(name, absl::StrCat("bytes past its end at ", at));
    const uint64_t size = std::min<uint64_t>(footer.chunk_bytes, footer.data_length - at);
    if (bytes.size() - begin < size) {
      return RemoteError(name, absl::StrCat("chunk ", c, " (bytes ", at, " to ", at + size, ") read short"));
    }
    if (Crc32c(bytes.data() + begin, size) != footer.crcs[c]) {
      return RemoteError(name, absl::StrCat("chunk ", c, " (bytes ", at, " to ", at + size, ") fails its checksum"));
    }
    begin += size;
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
