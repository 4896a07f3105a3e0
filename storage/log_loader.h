#pragma once
// LogLoader: brings a partition directory to a consistent state when a Log opens, and
// hands back what the Log starts from (LogLoadState). Each step is one function:
//  0. OpenDir: the directory, the leader-epoch checkpoint, the producer-state manager.
//  1. RemoveLeftovers: *.tmp and *.deleted files are removed; *.cleaned files are
//     removed along with every *.swap at or above the lowest cleaned offset (an
//     interrupted compaction that never finished writing).
//  2. CompleteSwaps: each remaining .log.swap is complete: it is validated and its
//     indexes rebuilt WITHOUT touching producer state; invalid bytes at its end fail
//     loading with an error saying how many. The segments it replaces are removed, and
//     it is renamed into place. Index .swap files without a .log.swap are renamed into
//     place.
//  3. OpenSegments: segments load; a missing or corrupt index is rebuilt, again without
//     touching producer state. Invalid batches below the recovery point fail loading
//     (flushed data is never dropped silently).
//  4. RecoverAboveRecoveryPoint, unless the shutdown was clean: segments from the
//     recovery point on are validated batch by batch, indexes rebuilt, the file cut at
//     the first invalid batch, and every later segment removed; the epochs seen are
//     assigned to the leader-epoch cache.
//  5. SetOffsets: a log that ends below its checkpointed log start restarts empty
//     there; the last segment becomes active; log start, log end, recovery point (the
//     log end) and high watermark are set. FlushRecovered (unclean shutdown only) makes
//     the rewritten segments and the directory durable.
//  6. LoadEpochsAndProducerState: the leader-epoch cache is cut to [log start, log end];
//     producer state is loaded from the newest snapshot at or below the recovery point
//     (the log end after a clean shutdown) and only the log after it is replayed.
// Not thread-safe: runs inside Log::Open before the log exists.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log_options.h"
#include "storage/log_segment.h"
#include "storage/producer_state.h"

namespace strata::storage {

// What loading produces from LogOptions: the state a Log is built from.
struct LogLoadState {
  SegmentMap segments;  // contiguous; the last is active
  std::unique_ptr<LeaderEpochCache> leader_epoch_cache;
  std::unique_ptr<ProducerStateManager> producer_state;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;  // the next offset
  int64_t recovery_point = 0;  // the log end: everything loaded is durable
  int64_t high_watermark = 0;  // the checkpointed one, within [log start, log end]
  LoadStats stats;
};

class LogLoader {
 public:
  // Runs the steps above, in order, on options.dir.
  static absl::StatusOr<LogLoadState> Load(const LogOptions& options);

 private:
  struct DirListing {
    std::set<int64_t> logs;                // live .log files
    std::set<int64_t> log_swaps;           // .log.swap files
    std::vector<std::string> index_swaps;  // .index.swap / .timeindex.swap names
  };

  explicit LogLoader(const LogOptions& options) : options_(options), ops_(*options.ops), dir_(options.dir) {}

  absl::Status OpenDir();
  absl::StatusOr<DirListing> RemoveLeftovers();
  absl::Status CompleteSwaps(DirListing& listing);
  absl::Status OpenSegments(const DirListing& listing);
  absl::Status RecoverAboveRecoveryPoint();
  absl::Status SetOffsets();
  absl::Status FlushRecovered();
  absl::Status LoadEpochsAndProducerState();
  // Removes the segments from `from` on (their bytes counted as truncated when asked).
  absl::Status DropSegmentsFrom(SegmentMap::iterator from, bool count_truncated);

  const LogOptions& options_;
  FileOps& ops_;
  const std::string& dir_;
  LogLoadState state_;
};

// Loads the newest producer snapshot at or below snapshot_bound (as
// ProducerStateManager::LoadNewestSnapshotAtOrBelow, which drops the others) and replays the batches of segments after it; returns the snapshot's
// offset (nullopt: none) and adds the batches replayed to *replayed. Loading and
// truncation (Log::TruncateTo) both rebuild producer state this way.
absl::StatusOr<std::optional<int64_t>> ReloadProducerState(
    ProducerStateManager& producer_state, const SegmentMap& segments,
    int64_t snapshot_bound, int64_t log_start_offset, int64_t* replayed);

}  // namespace strata::storage
