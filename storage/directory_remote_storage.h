#pragma once
// DirectoryRemoteStorage: the embedded RemoteStorageManager. It keeps the remote tier
// under one directory (remote.log.storage.path) that every broker reaches — a shared
// volume in docker-compose, or NFS:
//   <root>/<topic id>-<partition>/<segment id>.log | .index | .timeindex | .snapshot |
//                                 .leader-epoch-checkpoint
// each a checksummed object (checksummed_object.h): written to a temporary name,
// fsynced and renamed, and verified on every read. The partition directory is synced
// after a copy's renames and after a delete.
// Thread-safe.

#include <cstdint>
#include <string>

#include "storage/file_ops.h"
#include "storage/remote_storage_manager.h"

namespace strata::storage {

class DirectoryRemoteStorage final : public RemoteStorageManager {
 public:
  // ops: the file seam (fault injection in tests); chunk_bytes: the checksum chunk.
  DirectoryRemoteStorage(FileOps& ops, std::string root, uint32_t chunk_bytes = 1 << 20)
      : ops_(ops), root_(std::move(root)), chunk_bytes_(chunk_bytes) {}

  absl::Status CopyLogSegmentData(const RemoteLogSegmentId& id, const LogSegmentData& data) override;
  absl::StatusOr<std::string> FetchLogSegment(const RemoteLogSegmentId& id, uint64_t start, uint64_t end) override;
  absl::StatusOr<std::string> FetchIndex(const RemoteLogSegmentId& id, RemoteIndexType type) override;
  absl::Status DeleteLogSegmentData(const RemoteLogSegmentId& id) override;
  absl::Status ListObjects(const std::string& prefix, const std::function<void(const RemoteObject&)>& each) override;
  absl::Status DeleteObjects(const std::vector<std::string>& names) override;

  // Where the part of a segment with this suffix lives (tests, tools).
  std::string PathOf(const RemoteLogSegmentId& id, const std::string& suffix) const;

 private:
  std::string PartitionDir(const RemoteLogSegmentId& id) const;

  FileOps& ops_;
  const std::string root_;
  const uint32_t chunk_bytes_;
};

}  // namespace strata::storage
