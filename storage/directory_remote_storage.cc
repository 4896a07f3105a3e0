#include "storage/directory_remote_storage.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/checksummed_object.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

constexpr const char* kLog = ".log";
constexpr const char* kOffsetIndex = ".index";
constexpr const char* kTimeIndex = ".timeindex";
constexpr const char* kSnapshot = ".snapshot";
constexpr const char* kLeaderEpochs = ".leader-epoch-checkpoint";
constexpr const char* kTxnIndex = ".txnindex";
constexpr const char* kAllSuffixes[] = {kLog, kOffsetIndex, kTimeIndex, kSnapshot, kLeaderEpochs, kTxnIndex};

absl::Status RemoteError(absl::string_view what, const absl::Status& cause) {
  return MakeError(Errc::kRemoteStorageError, absl::StrCat(what, ": ", cause.message()));
}

absl::Status CheckId(const RemoteLogSegmentId& id) {
  auto plain = [](const std::string& s) {
    if (s.empty()) return false;
    for (char c : s) {
      bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (!ok) return false;
    }
    return true;
  };
  if (!plain(id.topic_id) || !plain(id.segment_id) || id.partition < 0) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat("remote segment id ", id.topic_id, "-", id.partition, "/",
                                                          id.segment_id, " is not base64url ids and a partition"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string DirectoryRemoteStorage::PartitionDir(const RemoteLogSegmentId& id) const {
  return JoinPath(root_, absl::StrCat(id.topic_id, "-", id.partition));
}

std::string DirectoryRemoteStorage::PathOf(const RemoteLogSegmentId& id, const std::string& suffix) const {
  return JoinPath(PartitionDir(id), id.segment_id + suffix);
}

absl::Status DirectoryRemoteStorage::CopyLogSegmentData(const RemoteLogSegmentId& id, const LogSegmentData& data) {
  STRATA_RETURN_IF_ERROR(CheckId(id));
  const std::string dir = PartitionDir(id);
  if (auto s = CreateDirRecursively(ops_, dir); !s.ok()) return RemoteError(absl::StrCat("creating ", dir), s);
  std::vector<std::pair<std::string, const char*>> files = {
      {data.log_path, kLog}, {data.offset_index_path, kOffsetIndex}, {data.time_index_path, kTimeIndex}};
  for (const auto& [source, suffix] : files) {
    STRATA_RETURN_IF_ERROR(WriteChecksummedObject(ops_, source, PathOf(id, suffix), chunk_bytes_));
  }
  if (data.producer_snapshot_path.empty()) {
    STRATA_RETURN_IF_ERROR(WriteChecksummedObjectFrom(ops_, "", PathOf(id, kSnapshot), chunk_bytes_));
  } else {
    STRATA_RETURN_IF_ERROR(WriteChecksummedObject(ops_, data.producer_snapshot_path, PathOf(id, kSnapshot), chunk_bytes_));
  }
  STRATA_RETURN_IF_ERROR(WriteChecksummedObjectFrom(ops_, data.leader_epochs, PathOf(id, kLeaderEpochs), chunk_bytes_));
  if (data.txn_index_path.empty()) {
    STRATA_RETURN_IF_ERROR(WriteChecksummedObjectFrom(ops_, "", PathOf(id, kTxnIndex), chunk_bytes_));
  } else {
    STRATA_RETURN_IF_ERROR(WriteChecksummedObject(ops_, data.txn_index_path, PathOf(id, kTxnIndex), chunk_bytes_));
  }
  if (auto s = ops_.SyncDir(dir); !s.ok()) return RemoteError(absl::StrCat("syncing ", dir), s);
  return absl::OkStatus();
}

absl::StatusOr<std::string> DirectoryRemoteStorage::FetchLogSegment(const RemoteLogSegmentId& id, uint64_t start,
                                                                     uint64_t end) {
  STRATA_RETURN_IF_ERROR(CheckId(id));
  return ReadChecksummedObject(ops_, PathOf(id, kLog), start, end);
}

absl::StatusOr<std::string> DirectoryRemoteStorage::FetchIndex(const RemoteLogSegmentId& id, RemoteIndexType type) {
  STRATA_RETURN_IF_ERROR(CheckId(id));
  const char* suffix = kOffsetIndex;
  switch (type) {
    case RemoteIndexType::kOffset: suffix = kOffsetIndex; break;
    case RemoteIndexType::kTimestamp: suffix = kTimeIndex; break;
    case RemoteIndexType::kProducerSnapshot: suffix = kSnapshot; break;
    case RemoteIndexType::kLeaderEpoch: suffix = kLeaderEpochs; break;
    case RemoteIndexType::kTransaction: {
      // Copied before transactions existed: no object, and no abort in the segment.
      auto exists = ops_.Exists(PathOf(id, kTxnIndex));
      if (exists.ok() && !*exists) return std::string();
      suffix = kTxnIndex;
      break;
    }
  }
  return ReadChecksummedObject(ops_, PathOf(id, suffix), 0, UINT64_MAX);
}

absl::Status DirectoryRemoteStorage::DeleteLogSegmentData(const RemoteLogSegmentId& id) {
  STRATA_RETURN_IF_ERROR(CheckId(id));
  const std::string dir = PartitionDir(id);
  auto exists = ops_.Exists(dir);
  if (!exists.ok()) return RemoteError(absl::StrCat("reading ", dir), exists.status());
  if (!*exists) return absl::OkStatus();
  for (const char* suffix : kAllSuffixes) {
    for (const std::string& path : {PathOf(id, suffix), PathOf(id, suffix) + ".tmp"}) {
      auto there = ops_.Exists(path);
      if (!there.ok()) return RemoteError(absl::StrCat("reading ", path), there.status());
      if (!*there) continue;
      if (auto s = ops_.Remove(path); !s.ok()) return RemoteError(absl::StrCat("removing ", path), s);
    }
  }
  if (auto s = ops_.SyncDir(dir); !s.ok()) return RemoteError(absl::StrCat("syncing ", dir), s);
  return absl::OkStatus();
}

}  // namespace strata::storage
