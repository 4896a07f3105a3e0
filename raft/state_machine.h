#pragma once
// What a Raft node applies committed entries to, and takes snapshots of. Controllers and
// brokers plug in their RocksDB metadata image (controller/metadata_store.h); AppliedLog
// keeps the applied entries in memory (its snapshot is one file holding them all), the
// state machine of the Raft tests.
// Thread-safe: Apply, SaveSnapshot and RestoreSnapshot are called on the driver thread,
// the readers from any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/status.h"
#include "raft/types.h"
#include "storage/file_ops.h"

namespace strata::raft {

class StateMachine {
 public:
  virtual ~StateMachine() = default;
  // Called for each committed entry in index order, the quorum's configuration entries
  // (type other than kData) included: a state machine skips those, as it skips a
  // leader's empty no-op, but counts them as applied. After a restart: from just after
  // the snapshot restored at startup (a state machine that persists its own applied
  // index skips what it holds already). An error (its storage failed) stops the node.
  virtual absl::Status Apply(const Entry& entry) = 0;
  // Writes the state as of the last applied entry as files into the empty directory dir.
  virtual absl::Status SaveSnapshot(storage::FileOps& ops, const std::string& dir) = 0;
  // Replaces the state with a snapshot's (dir holds what SaveSnapshot wrote), which
  // covers every entry up to meta.index.
  virtual absl::Status RestoreSnapshot(storage::FileOps& ops, const std::string& dir, const SnapshotMeta& meta) = 0;
};

class AppliedLog final : public StateMachine {
 public:
  absl::Status Apply(const Entry& entry) override;
  absl::Status SaveSnapshot(storage::FileOps& ops, const std::string& dir) override;
  absl::Status RestoreSnapshot(storage::FileOps& ops, const std::string& dir, const SnapshotMeta& meta) override;
  // Up to max entries from index `from` (1-based).
  std::vector<Entry> Read(Index from, size_t max) const;
  Index last_applied() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);  // entries_[i].index == i + 1
};

}  // namespace strata::raft
