#pragma once
// LogOptions: what a Log is opened with (its dir, settings, clock, scheduler, failure
// channel and the log dir's checkpoints), and LoadStats: what opening it found and did.
// Shared by Log (log.h) and LogLoader (log_loader.h), so that neither includes the other.
// Thread-safe (value types).

#include <cstdint>
#include <string>

#include "storage/clock.h"
#include "storage/file_ops.h"
#include "storage/flush_stats.h"
#include "storage/log_config.h"
#include "storage/log_dir_failure_channel.h"
#include "storage/log_segment.h"
#include "storage/scheduler.h"

namespace strata::storage {

struct LogOptions {
  FileOps* ops = FileOps::Default();
  std::string dir;  // the partition directory, <log dir>/<topic>-<partition>
  LogConfig config;
  Clock* clock = Clock::System();
  Scheduler* scheduler = nullptr;  // null: deleted segments are removed at once
  // Nullable: without a channel, I/O errors are only returned.
  LogDirFailureChannel* failure_channel = nullptr;
  // Nullable: where flushes are counted and timed (the LogManager's).
  FlushStats* flush_stats = nullptr;
  // From the log dir's checkpoints.
  int64_t recovery_point = 0;
  int64_t log_start_offset = 0;
  int64_t high_watermark = 0;
  bool had_clean_shutdown = false;
};

// Options for a segment of the log described by options.
SegmentOptions SegmentOptionsFor(const LogOptions& options, int64_t base_offset, std::string suffix = "",
                                 bool active = false);

// What loading found and did, for logs, metrics and tests.
struct LoadStats {
  int segments_loaded = 0;
  int segments_recovered = 0;
  int64_t bytes_recovered = 0;  // read and validated by recovery (the unflushed tail)
  int indexes_rebuilt = 0;
  int swaps_completed = 0;
  int64_t bytes_truncated = 0;
  int64_t producer_snapshot_offset = -1;  // -1: no snapshot used
  int64_t producer_batches_replayed = 0;
  // 1 when producer state had to be rebuilt from the log start (no snapshot at or below
  // the recovery point, and batches to replay): what seed 004 keeps at zero for a log
  // whose only problem is an interrupted swap or a missing index.
  int producer_state_rebuilds = 0;
};

}  // namespace strata::storage
