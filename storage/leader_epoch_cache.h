#pragma once
// The leader-epoch cache of a partition: which leader epoch began at which offset,
// persisted in leader-epoch-checkpoint. Followers use EndOffsetFor (the answer to
// OffsetForLeaderEpoch) to find where their log diverges from the leader's.
// Every change is written to the checkpoint before it becomes visible; a change whose
// write fails changes nothing. Assign(list) validates every entry first and publishes
// all or none under one lock, so a reader never sees half a restore.
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

inline constexpr int32_t kUndefinedEpoch = -1;
inline constexpr int64_t kUndefinedEpochOffset = -1;

class LeaderEpochCache {
 public:
  // Reads the checkpoint at path if it exists.
  static absl::StatusOr<std::unique_ptr<LeaderEpochCache>> Load(FileOps& ops, std::string path);

  // Records that `epoch` began at `start_offset`. An entry for a lower-or-equal epoch
  // at the same or a higher offset is replaced (the log diverged there).
  absl::Status Assign(int32_t epoch, int64_t start_offset);
  // Applies entries in order as Assign does; every entry must be non-negative with
  // epochs strictly and offsets weakly increasing, or nothing changes.
  absl::Status Assign(const std::vector<EpochEntry>& entries);
  // Replaces the whole content (a restore from remote storage): all or none.
  absl::Status Restore(const std::vector<EpochEntry>& entries);

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
  // Writes next to the checkpoint and, when that succeeds, publishes it.
  absl::Status Publish(std::vector<EpochEntry> next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static absl::Status ApplyAssign(std::vector<EpochEntry>& entries, EpochEntry entry);

  FileOps& ops_;
  const std::string path_;
  mutable absl::Mutex mu_;
  std::vector<EpochEntry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::storage
