#pragma once
// RemoteLogReader: reads records and timestamps from the remote tier for fetches and
// ListOffsets below the local log start (KIP-405). The work runs on
// remote.log.reader.threads threads of its own (Submit), never on a network or io
// thread: a request that needs the remote tier is answered from there. Offset and time
// indexes of remote segments are kept in memory, bounded by
// remote.log.index.file.cache.total.size.bytes; the .log objects are read in aligned
// blocks of kBlockBytes kept on local disk (RemoteChunkCache,
// rsm.config.fetch.chunk.cache.*), so a consumer reading on fetches and verifies each
// block once; the blocks after the last one a read touched are fetched ahead on reader
// threads (rsm.config.fetch.chunk.cache.prefetch.max.size of them at most in flight),
// across into the next copy when the segment ends, so a sequential consumer finds them
// cached. Every object is checked against its
// checksum by the RemoteStorageManager: a mismatch or a missing object is
// KAFKA_STORAGE_ERROR for that partition only.
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/rate_quota.h"
#include "broker/tiered/remote_chunk_cache.h"
#include "broker/tiered/remote_read_cache.h"
#include "controller/remote_log_segments.h"
#include "storage/remote_storage_manager.h"
#include "storage/file_slice.h"
#include "storage/scheduler.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace strata::broker {

struct RemoteLogReaderOptions {
  storage::RemoteStorageManager* remote_storage = nullptr;  // required
  int32_t threads = 10;                                     // remote.log.reader.threads
  int64_t index_cache_bytes = 64 << 20;                     // remote.log.index.file.cache.total.size.bytes
  RemoteChunkCache* chunk_cache = nullptr;                  // required: the .log blocks read
  int64_t prefetch_max_bytes = 4 << 20;                     // rsm.config.fetch.chunk.cache.prefetch.max.size
  size_t max_pending = 1000;                                // reads waiting for a thread
  // remote.log.manager.fetch.max.bytes.per.second over every remote read of this broker
  // (null: none; FetchQuotaExceeded).
  RateQuota* fetch_quota = nullptr;
};

struct RemoteLogReaderStats {
  int64_t reads = 0;
  int64_t read_bytes = 0;
  int64_t read_errors = 0;
  int64_t index_cache_hits = 0;
  int64_t index_cache_misses = 0;
  int64_t fetch_throttled = 0;  // partitions a fetch did not read remotely: the quota was exceeded
  int64_t prefetches = 0;       // blocks fetched ahead of a reader
  RemoteChunkCacheStats chunk_cache;
};

class RemoteLogReader {
 public:
  using Segment = controller::RemoteLogSegments::Segment;
  static constexpr uint64_t kBlockBytes = 1 << 20;

  explicit RemoteLogReader(RemoteLogReaderOptions options);
  ~RemoteLogReader();  // Shutdown()

  // Runs work on a reader thread. RESOURCE_EXHAUSTED when too many wait (the caller
  // answers KAFKA_STORAGE_ERROR) or after Shutdown.
  absl::Status Submit(std::function<void()> work);
  // Drops the work not yet started and waits for the running.
  void Shutdown();

  // What a fetch reads from a remote segment: ranges of the chunk cache's blocks, one
  // slice per block, sent as they are (sendfile on PLAINTEXT, as local reads are).
  struct Records {
    std::vector<storage::FileSlice> slices;
    uint64_t size = 0;
    // The bytes in memory (READ_COMMITTED's aborted-transaction lookup, tests).
    absl::StatusOr<std::string> ReadAll() const;
  };
  // The records of segment from the batch that holds fetch_offset: max_bytes of them
  // (at least that batch when min_one_batch), up to the segment's end; as a local read,
  // the last batch may be cut (Kafka's clients read the whole ones). Empty when the
  // segment holds nothing at or after fetch_offset. next: the copy that follows segment
  // (null: none, or the local log follows), whose first blocks are prefetched when the
  // read ends near segment's end.
  absl::StatusOr<Records> Read(const Segment& segment, int64_t fetch_offset, uint64_t max_bytes, bool min_one_batch,
                               const Segment* next = nullptr);
  // The first record at or after start_offset with a timestamp >= target, or nullopt;
  // compressed batches are decoded too (storage::FindRecordByTimestamp).
  absl::StatusOr<std::optional<storage::TimestampOffset>> FindOffsetByTimestamp(const Segment& segment,
                                                                                int64_t target,
                                                                                int64_t start_offset);

  // Appends the entries of segment's aborted-transaction index that overlap
  // [fetch_offset, upper_bound) (storage::TransactionIndex::Collect); true when an entry
  // shows that no later segment can add one.
  absl::StatusOr<bool> CollectAbortedTxns(const Segment& segment, int64_t fetch_offset, int64_t upper_bound,
                                          std::vector<storage::AbortedTxn>* out);

  // Whether the remote fetch quota is exceeded now (KIP-956): the fetch handler then
  // reads nothing from the remote tier for a partition, which answers no records (as
  // Kafka's does), and the consumer fetches again. Counted in stats().fetch_throttled.
  bool FetchQuotaExceeded();

  RemoteLogReaderStats stats() const;

 private:
  // The segment's index of type (cached).
  absl::StatusOr<std::shared_ptr<const std::string>> Index(const Segment& segment, storage::RemoteIndexType type);
  // Calls each(block, from, to) for the part of every block of the segment's .log that
  // bytes [start, end) cover (fewer at its end), through the chunk cache. Returns the
  // last block it read (nullopt: none).
  using BlockPartFn = std::function<absl::Status(const RemoteChunkCache::Block& block, uint64_t from, uint64_t to)>;
  absl::StatusOr<std::optional<int64_t>> ForEachBlock(const Segment& segment, uint64_t start, uint64_t end,
                                                      const BlockPartFn& each);
  // Bytes [start, end) of the segment's .log (fewer at its end), through the chunk cache.
  absl::StatusOr<std::string> ReadRange(const Segment& segment, uint64_t start, uint64_t end);
  // Block `block` of the segment's .log, from the chunk cache or the store.
  absl::StatusOr<RemoteChunkCache::Block> GetBlock(const Segment& segment, int64_t block);
  // Has the blocks after `block` (as many as prefetch_max_bytes covers: the rest of the
  // segment, then the first ones of next when there is one) fetched on reader threads,
  // those not cached or coming already; nothing when prefetch is off.
  void Prefetch(const Segment& segment, int64_t block, const Segment* next);
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

  RemoteReadCache indexes_;

  std::atomic<int64_t> reads_{0};
  std::atomic<int64_t> read_bytes_{0};
  std::atomic<int64_t> read_errors_{0};
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> misses_{0};
  std::atomic<int64_t> fetch_throttled_{0};
  std::atomic<int64_t> prefetches_{0};
  absl::Mutex prefetch_mu_;
  std::set<RemoteChunkCache::Key> prefetching_ ABSL_GUARDED_BY(prefetch_mu_);  // submitted, not yet fetched
};

}  // namespace strata::broker
