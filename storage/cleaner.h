#pragma once
// Cleaner: one cleaning (compaction) of one log, as Kafka's log cleaner does it.
//  1. The dirty part runs from the first dirty offset (the cleaner checkpoint) to the
//     first uncleanable offset: the start of the first segment that is active, reaches
//     the high watermark, or holds a record newer than min.compaction.lag.ms.
//  2. An OffsetMap of key -> latest offset is built over the dirty part, batch by batch,
//     until it is full; the map's end is where mapping stopped (a whole batch).
//  3. The segments from the log start up to the map's end are rewritten, in groups
//     that fit one segment, keeping a record when it is at or above the map's end, or
//     its key's latest (mapped or, below the first dirty offset, already cleaned), and
//     dropping a tombstone (null value) once its timestamp is delete.retention.ms old;
//     records without a key are dropped (a compacted topic refuses them on produce).
//     A batch whose records all stay is copied byte for byte; one that loses some is
//     rebuilt with the same base offset, last offset delta, producer fields and codec;
//     one that loses all is dropped, except each producer's last batch, kept empty so
//     the producer's sequence survives (a reload of producer state sees it). A
//     transaction marker goes once it is older than delete.retention.ms (its timestamp)
//     and no batch of its transaction is left before it, with its aborted-index entry;
//     producer snapshots at or below it are deleted first (replayed, one could hold the
//     transaction open with no marker left to close it). Other control batches stay.
//  4. Each group is written into <base>.*.cleaned and swapped in by
//     Log::ReplaceSegments (flushed, .swap, old .deleted, swap into place).
// Producer state, the leader-epoch cache, log start and end offsets never change.
// Decisions where Kafka left room are in storage/README.md ("Compaction").
// Thread-safe: stateless functions; a cleaning reads the log's rolled segments
// through file handles and takes the log's lock only to swap.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/log.h"
#include "storage/throttler.h"

namespace strata::storage {

// Where the dirty part of a log lies and how dirty it is.
struct Dirtiness {
  int64_t first_dirty_offset = 0;       // the checkpoint, within the log
  int64_t first_uncleanable_offset = 0; // the dirty part is [first dirty, this)
  int64_t clean_bytes = 0;              // bytes of the segments below the dirty part
  int64_t dirty_bytes = 0;              // bytes of the segments in it
  // max.compaction.lag.ms passed for the oldest dirty record: clean whatever the ratio.
  bool past_max_lag = false;
  double ratio() const {
    int64_t total = clean_bytes + dirty_bytes;
    return total == 0 ? 0.0 : static_cast<double>(dirty_bytes) / static_cast<double>(total);
  }
  bool cleanable() const { return first_uncleanable_offset > first_dirty_offset && dirty_bytes > 0; }
};

// The dirtiness of `view` for a checkpoint (nullopt: never cleaned). A checkpoint below
// the log start, or above the log end (the log was truncated), restarts at the log start.
// Reads the first batch header of the first dirty segment (for max.compaction.lag.ms).
Dirtiness MeasureDirtiness(const CleaningView& view, std::optional<int64_t> checkpoint, int64_t now_ms);

struct CleanParams {
  int64_t now_ms = 0;
  size_t offset_map_bytes = 16 << 20;
  Throttler* throttler = nullptr;        // nullable: no pacing
  const std::atomic<bool>* abort = nullptr;  // nullable; true: stop with CANCELLED
};

struct CleanResult {
  int64_t first_dirty_offset = 0;
  int64_t next_dirty_offset = 0;  // the new checkpoint: the map's end
  int segments_cleaned = 0;       // old segments replaced
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t records_read = 0;
  int64_t records_removed = 0;
  int64_t tombstones_removed = 0;
  int64_t keyless_removed = 0;
  int64_t aborted_records_removed = 0;  // records of aborted transactions
  int64_t empty_batches_kept = 0;  // producers' last batches kept without records
  int64_t markers_removed = 0;     // transaction markers past their delete horizon
};

// Cleans `log` from `checkpoint` (nullopt: never cleaned). Nothing to clean is an OK
// result with next_dirty_offset == first_dirty_offset. Errors: an I/O error (also
// reported to the failure channel), CORRUPT_MESSAGE for a batch that does not decode,
// INVALID_ARGUMENT when the offset map cannot hold one batch's keys, ABORTED when the log
// changed under the cleaning, CANCELLED when params.abort was set.
absl::StatusOr<CleanResult> CleanLog(Log& log, std::optional<int64_t> checkpoint, const CleanParams& params);

}  // namespace strata::storage
