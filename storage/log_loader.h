#pragma once
// LogLoader: brings a partition directory to a consistent state when a Log opens.
//  1. Leftovers: *.tmp and *.deleted files are removed; *.cleaned files are removed
//     along with every *.swap at or above the lowest cleaned offset (an interrupted
//     compaction that never finished writing).
//  2. Each remaining .log.swap is complete: it is validated and its indexes rebuilt
//     WITHOUT touching producer state; invalid bytes at its end fail loading with an
//     error saying how many. The segments it replaces are removed, and it is renamed
//     into place. Index .swap files without a .log.swap are renamed into place.
//  3. Segments load; a missing or corrupt index is rebuilt, again without touching
//     producer state. Invalid batches below the recovery point fail loading (flushed
//     data is never dropped silently).
//  4. Unless the shutdown was clean, segments from the recovery point on are
//     recovered: validated batch by batch, indexes rebuilt, the file cut at the first
//     invalid batch, and every later segment removed.
//  5. The leader-epoch cache is cut to [log start, log end]; producer state is loaded
//     from the newest snapshot at or below the recovery point (the log end after a
//     clean shutdown) and only the log after it is replayed.
// Not thread-safe: runs inside Log::Open before the log is shared.

#include "absl/status/status.h"

namespace strata::storage {

class Log;

class LogLoader {
 public:
  static absl::Status Load(Log& log);
};

}  // namespace strata::storage
