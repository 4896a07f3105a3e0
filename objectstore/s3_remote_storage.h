#pragma once
// S3RemoteStorage: the remote tier on an S3-compatible object store. A segment copy is
// the same six checksummed objects as DirectoryRemoteStorage writes
// (storage/remote_object_names.h), under <key.prefix><topic id>-<partition>/ in one bucket:
//   * a copy streams each local file through a buffer of part_bytes: an object that fits
//     one part is one PutObject, a larger one a multipart upload (its parts uploaded in
//     order, the last one with the footer; a failure aborts the upload, so no part is
//     left billed in the bucket);
//   * a read of a .log range fetches the object's footer once (a ranged GET of its last
//     bytes; kept in a cache bounded in bytes) and then exactly the chunks the range
//     touches, each verified against its CRC32C before a byte is returned;
//   * an index is read whole and verified whole;
//   * a delete removes the six objects in one DeleteObjects call (absent ones are fine)
//     and aborts the multipart uploads a crashed copy of it left;
//   * a listing (the orphan sweep's) shows objects and unfinished uploads under a prefix
//     (MinIO lists uploads by exact key only: there the sweep finds no upload, and the
//     delete above is what removes them).
// Every failure — the store's, a checksum's, a missing object — is
// Errc::kRemoteStorageError naming the object, as in the directory store.
// Thread-safe.

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "objectstore/s3_client.h"
#include "storage/checksummed_object.h"
#include "storage/file_ops.h"
#include "storage/remote_object_names.h"
#include "storage/remote_storage_manager.h"

namespace strata::objectstore {

struct S3RemoteStorageOptions {
  std::string key_prefix;                                          // rsm.config.key.prefix
  uint32_t chunk_bytes = storage::kDefaultObjectChunkBytes;        // rsm.config.chunk.size
  uint64_t part_bytes = 25 << 20;                                  // ...s3.multipart.upload.part.size
  int64_t footer_cache_bytes = 16 << 20;
};

class S3RemoteStorage final : public storage::RemoteStorageManager {
 public:
  // ops reads the local segment files; client is the bucket's.
  S3RemoteStorage(storage::FileOps& ops, std::unique_ptr<S3Client> client, S3RemoteStorageOptions options);

  absl::Status CopyLogSegmentData(const storage::RemoteLogSegmentId& id, const storage::LogSegmentData& data) override;
  absl::StatusOr<std::string> FetchLogSegment(const storage::RemoteLogSegmentId& id, uint64_t start,
                                              uint64_t end) override;
  absl::StatusOr<std::string> FetchIndex(const storage::RemoteLogSegmentId& id, storage::RemoteIndexType type) override;
  absl::Status DeleteLogSegmentData(const storage::RemoteLogSegmentId& id) override;
  absl::Status ListObjects(const std::string& prefix,
                           const std::function<void(const storage::RemoteObject&)>& each) override;
  absl::Status DeleteObjects(const std::vector<std::string>& names) override;
  std::optional<Requests> requests() const override;

  // The key of the part of a segment with this suffix (tests, tools).
  std::string KeyOf(const storage::RemoteLogSegmentId& id, const char* suffix) const;
  S3Client& client() { return *client_; }

 private:
  // Uploads the bytes of source (a file, or bytes) with the footer after them to key.
  absl::Status Upload(const std::string& key, const storage::RemoteObjectSource& source,
                      const std::function<void(int64_t)>& pace);
  absl::Status UploadParts(const std::string& key, storage::File* file, uint64_t file_size, absl::string_view bytes,
                           const std::function<void(int64_t)>& pace);
  absl::StatusOr<std::shared_ptr<const storage::ObjectFooter>> Footer(const std::string& key);
  void ForgetFooter(const std::string& key);

  storage::FileOps& ops_;
  const std::unique_ptr<S3Client> client_;
  const S3RemoteStorageOptions options_;

  absl::Mutex mu_;
  struct CachedFooter {
    std::shared_ptr<const storage::ObjectFooter> footer;
    std::list<std::string>::iterator at;
  };
  std::map<std::string, CachedFooter> footers_ ABSL_GUARDED_BY(mu_);
  std::list<std::string> footer_lru_ ABSL_GUARDED_BY(mu_);  // most recent first
  int64_t footer_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::objectstore
