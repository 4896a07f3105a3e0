#pragma once
// The memory allocator of strata-server and what it holds, for /metrics and the scale
// figures (docs/performance.md, "What a partition costs a broker").
//
// glibc's allocator, by default. With the CMake option STRATA_JEMALLOC (Debian's
// libjemalloc; never in sanitizer and fuzz builds, which keep their own allocator),
// jemalloc instead, with a background thread that returns freed pages to the system
// within dirty_decay_ms (10 s). glibc keeps the high-water mark of bursts: it raises its
// mmap threshold to the largest block freed (up to 32 MiB), then carves such blocks from
// per-thread arenas that it does not give back while anything lives above them. Issue 33
// measured both (docs/performance.md): at 10,000 partitions a broker's RssAnon was 92.4
// MiB with glibc and 72.5 MiB with jemalloc, for some 59 MiB allocated; with glibc's
// free pages given back by the MemoryReleaser (memory_releaser.h), 79-81 MiB.
//
//   strata_memory_allocated_bytes{allocator}  bytes in live allocations
//   strata_memory_resident_bytes{allocator}   the allocator's pages in memory: the live
//                                             allocations, its caches and free pages not
//                                             yet returned, its own metadata
//   strata_memory_releases_total,             the free pages given back by the
//   strata_memory_released_bytes_total        MemoryReleaser (glibc; memory_releaser.h)
// Thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace strata::server {

struct AllocatorStats {
  std::string allocator;   // "jemalloc" or "glibc"
  uint64_t allocated = 0;  // bytes in live allocations
  uint64_t resident = 0;   // bytes of the allocator's pages in memory
};

// A fresh reading (jemalloc: its statistics epoch advanced first).
AllocatorStats ReadAllocatorStats();

class MemoryReleaser;

class AllocatorMetrics final : public prometheus::Collectable {
 public:
  // releaser: null when the process has none (its counters are then left out).
  explicit AllocatorMetrics(const MemoryReleaser* releaser = nullptr) : releaser_(releaser) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const MemoryReleaser* releaser_;
};

}  // namespace strata::server
