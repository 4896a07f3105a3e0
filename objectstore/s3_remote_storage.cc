#include "objectstore/s3_remote_storage.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::objectstore {
namespace {

// ListObjects names a multipart upload never completed "<object name>#upload=<upload id>".
constexpr char kUploadMark[] = "#upload=";

// The footer read of an object not yet cached asks for this much of its end: the tail
// and the checksums of up to 4096 chunks (4 GiB of data at 1 MiB chunks) in one GET.
constexpr uint64_t kFooterGuessBytes = storage::kObjectTailBytes + 4 * 4096;

absl::Status RemoteError(const absl::Status& cause) {
  if (cause.ok()) return cause;
  if (storage::ErrcOf(cause) == storage::Errc::kRemoteStorageError) return cause;
  return storage::MakeError(storage::Errc::kRemoteStorageError, cause.message());
}

}  // namespace

S3RemoteStorage::S3RemoteStorage(storage::FileOps& ops, std::unique_ptr<S3Client> client,
                                 S3RemoteStorageOptions options)
    : ops_(ops), client_(std::move(client)), options_(std::move(options)) {
  ABSL_CHECK_GT(options_.chunk_bytes, 0u);
  ABSL_CHECK_GE(options_.part_bytes, uint64_t{5} << 20) << "S3 parts are at least 5 MiB";
}

std::string S3RemoteStorage::KeyOf(const storage::RemoteLogSegmentId& id, const char* suffix) const {
  return absl::StrCat(options_.key_prefix, storage::RemoteObjectName(id, suffix));
}

absl::Status S3RemoteStorage::CopyLogSegmentData(const storage::RemoteLogSegmentId& id,
                                                 const storage::LogSegmentData& data) {
  STRATA_RETURN_IF_ERROR(storage::CheckRemoteSegmentId(id));
  for (const storage::RemoteObjectSource& source : storage::RemoteObjectSources(data)) {
    STRATA_RETURN_IF_ERROR(Upload(KeyOf(id, source.suffix), source, data.pace));
  }
  return absl::OkStatus();
}

absl::Status S3RemoteStorage::Upload(const std::string& key, const storage::RemoteObjectSource& source,
                                     const std::function<void(int64_t)>& pace) {
  std::unique_ptr<storage::File> file;
  uint64_t size = source.bytes.size();
  if (!source.file.empty()) {
    auto opened = ops_.Open(source.file, storage::OpenMode::kRead);
    if (!opened.ok()) return RemoteError(WithContext(opened.status(), absl::StrCat("copying to ", key)));
    file = std::move(*opened);
    auto file_size = file->Size();
    if (!file_size.ok()) return RemoteError(WithContext(file_size.status(), absl::StrCat("copying to ", key)));
    size = *file_size;
  }
  if (storage::ObjectChecksums::ObjectSize(size, options_.chunk_bytes) > options_.part_bytes) {
    return UploadParts(key, file.get(), size, source.bytes, pace);
  }
  storage::ObjectChecksums checksums(options_.chunk_bytes);
  std::string object;
  object.reserve(storage::ObjectChecksums::ObjectSize(size, options_.chunk_bytes));
  if (file != nullptr) {
    if (pace) pace(static_cast<int64_t>(size));
    object.resize(size);
    auto n = file->Read(0, object.data(), size);
    if (!n.ok()) return RemoteError(WithContext(n.status(), absl::StrCat("copying to ", key)));
    if (*n != size) return RemoteError(absl::DataLossError(absl::StrCat(source.file, " shrank while copied to ", key)));
  } else {
    object = source.bytes;
  }
  checksums.Append(object);
  object += checksums.Footer();
  return RemoteError(client_->PutObject(key, object));
}

