#include "storage/directory_remote_storage.h"

#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/checksummed_object.h"
#include "storage/errc.h"
#include "storage/remote_object_names.h"

namespace strata::storage {
namespace {

absl::Status RemoteError(absl::string_view what, const absl::Status& cause) {
  return MakeError(Errc::kRemoteStorageError, absl::StrCat(what, ": ", cause.message()));
}

}  // namespace

std::string DirectoryRemoteStorage::PartitionDir(const RemoteLogSegmentId& id) const {
  return JoinPath(root_, RemotePartitionName(id));
}

std::string DirectoryRemoteStorage::PathOf(const RemoteLogSegmentId& id, const std::string& suffix) const {
  return JoinPath(root_, RemoteObjectName(id, suffix.c_str()));
}

absl::Status DirectoryRemoteStorage::CopyLogSegmentData(const RemoteLogSegmentId& id, const LogSegmentData& data) {
  STRATA_RETURN_IF_ERROR(CheckRemoteSegmentId(id));
  const std::string dir = PartitionDir(id);
  if (auto s = CreateDirRecursively(ops_, dir); !s.ok()) return RemoteError(absl::StrCat("creating ", dir), s);
  for (const RemoteObjectSource& source : RemoteObjectSources(data)) {
    const std::string path = PathOf(id, source.suffix);
    STRATA_RETURN_IF_ERROR(source.file.empty() ? WriteChecksummedObjectFrom(ops_, source.bytes, path, chunk_bytes_)
                                               : WriteChecksummedObject(ops_, source.file, path, chunk_bytes_,
                                                                        data.pace));
  }
  if (auto s = ops_.SyncDir(dir); !s.ok()) return RemoteError(absl::StrCat("syncing ", dir), s);
  return absl::OkStatus();
}

absl::StatusOr<std::string> DirectoryRemoteStorage::FetchLogSegment(const RemoteLogSegmentId& id, uint64_t start,
                                                                     uint64_t end) {
  STRATA_RETURN_IF_ERROR(CheckRemoteSegmentId(id));
  return ReadChecksummedObject(ops_, PathOf(id, kRemoteLogSuffix), start, end);
}

absl::StatusOr<std::string> DirectoryRemoteStorage::FetchIndex(const RemoteLogSegmentId& id, RemoteIndexType type) {
  STRATA_RETURN_IF_ERROR(CheckRemoteSegmentId(id));
  if (type == RemoteIndexType::kTransaction) {
    // Copied before transactions existed: no object, and no abort in the segment.
    auto exists = ops_.Exists(PathOf(id, kRemoteTxnIndexSuffix));
    if (exists.ok() && !*exists) return std::string();
  }
  const char* suffix = RemoteIndexSuffix(type);
  return ReadChecksummedObject(ops_, PathOf(id, suffix), 0, UINT64_MAX);
}

absl::Status DirectoryRemoteStorage::DeleteLogSegmentData(const RemoteLogSegmentId& id) {
  STRATA_RETURN_IF_ERROR(CheckRemoteSegmentId(id));
  const std::string dir = PartitionDir(id);
  auto exists = ops_.Exists(dir);
  if (!exists.ok()) return RemoteError(absl::StrCat("reading ", dir), exists.status());
  if (!*exists) return absl::OkStatus();
  for (const char* suffix : kRemoteObjectSuffixes) {
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

absl::Status DirectoryRemoteStorage::ListObjects(const std::string& prefix,
                                                 const std::function<void(const RemoteObject&)>& each) {
  auto exists = ops_.Exists(root_);
  if (!exists.ok()) return RemoteError(absl::StrCat("reading ", root_), exists.status());
  if (!*exists) return absl::OkStatus();
  auto dirs = ops_.ListDir(root_);
  if (!dirs.ok()) return RemoteError(absl::StrCat("listing ", root_), dirs.status());
  for (const std::string& dir : *dirs) {
    // The names under dir start with "dir/": skip dirs that cannot hold a match.
    const std::string head = dir + "/";
    if (!absl::StartsWith(head, prefix) && !absl::StartsWith(prefix, head)) continue;
    auto files = ops_.ListDir(JoinPath(root_, dir));
    if (!files.ok()) continue;  // not a directory
    for (const std::string& file : *files) {
      RemoteObject o;
      o.name = head + file;
      if (!absl::StartsWith(o.name, prefix)) continue;
      std::error_code error;
      const std::filesystem::path path = JoinPath(root_, o.name);
      o.size = std::filesystem::file_size(path, error);
      const auto written = std::filesystem::last_write_time(path, error);
      if (error) continue;  // gone since the listing
      o.modified = absl::FromChrono(std::chrono::file_clock::to_sys(written));
      each(o);
    }
  }
  return absl::OkStatus();
}

absl::Status DirectoryRemoteStorage::DeleteObjects(const std::vector<std::string>& names) {
  std::set<std::string> dirs;
  for (const std::string& name : names) {
    STRATA_RETURN_IF_ERROR(CheckRemoteObjectName(name));
    const std::string path = JoinPath(root_, name);
    auto there = ops_.Exists(path);
    if (!there.ok()) return RemoteError(absl::StrCat("reading ", path), there.status());
    if (*there) {
      if (auto s = ops_.Remove(path); !s.ok()) return RemoteError(absl::StrCat("removing ", path), s);
    }
    dirs.insert(JoinPath(root_, name.substr(0, name.find('/'))));
  }
  for (const std::string& dir : dirs) {
    auto left = ops_.ListDir(dir);
    if (left.ok() && left->empty()) {
      (void)ops_.RemoveDir(dir);  // a deleted partition's directory; one that got a file since stays
      continue;
    }
    if (auto s = ops_.SyncDir(dir); !s.ok() && left.ok()) return RemoteError(absl::StrCat("syncing ", dir), s);
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
