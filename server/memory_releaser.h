#pragma once
// Gives the allocator's free pages back to the system when it holds many more than the
// process uses (issue 33, docs/performance.md "What a partition costs a broker").
//
// glibc returns freed memory only from the top of an arena: a burst of short-lived
// buffers (a fetch of every partition, a /metrics scrape, a topic's logs opening) leaves
// free chunks below live ones, resident until malloc_trim. Each arena keeps its own high
// water mark, so a broker's anonymous memory grew faster than what it held: at 2,000
// partitions 11.4 KiB each, at 10,000 9.1, for 5.8 allocated. Every
// memory.release.interval.ms the releaser compares the process's anonymous resident
// memory with the bytes in live allocations; when the difference has grown past the
// bound since the last release, it calls malloc_trim(0), which returns every whole free
// page of every arena (madvise(MADV_DONTNEED); the pages stay mapped and fault back in
// when they are used again). As Envoy's shrink_heap and jemalloc's decay purging do.
//
// The bound: max(2 MiB, 1/16 of the allocated bytes) above what the last release left
// (thread stacks, pages that hold one live chunk: what no release can return), so that a
// broker that allocates steadily is not trimmed at every interval for nothing.
//
// With jemalloc (STRATA_JEMALLOC) there is no thread: its background thread purges. Nor
// under AddressSanitizer, whose allocator is not glibc's.
// Thread-safe.

#include <cstdint>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace strata::server {

// The process's anonymous resident bytes (RssAnon: /proc/self/statm's resident less
// shared), 0 when it cannot be read.
uint64_t AnonymousResidentBytes();

class MemoryReleaser {
 public:
  // interval 0: no thread (ReleaseIfOverBound still works when called).
  explicit MemoryReleaser(absl::Duration interval);
  ~MemoryReleaser();  // stops the thread
  MemoryReleaser(const MemoryReleaser&) = delete;
  MemoryReleaser& operator=(const MemoryReleaser&) = delete;

  // One check: releases when the anonymous memory exceeds the allocated bytes by more
  // than the bound above what the last release left. Returns the anonymous bytes
  // released (0 when under the bound, with jemalloc or under AddressSanitizer).
  uint64_t ReleaseIfOverBound();

  uint64_t releases() const;        // strata_memory_releases_total
  uint64_t released_bytes() const;  // strata_memory_released_bytes_total

  static constexpr uint64_t kMinBound = 2 << 20;
  static constexpr uint64_t kBoundFraction = 16;  // of the allocated bytes

 private:
  void Run(absl::Duration interval);

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t floor_ ABSL_GUARDED_BY(mu_) = 0;  // anonymous less allocated after the last release
  uint64_t releases_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t released_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace strata::server