absl::Status S3RemoteStorage::UploadParts(const std::string& key, storage::File* file, uint64_t file_size,
                                          absl::string_view bytes, const std::function<void(int64_t)>& pace) {
  auto upload_id = client_->CreateMultipartUpload(key);
  if (!upload_id.ok()) return RemoteError(upload_id.status());
  storage::ObjectChecksums checksums(options_.chunk_bytes);
  std::vector<S3CompletedPart> parts;
  std::string buffer;
  buffer.reserve(options_.part_bytes + 4 * (options_.part_bytes / options_.chunk_bytes + 2) + storage::kObjectTailBytes);
  absl::Status status = [&]() -> absl::Status {
    for (uint64_t offset = 0; offset < file_size;) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(options_.part_bytes, file_size - offset));
      if (file != nullptr) {
        if (pace) pace(static_cast<int64_t>(want));
        buffer.resize(want);
        auto n = file->Read(offset, buffer.data(), want);
        if (!n.ok()) return WithContext(n.status(), absl::StrCat("copying to ", key));
        if (*n != want) return absl::DataLossError(absl::StrCat(file->path(), " shrank while copied to ", key));
      } else {
        buffer.assign(bytes.data() + offset, want);
      }
      checksums.Append(buffer);
      offset += want;
      if (offset == file_size) buffer += checksums.Footer();  // the last part carries the footer
      auto part = client_->UploadPart(key, *upload_id, static_cast<int>(parts.size()) + 1, buffer);
      if (!part.ok()) return part.status();
      parts.push_back(*std::move(part));
    }
    return client_->CompleteMultipartUpload(key, *upload_id, parts);
  }();
  if (!status.ok()) {
    // Best effort: a leftover upload is found and aborted by the orphan sweep.
    (void)client_->AbortMultipartUpload(key, *upload_id);
    return RemoteError(status);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const storage::ObjectFooter>> S3RemoteStorage::Footer(const std::string& key) {
  {
    absl::MutexLock lock(&mu_);
    auto it = footers_.find(key);
    if (it != footers_.end()) {
      footer_lru_.splice(footer_lru_.begin(), footer_lru_, it->second.at);
      return it->second.footer;
    }
  }
  // A footer that does not parse is asked for once more (a byte flipped on the way).
  absl::StatusOr<storage::ObjectFooter> parsed;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto end = client_->GetSuffix(key, kFooterGuessBytes);
    if (!end.ok()) return RemoteError(end.status());
    auto needed = storage::ObjectFooterBytes(end->bytes, end->object_size, key);
    if (!needed.ok()) {
      parsed = needed.status();
      continue;
    }
    if (*needed > end->bytes.size()) {
      end = client_->GetRange(key, end->object_size - *needed, end->object_size);
      if (!end.ok()) return RemoteError(end.status());
    }
    parsed = storage::ParseObjectFooter(end->bytes, end->object_size, key);
    if (parsed.ok()) break;
  }
  if (!parsed.ok()) return parsed.status();
  auto footer = std::make_shared<const storage::ObjectFooter>(*std::move(parsed));
  const int64_t size = static_cast<int64_t>(4 * footer->crcs.size() + key.size() + 64);
  absl::MutexLock lock(&mu_);
  if (footers_.count(key) == 0 && size <= options_.footer_cache_bytes) {
    footer_lru_.push_front(key);
    footers_[key] = CachedFooter{footer, footer_lru_.begin()};
    footer_bytes_ += size;
    while (footer_bytes_ > options_.footer_cache_bytes) {
      auto victim = footers_.find(footer_lru_.back());
      footer_bytes_ -= static_cast<int64_t>(4 * victim->second.footer->crcs.size() + victim->first.size() + 64);
      footers_.erase(victim);
      footer_lru_.pop_back();
    }
  }
  return footer;
}

void S3RemoteStorage::ForgetFooter(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = footers_.find(key);
  if (it == footers_.end()) return;
  footer_bytes_ -= static_cast<int64_t>(4 * it->second.footer->crcs.size() + key.size() + 64);
  footer_lru_.erase(it->second.at);
  footers_.erase(it);
}

absl::StatusOr<std::string> S3RemoteStorage::FetchLogSegment(const storage::RemoteLogSegmentId& id, uint64_t start,
                                                             uint64_t end) {
  STRATA_RETURN_IF_ERROR(storage::CheckRemoteSegmentId(id));
  const std::string key = KeyOf(id, storage::kRemoteLogSuffix);
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<const storage::ObjectFooter> footer, Footer(key));
  end = std::min(end, footer->data_length);
  if (start >= end) return std::string();
  // Whole chunks around the range, each verified, then the range cut out of them.
  const uint64_t first = start / footer->chunk_bytes;
  const uint64_t last = (end - 1) / footer->chunk_bytes;
  const uint64_t from = first * footer->chunk_bytes;
  const uint64_t to = std::min(footer->data_length, (last + 1) * footer->chunk_bytes);
  absl::Status verified;
  // A chunk that fails its checksum is asked for once more: a byte flipped on the way
  // passes, one flipped in the store does not.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto chunks = client_->GetRange(key, from, to);
    if (!chunks.ok()) return RemoteError(chunks.status());
    verified = storage::VerifyObjectChunks(*footer, first, chunks->bytes, key);
    if (verified.ok()) {
      if (from == start && to == end) return std::move(chunks->bytes);
      return chunks->bytes.substr(static_cast<size_t>(start - from), static_cast<size_t>(end - start));
    }
  }
  return verified;
}

