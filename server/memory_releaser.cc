#include "server/memory_releaser.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/sanitizers.h"
#include "server/allocator.h"

namespace strata::server {

uint64_t AnonymousResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0, shared = 0;  // pages
  const int read = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared);
  std::fclose(f);
  if (read != 3 || shared > resident) return 0;
  return (resident - shared) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// glibc's arenas hold the process's memory: not with jemalloc (its background thread
// purges), nor under AddressSanitizer (its own allocator).
#if STRATA_JEMALLOC || STRATA_ASAN
constexpr bool kGlibcArenas = false;
#else
constexpr bool kGlibcArenas = true;
#endif

MemoryReleaser::MemoryReleaser(absl::Duration interval) {
  if (kGlibcArenas && interval > absl::ZeroDuration()) thread_ = std::thread([this, interval] { Run(interval); });
}

MemoryReleaser::~MemoryReleaser() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void MemoryReleaser::Run(absl::Duration interval) {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval)) return;
    }
    ReleaseIfOverBound();
  }
}

uint64_t MemoryReleaser::ReleaseIfOverBound() {
  if (!kGlibcArenas) return 0;
  const uint64_t anonymous = AnonymousResidentBytes();
  const uint64_t allocated = ReadAllocatorStats().allocated;
  const uint64_t slack = anonymous > allocated ? anonymous - allocated : 0;
  absl::MutexLock lock(&mu_);
  const uint64_t bound = std::max(kMinBound, allocated / kBoundFraction);
  if (anonymous == 0 || slack <= floor_ + bound) return 0;
  malloc_trim(0);
  const uint64_t after = AnonymousResidentBytes();
  const uint64_t allocated_after = ReadAllocatorStats().allocated;
  floor_ = after > allocated_after ? after - allocated_after : 0;
  const uint64_t released = anonymous > after ? anonymous - after : 0;
  ++releases_;
  released_bytes_ += released;
  return released;
}

uint64_t MemoryReleaser::releases() const {
  absl::MutexLock lock(&mu_);
  return releases_;
}

uint64_t MemoryReleaser::released_bytes() const {
  absl::MutexLock lock(&mu_);
  return released_bytes_;
}

}  // namespace strata::server
