#include "server/allocator.h"

#include <malloc.h>


#if STRATA_JEMALLOC
#include <jemalloc/jemalloc.h>

// jemalloc reads its options from this symbol at its first allocation: purge freed pages
// on a background thread (otherwise only an allocation in the same arena purges them, and
// an idle thread's arena keeps what a burst left).
extern "C" {
const char* malloc_conf = "background_thread:true";
}
#endif

namespace strata::server {

#if STRATA_JEMALLOC
namespace {
uint64_t Stat(const char* name) {
  size_t value = 0;
  size_t size = sizeof value;
  if (mallctl(name, &value, &size, nullptr, 0) != 0) return 0;
  return value;
}
}  // namespace

AllocatorStats ReadAllocatorStats() {
  // The statistics are a snapshot taken when the epoch advances.
  uint64_t epoch = 1;
  size_t size = sizeof epoch;
  mallctl("epoch", &epoch, &size, &epoch, size);
  return AllocatorStats{.allocator = "jemalloc", .allocated = Stat("stats.allocated"),
                        .resident = Stat("stats.resident")};
}
#else
AllocatorStats ReadAllocatorStats() {
  struct mallinfo2 info = mallinfo2();
  // In use: arena chunks in use and mmapped chunks; in memory: the arenas' pages and the
  // mmapped chunks (an upper bound: free pages inside an arena may have been released).
  return AllocatorStats{.allocator = "glibc", .allocated = info.uordblks + info.hblkhd,
                        .resident = info.arena + info.hblkhd};
}
#endif

}  // namespace strata::server
