#pragma once
// RemoteChunkCache: aligned blocks of remote .log objects kept in files of a local
// directory (rsm.config.fetch.chunk.cache.path), bounded in bytes
// (rsm.config.fetch.chunk.cache.size), least recently used out first. A block arrives
// verified (the RemoteStorageManager checks every chunk it reads against its checksum),
// is written once and then read from the page cache by every consumer after the first.
// Many readers asking for one block at once cause one fetch: the others wait for it.
//
// A file is `<segment id, base64url>.<block>`, written under a temporary name and renamed.
// Nothing is fsynced: the directory is emptied when the cache opens (after a crash a
// renamed file may not hold what was written, and checking every file would cost as
// much as reading it again). A block the cache cannot write (a full or failing disk) is
// served from memory once (through the same File interface) and counted in
// stats().write_errors; the broker serves on.
// Thread-safe.

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/file_ops.h"
#include "storage/file_slice.h"

namespace strata::broker {

struct RemoteChunkCacheOptions {
  std::string dir;                                            // created when missing; emptied
  int64_t budget_bytes = int64_t{1} << 30;                    // the files' bytes at most
  storage::FileOps* ops = storage::FileOps::Default();       // tests inject faults
};

struct RemoteChunkCacheStats {
  int64_t hits = 0;          // blocks read from the cache
  int64_t misses = 0;        // blocks fetched from the store
  int64_t waits = 0;         // reads that waited for another's fetch of the same block
  int64_t write_errors = 0;  // blocks served from memory: the cache could not keep them
  int64_t evictions = 0;
  int64_t bytes = 0;  // in the cache now
  int64_t blocks = 0;
};

class RemoteChunkCache {
 public:
  using Key = std::pair<std::string, int64_t>;  // a segment id (raw bytes), a block number
  using Fetch = std::function<absl::StatusOr<std::string>()>;

  // One block: a file of the cache (opened, so eviction cannot take it from a reader),
  // or, when the cache could not keep it, a File over the bytes in memory.
  class Block {
   public:
    uint64_t size() const { return size_; }
    // Appends bytes [from, to) of the block to out. REQUIRES: from <= to <= size().
    absl::Status AppendTo(std::string& out, uint64_t from, uint64_t to) const;
    // Bytes [from, from + count) as a slice the network layer sends with sendfile.
    // REQUIRES: from + count <= size().
    storage::FileSlice Slice(uint64_t from, uint64_t count) const;

   private:
    friend class RemoteChunkCache;
    std::shared_ptr<storage::File> file_;
    uint64_t size_ = 0;
  };

  // The directory created (with its parents) and emptied of what an earlier run left.
  static absl::StatusOr<std::unique_ptr<RemoteChunkCache>> Open(RemoteChunkCacheOptions options);

  // The block of key: from the cache, or from fetch() (called at most once at a time
  // per key: a concurrent Get waits for it), then kept. A failed fetch is returned (the
  // waiters then fetch for themselves).
  absl::StatusOr<Block> Get(const Key& key, const Fetch& fetch);
  // Whether key is cached or being fetched (a prefetch of it would add nothing).
  bool Has(const Key& key) const;

  RemoteChunkCacheStats stats() const;
  const std::string& dir() const { return options_.dir; }

 private:
  explicit RemoteChunkCache(RemoteChunkCacheOptions options) : options_(std::move(options)) {}
  std::string PathOf(const Key& key) const;
  // Writes the fetched bytes to key's file; the opened file, or null when it failed.
  std::shared_ptr<storage::File> Keep(const Key& key, const std::string& bytes);
  void EvictLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RemoteChunkCacheOptions options_;
  mutable absl::Mutex mu_;
  struct Entry {
    uint64_t size = 0;
    std::list<Key>::iterator at;
  };
  std::list<Key> lru_ ABSL_GUARDED_BY(mu_);  // most recent first
  std::map<Key, Entry> entries_ ABSL_GUARDED_BY(mu_);
  std::set<Key> fetching_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t waits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t write_errors_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t evictions_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::broker
