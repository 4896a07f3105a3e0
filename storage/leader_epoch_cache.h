#pragma once
// The leader-epoch cache of a partition: which leader epoch began at which offset,
// persisted in leader-epoch-checkpoint. Followers use EndOffsetFor (the answer to
// OffsetForLeaderEpoch) to find where their log diverges from the leader's.
// Every change is written to the checkpoint before it becomes visible; a change whose
// write fails changes nothing. Assign(list) validates every entry first and publishes
// all or none under one lock, so a reader never sees half a restore.
// Except an Assign with EpochSync::kDeferred (a new epoch on the append path, and a new
// leader's epoch start): visible at once, written by the next Sync(). The log calls
// Sync() in every flush before the recovery point moves, outside the lock appends take
// (as Kafka does since KAFKA-15046): a deferred entry lost in a crash starts at or above
// the recovery point, where an unclean restart reads the epochs from the batches again.
// Thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/checkpoint_file.h"
#include "storage/file_ops.h"

namespace strata::storage {

enum class EpochSync { kNow, kDeferred };

inline constexpr int32_t kUndefinedEpoch = -1;
inline constexpr int64_t kUndefinedEpochOffset = -1;

class LeaderEpochCache {
 public:
  // Reads the checkpoint at path if it exists.
  static absl::StatusOr<std::unique_ptr<LeaderEpochCache>> Load(FileOps& ops, std::string path);

  // Records that `epoch` began at `start_offset`. An entry for a lower-or-equal epoch
  // at the same or a higher offset is replaced (the log diverged there).
  absl::Status Assign(int32_t epoch, int64_t start_offset, EpochSync sync = EpochSync::kNow);
  // Applies entries in order as Assign does; every entry must be non-negative with
  // epochs strictly and offsets weakly increasing, or nothing changes.
  absl::Status Assign(const std::vector<EpochEntry>& entries, EpochSync sync = EpochSync::kNow);
  // Writes the entries durably when a deferred Assign changed them since the last write.
  absl::Status Sync();
  bool has_unsynced() const;
  // Replaces the whole content (a restore from remote storage): all or none.
  absl::Status Restore(const std::vector<EpochEntry>& entries);
  // What Restore and Assign check: non-negative, epochs strictly and offsets weakly
  // increasing (INVALID_ARGUMENT naming the entry).
  static absl::Status Validate(const std::vector<EpochEntry>& entries);

  std::optional<EpochEntry> Latest() const;
  std::optional<EpochEntry> Earliest() const;
  // (epoch, end offset) for OffsetForLeaderEpoch, as Kafka answers it.
  std::pair<int32_t, int64_t> EndOffsetFor(int32_t requested_epoch, int64_t log_end_offset) const;
  // The epoch of the entry covering offset, if any.
  std::optional<int32_t> EpochForOffset(int64_t offset) const;
  // Removes entries starting at or after end_offset (truncation of the log's end).
  absl::Status TruncateFromEnd(int64_t end_offset);
  // Removes entries wholly below start_offset; the one covering it now starts there.
  absl::Status TruncateFromStart(int64_t start_offset);
  absl::Status Clear();

  std::vector<EpochEntry> entries() const;
  const std::string& path() const { return path_; }

 private:
  LeaderEpochCache(FileOps& ops, std::string path) : ops_(ops), path_(std::move(path)) {}
  // Writes next to the checkpoint and, when that succeeds, publishes it (kNow); or
  // publishes it for the next Sync (kDeferred).
  absl::Status Publish(std::vector<EpochEntry> next, EpochSync sync = EpochSync::kNow)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(file_mu_, mu_);
  static absl::Status ApplyAssign(std::vector<EpochEntry>& entries, EpochEntry entry);

  FileOps& ops_;
  const std::string path_;
  // Held by whoever writes the file (kNow changes under mu_ too, Sync without it), so
  // that writes land in the order of the states they write.
  absl::Mutex file_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  std::vector<EpochEntry> entries_ ABSL_GUARDED_BY(mu_);
  bool unsynced_ ABSL_GUARDED_BY(mu_) = false;  // entries_ differ from the file
};

}  // namespace strata::storage
