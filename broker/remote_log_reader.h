#pragma once
// RemoteLogReader: reads records and timestamps from the remote tier for fetches and
// ListOffsets below the local log start (KIP-405). The work runs on
// remote.log.reader.threads threads of its own (Submit), never on a network or io
// thread: a request that needs the remote tier is answered from there. Offset and time
// indexes of remote segments are kept in a cache bounded by
// remote.log.index.file.cache.total.size.bytes (least recently used out first); record
// bytes are read per request. Every object is checked against its checksum by the
// RemoteStorageManager: a mismatch or a missing object is KAFKA_STORAGE_ERROR for that
// partition only.
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "controller/remote_log_segments.h"
#include "storage/remote_storage_manager.h"
#include "storage/scheduler.h"
#include "storage/time_index.h"

namespace strata::broker {

struct RemoteLogReaderOptions {
  storage::RemoteStorageManager* remote_storage = nullptr;  // required
  int32_t threads = 10;                                     // remote.log.reader.threads
  int64_t index_cache_bytes = 64 << 20;                     // remote.log.index.file.cache.total.size.bytes
  size_t max_pending = 1000;                                // reads waiting for a thread
};

struct RemoteLogReaderStats {
  int64_t reads = 0;
  int64_t read_bytes = 0;
  int64_t read_errors = 0;
  int64_t index_cache_hits = 0;
  int64_t index_cache_misses = 0;
};

class RemoteLogReader {
 public:
  using Segment = controller::RemoteLogSegments::Segment;

  explicit RemoteLogReader(RemoteLogReaderOptions options);
  ~RemoteLogReader();  // Shutdown()

  // Runs work on a reader thread. RESOURCE_EXHAUSTED when too many wait (the caller
  // answers KAFKA_STORAGE_ERROR) or after Shutdown.
  absl::Status Submit(std::function<void()> work);
  // Drops the work not yet started and waits for the running.
  void Shutdown();

  // The records of segment from the batch that holds fetch_offset: whole batches of at
  // most max_bytes in all, or the first batch whole when min_one_batch. Empty when the
  // segment holds nothing at or after fetch_offset.
  absl::StatusOr<std::string> Read(const Segment& segment, int64_t fetch_offset, uint64_t max_bytes,
                                   bool min_one_batch);
  // The first record at or after start_offset with a timestamp >= target (an
  // uncompressed batch's own record; a compressed batch's first offset), or nullopt.
  absl::StatusOr<std::optional<storage::TimestampOffset>> FindOffsetByTimestamp(const Segment& segment,
                                                                                int64_t target,
                                                                                int64_t start_offset);

  RemoteLogReaderStats stats() const;

 private:
  // The segment's index of type (cached).
  absl::StatusOr<std::string> Index(const Segment& segment, storage::RemoteIndexType type);
  // The position in the .log of the last offset-index entry at or below offset.
  absl::StatusOr<uint64_t> PositionFor(const Segment& segment, int64_t offset);
  // Reads the .log from position: the first batch that ends at or after offset and its
  // position (nullopt: none before the end).
  struct Found {
    uint64_t position = 0;
    std::string bytes;  // from position: at least the whole first batch header
  };
  absl::StatusOr<std::optional<Found>> SeekBatch(const Segment& segment, uint64_t position, int64_t offset,
                                                 uint64_t want);

  const RemoteLogReaderOptions options_;
  storage::Scheduler pool_;

  absl::Mutex mu_;
  using CacheKey = std::pair<std::string, int>;  // segment id, index type
  std::list<CacheKey> lru_ ABSL_GUARDED_BY(mu_);  // most recent first
  struct Cached {
    std::string data;
    std::list<CacheKey>::iterator at;
  };
  std::map<CacheKey, Cached> cache_ ABSL_GUARDED_BY(mu_);
  int64_t cached_bytes_ ABSL_GUARDED_BY(mu_) = 0;

  std::atomic<int64_t> reads_{0};
  std::atomic<int64_t> read_bytes_{0};
  std::atomic<int64_t> read_errors_{0};
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> misses_{0};
};

}  // namespace strata::broker
