#pragma once
// The memory allocator of strata-server and what it holds, for /metrics (memory_metrics.h),
// the MemoryReleaser (memory_releaser.h) and the scale figures (docs/performance.md, "What
// a partition costs a broker").
//
// glibc's allocator, by default. With the CMake option STRATA_JEMALLOC (Debian's
// libjemalloc; never in sanitizer and fuzz builds, which keep their own allocator),
// jemalloc instead, with a background thread that returns freed pages to the system
// within dirty_decay_ms (10 s). glibc keeps the high-water mark of bursts: it raises its
// mmap threshold to the largest block freed (up to 32 MiB), then carves such blocks from
// per-thread arenas that it does not give back while anything lives above them. Issue 33
// measured both (docs/performance.md): at 10,000 partitions a broker's RssAnon was 92.4
// MiB with glibc and 72.5 MiB with jemalloc, for some 59 MiB allocated; with glibc's
// free pages given back by the MemoryReleaser (memory_releaser.h), 77-81 MiB.
// Thread-safe.

#include <cstdint>
#include <string>

namespace strata::server {

struct AllocatorStats {
  std::string allocator;   // "jemalloc" or "glibc"
  uint64_t allocated = 0;  // bytes in live allocations
  uint64_t resident = 0;   // bytes of the allocator's pages in memory
};

// A fresh reading (jemalloc: its statistics epoch advanced first).
AllocatorStats ReadAllocatorStats();

}  // namespace strata::server
