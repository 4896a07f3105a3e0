#pragma once
// SnapshotStore: the Raft snapshots of one node, in <metadata.log.dir>/snapshots/.
// Each snapshot is a directory named <index, 20 digits>-<term, 10 digits>.checkpoint
// holding the state machine's files (flat, no subdirectories) and, written last,
// `manifest.json`: index, term and per file its size and CRC32C. A directory without a
// manifest is not a snapshot. Snapshots are built, or received in chunks, each in its
// own `<name>.<n>.partial` directory (a node may build the snapshot it is also being
// sent) and renamed into place by Seal() once every file is
// durable (and, when received, matches the sender's manifest); partial directories
// left by a crash are removed by Open(). The newest two sealed snapshots are kept.
// Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/statusor.h"
#include "raft/types.h"
#include "storage/file_ops.h"

namespace strata::raft {

inline constexpr char kSnapshotsDirName[] = "snapshots";
inline constexpr char kSnapshotManifestFile[] = "manifest.json";

struct SnapshotFile {
  std::string name;
  int64_t bytes = 0;
  uint32_t crc32c = 0;
  bool operator==(const SnapshotFile&) const = default;
};

struct SnapshotManifest {
  SnapshotMeta meta;
  std::vector<SnapshotFile> files;
  int64_t total_bytes() const;
  std::string ToJson() const;
  static absl::StatusOr<SnapshotManifest> Parse(const std::string& json, const std::string& source);
};

std::string SnapshotDirName(const SnapshotMeta& meta);

// A snapshot being built or received.
struct PartialSnapshot {
  SnapshotMeta meta;
  std::string path;
};

class SnapshotStore {
 public:
  static absl::StatusOr<std::unique_ptr<SnapshotStore>> Open(storage::FileOps& ops, const std::string& dir);

  std::optional<SnapshotMeta> Latest() const;
  bool Has(const SnapshotMeta& meta) const;
  // The directory of a sealed snapshot.
  std::string PathOf(const SnapshotMeta& meta) const;
  absl::StatusOr<SnapshotManifest> ReadManifest(const SnapshotMeta& meta) const;

  // Starts an empty partial directory for meta.
  absl::StatusOr<PartialSnapshot> BeginPartial(const SnapshotMeta& meta);
  // Receiving: writes data at offset of a file in the partial directory; chunks come
  // in order, so offset must be the file's current size. File names are plain names.
  absl::Status WritePartialFile(const PartialSnapshot& partial, const std::string& name, int64_t offset,
                                absl::string_view data);
  // Makes the partial snapshot durable and renames it into place. When expected is
  // given (a received snapshot), the files must be exactly those it lists, with the
  // same sizes and CRCs; otherwise the partial directory is removed and an error names
  // the difference.
  absl::Status Seal(const PartialSnapshot& partial, const std::optional<SnapshotManifest>& expected = std::nullopt);
  // Drops a partial directory (a failed build or transfer).
  void AbortPartial(const PartialSnapshot& partial);

  // While a Pin lives, its snapshot stays on disk even when newer ones are sealed: a
  // node restores a snapshot on its own thread while a transfer on another seals newer
  // ones, and removing the one being read left RocksDB a directory without its CURRENT
  // (it then opened empty: "holds the image at entry 0"). A snapshot kept so goes when
  // its last pin does, if two newer ones are sealed by then.
  class Pin {
   public:
    Pin(SnapshotStore* store, SnapshotMeta meta) : store_(store), meta_(meta) {}
    ~Pin();
    Pin(const Pin&) = delete;
    Pin& operator=(const Pin&) = delete;

   private:
    SnapshotStore* const store_;
    const SnapshotMeta meta_;
  };
  // Null when meta is not a sealed snapshot.
  std::unique_ptr<Pin> PinSnapshot(const SnapshotMeta& meta);

  const std::string& dir() const { return dir_; }

 private:
  SnapshotStore(storage::FileOps& ops, std::string dir) : ops_(ops), dir_(std::move(dir)) {}
  absl::StatusOr<SnapshotManifest> Describe(const SnapshotMeta& meta, const std::string& path) const;
  absl::Status RemoveOldLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  storage::FileOps& ops_;
  const std::string dir_;
  mutable absl::Mutex mu_;
  std::vector<SnapshotMeta> sealed_ ABSL_GUARDED_BY(mu_);  // ascending by index
  int64_t next_partial_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<SnapshotMeta> pinned_ ABSL_GUARDED_BY(mu_);  // one per Pin alive
};

}  // namespace strata::raft
