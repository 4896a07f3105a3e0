#pragma once
// RaftStorage: where a node's Raft state lives on disk, in its metadata.log.dir:
//   quorum-state             the hard state (term, vote, commit) as JSON, written
//                            atomically (tmp, fsync, rename, fsync dir) when it changes
//   __cluster_metadata-0/    a storage::Log; entry i is the batch at offset i - 1, one
//                            record whose value is the entry's data, with the entry's
//                            term in the batch's partitionLeaderEpoch; a
//                            configuration entry is a control batch whose record key
//                            is Kafka's control key (KRAFT_VERSION or KRAFT_VOTERS)
//   snapshots/               the SnapshotStore (snapshot_store.h)
// After a snapshot the log start moves to the previous snapshot's index S (offset S,
// entry S + 1) and whole segments below it are deleted; installing a received snapshot
// restarts the log empty at offset S.
// Save() makes a Ready's entries and hard state durable before its messages are sent.
// Any I/O error is returned; the driver treats it as fatal (a node must never vote or
// lead on a log it cannot read or write).
// Not thread-safe: the driver thread owns it.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "raft/types.h"
#include "storage/log.h"

namespace strata::raft {

inline constexpr char kMetadataLogDirName[] = "__cluster_metadata-0";
inline constexpr char kQuorumStateFile[] = "quorum-state";

class RaftStorage {
 public:
  // snapshot: the latest sealed snapshot (index 0: none). A log that does not continue
  // it (a crash between sealing a received snapshot and restarting the log) is
  // restarted empty after it.
  static absl::StatusOr<std::unique_ptr<RaftStorage>> Open(storage::FileOps& ops, const std::string& dir,
                                                           const SnapshotMeta& snapshot = {},
                                                           int64_t segment_bytes = 1 << 30);

  // What was persisted, to restart the core from.
  const HardState& hard_state() const { return hard_state_; }
  // The entries after `after`, in order.
  absl::StatusOr<std::vector<Entry>> ReadEntries(Index after = 0) const;
  // Up to max_bytes of entries from index `from` on (at least one when any is there);
  // OFFSET_OUT_OF_RANGE below the log start. Thread-safe with the driver's writes.
  absl::StatusOr<std::vector<Entry>> ReadFrom(Index from, Index up_to, size_t max_bytes) const;

  // Makes entries (overwriting the log from entries.front().index) and, when changed,
  // the hard state durable.
  absl::Status Save(const Ready& ready);
  // The index of the last persisted entry (0 when empty).
  int64_t last_index() const;
  // The first index still in the log (entries before it are in a snapshot).
  int64_t first_index() const;
  // A snapshot at index is sealed: entries up to it may go; whole segments below it are
  // deleted.
  absl::Status CompactTo(Index index);
  // A received snapshot is installed: the log restarts empty after it.
  absl::Status ResetTo(const SnapshotMeta& snapshot);
  // The log's files are still where they were opened (a node whose metadata log was
  // removed from under it must stop). FAILED_PRECONDITION naming what is missing.
  absl::Status CheckFilesPresent() const;
  // Closes the log cleanly.
  absl::Status Close();

 private:
  RaftStorage(storage::FileOps& ops, std::string dir) : ops_(ops), dir_(std::move(dir)) {}
  absl::Status WriteHardState(const HardState& hs);

  storage::FileOps& ops_;
  const std::string dir_;
  HardState hard_state_;
  std::unique_ptr<storage::Log> log_;
};

std::string FormatQuorumState(const HardState& hs);
absl::StatusOr<HardState> ParseQuorumState(const std::string& text, const std::string& file);

}  // namespace strata::raft
