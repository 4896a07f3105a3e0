#pragma once
// RaftStorage: where a node's Raft state lives on disk, in its metadata.log.dir:
//   quorum-state             the hard state (term, vote, commit) as JSON, written
//                            atomically (tmp, fsync, rename, fsync dir) when it changes
//   __cluster_metadata-0/    a storage::Log; entry i is the batch at offset i - 1, one
//                            record whose value is the entry's data, with the entry's
//                            term in the batch's partitionLeaderEpoch
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
  static absl::StatusOr<std::unique_ptr<RaftStorage>> Open(storage::FileOps& ops, const std::string& dir);

  // What was persisted, to restart the core from.
  const HardState& hard_state() const { return hard_state_; }
  absl::StatusOr<std::vector<Entry>> ReadEntries() const;

  // Makes entries (overwriting the log from entries.front().index) and, when changed,
  // the hard state durable.
  absl::Status Save(const Ready& ready);
  // The index of the last persisted entry (0 when empty).
  int64_t last_index() const;
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