absl::StatusOr<std::string> S3RemoteStorage::FetchIndex(const storage::RemoteLogSegmentId& id,
                                                        storage::RemoteIndexType type) {
  STRATA_RETURN_IF_ERROR(storage::CheckRemoteSegmentId(id));
  const std::string key = KeyOf(id, storage::RemoteIndexSuffix(type));
  // An object that fails its checks is asked for once more, as a .log's chunks are.
  absl::Status verified;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto object = client_->GetObject(key);
    // Copied before transactions existed: no object, and no abort in the segment.
    if (type == storage::RemoteIndexType::kTransaction && absl::IsNotFound(object.status())) return std::string();
    if (!object.ok()) return RemoteError(object.status());
    auto footer = storage::ParseObjectFooter(*object, object->size(), key);
    verified = footer.status();
    if (!footer.ok()) continue;
    object->resize(footer->data_length);  // the footer checked that data, table and tail make the object
    verified = storage::VerifyObjectChunks(*footer, 0, *object, key);
    if (verified.ok()) return std::move(*object);
  }
  return verified;
}

absl::Status S3RemoteStorage::DeleteLogSegmentData(const storage::RemoteLogSegmentId& id) {
  STRATA_RETURN_IF_ERROR(storage::CheckRemoteSegmentId(id));
  std::vector<std::string> keys;
  for (const char* suffix : storage::kRemoteObjectSuffixes) keys.push_back(KeyOf(id, suffix));
  STRATA_RETURN_IF_ERROR(RemoteError(client_->DeleteObjects(keys)));
  for (const std::string& key : keys) ForgetFooter(key);
  // A copy that a crash cut short may have left a multipart upload of its larger parts
  // (the .log and the two indexes can exceed a part); the next leader deletes that copy
  // here, so its uploads go too. Asked per key: MinIO lists uploads by exact key only.
  for (const char* suffix : {storage::kRemoteLogSuffix, ".index", ".timeindex"}) {
    const std::string key = KeyOf(id, suffix);
    auto page = client_->ListMultipartUploads(key, "", "");
    if (!page.ok()) return RemoteError(page.status());
    for (const S3UploadInfo& upload : page->uploads) {
      if (upload.key != key) continue;
      STRATA_RETURN_IF_ERROR(RemoteError(client_->AbortMultipartUpload(key, upload.upload_id)));
    }
  }
  return absl::OkStatus();
}

absl::Status S3RemoteStorage::ListObjects(const std::string& prefix,
                                          const std::function<void(const storage::RemoteObject&)>& each) {
  const std::string& root = options_.key_prefix;
  std::string token;
  do {
    auto page = client_->ListObjectsV2(root + prefix, token);
    if (!page.ok()) return RemoteError(page.status());
    for (const S3ObjectInfo& info : page->objects) {
      storage::RemoteObject o;
      o.name = info.key.substr(root.size());
      o.size = info.size;
      o.modified = info.last_modified;
      each(o);
    }
    token = page->next_token;
  } while (!token.empty());
  std::string key_marker, upload_marker;
  do {
    auto page = client_->ListMultipartUploads(root + prefix, key_marker, upload_marker);
    if (!page.ok()) return RemoteError(page.status());
    for (const S3UploadInfo& upload : page->uploads) {
      storage::RemoteObject o;
      o.name = absl::StrCat(upload.key.substr(root.size()), kUploadMark, upload.upload_id);
      o.modified = upload.initiated;
      each(o);
    }
    key_marker = page->next_key_marker;
    upload_marker = page->next_upload_id_marker;
  } while (!key_marker.empty() || !upload_marker.empty());
  return absl::OkStatus();
}

absl::Status S3RemoteStorage::DeleteObjects(const std::vector<std::string>& names) {
  std::vector<std::string> keys;
  for (const std::string& name : names) {
    const size_t mark = name.find(kUploadMark);
    const std::string object = name.substr(0, mark);
    STRATA_RETURN_IF_ERROR(storage::CheckRemoteObjectName(object));
    if (mark != std::string::npos) {
      const std::string upload_id = name.substr(mark + std::string(kUploadMark).size());
      STRATA_RETURN_IF_ERROR(RemoteError(client_->AbortMultipartUpload(options_.key_prefix + object, upload_id)));
      continue;
    }
    keys.push_back(options_.key_prefix + object);
    ForgetFooter(keys.back());
  }
  return RemoteError(client_->DeleteObjects(keys));
}

std::optional<storage::RemoteStorageManager::Requests> S3RemoteStorage::requests() const {
  S3ClientStats c = client_->stats();
  return Requests{c.calls, c.retries, c.failures, c.bytes_sent, c.bytes_received};
}

}  // namespace strata::objectstore
