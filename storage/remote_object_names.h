#pragma once
// The names of a remote segment's objects, the same under every RemoteStorageManager: a
// segment copy is six checksummed objects (checksummed_object.h)
//   <topic id>-<partition>/<segment id>.log | .index | .timeindex | .snapshot |
//                                          .leader-epoch-checkpoint | .txnindex
// under the store's root (a directory, or a bucket and key prefix). docs/storage-format.md
// describes them.
// Thread-safe (stateless).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "storage/remote_storage_manager.h"

namespace strata::storage {

inline constexpr const char* kRemoteLogSuffix = ".log";
inline constexpr const char* kRemoteTxnIndexSuffix = ".txnindex";
// Every suffix, the .log first.
inline constexpr const char* kRemoteObjectSuffixes[] = {".log", ".index", ".timeindex", ".snapshot",
                                                        ".leader-epoch-checkpoint", ".txnindex"};

// The suffix of the object that holds an index of type.
const char* RemoteIndexSuffix(RemoteIndexType type);
// "<topic id>-<partition>" and "<topic id>-<partition>/<segment id><suffix>".
std::string RemotePartitionName(const RemoteLogSegmentId& id);
std::string RemoteObjectName(const RemoteLogSegmentId& id, const char* suffix);
// The objects a copy of data writes, in order (the .log first): each from a local file,
// or from bytes (the leader epochs; an empty object for a producer snapshot or an
// aborted-transaction index the segment does not have).
struct RemoteObjectSource {
  const char* suffix = "";
  std::string file;   // empty: from bytes
  std::string bytes;
};
std::vector<RemoteObjectSource> RemoteObjectSources(const LogSegmentData& data);

// InvalidArgument (Errc::kInvalidArgument) unless name is "<base64url>-<partition>/
// <base64url>.<suffix>[.tmp]" (an object name of this layout, never a path out of it).
absl::Status CheckRemoteObjectName(const std::string& name);

// InvalidArgument (Errc::kInvalidArgument) unless the ids are base64url and the partition
// is not negative: a name never escapes its partition's directory or prefix.
absl::Status CheckRemoteSegmentId(const RemoteLogSegmentId& id);

}  // namespace strata::storage
