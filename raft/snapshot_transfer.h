#pragma once
// Moving a sealed snapshot between SnapshotStores as a stream of SnapshotChunk messages
// (proto/raft.proto): used by InstallSnapshot (leader to follower) and Observe (any
// node to an observer). The sender walks the manifest's files in chunks; the receiver
// writes them into a partial directory and seals it when the last chunk arrived and
// every file matches the manifest.
// SnapshotReceiver is not thread-safe; ForEachSnapshotChunk is.

#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "raft.pb.h"
#include "raft/snapshot_store.h"

namespace strata::raft {

inline constexpr size_t kSnapshotChunkBytes = 1 << 20;

// Calls emit for every chunk of the sealed snapshot meta in store, in order; stops
// with CANCELLED when emit returns false.
absl::Status ForEachSnapshotChunk(const SnapshotStore& store, storage::FileOps& ops, const SnapshotMeta& meta,
                                  const std::function<bool(v1::SnapshotChunk&)>& emit,
                                  size_t chunk_bytes = kSnapshotChunkBytes);

class SnapshotReceiver {
 public:
  explicit SnapshotReceiver(SnapshotStore& store) : store_(store) {}
  ~SnapshotReceiver();  // drops an unfinished partial snapshot
  // Takes the next chunk; after the one with done set, the snapshot is sealed.
  absl::Status Accept(const v1::SnapshotChunk& chunk);
  bool sealed() const { return sealed_; }
  const SnapshotMeta& meta() const { return manifest_->meta; }

 private:
  SnapshotStore& store_;
  std::optional<SnapshotManifest> manifest_;
  PartialSnapshot partial_;
  bool sealed_ = false;
};

}  // namespace strata::raft
