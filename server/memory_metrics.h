#pragma once
// The process's memory on /metrics (every node; docs/metrics.md, "Memory"):
//
//   strata_memory_allocated_bytes{allocator}  bytes in live allocations (allocator.h)
//   strata_memory_resident_bytes{allocator}   the allocator's pages in memory: the live
//                                             allocations, its caches and free pages not
//                                             yet returned, its own metadata
//   strata_memory_releases_total,             the free pages given back by the
//   strata_memory_released_bytes_total        MemoryReleaser (memory_releaser.h)
//
// Read at each scrape. Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace strata::server {

class MemoryReleaser;

class MemoryMetrics final : public prometheus::Collectable {
 public:
  // releaser: null when the process has none (its counters are then left out).
  explicit MemoryMetrics(const MemoryReleaser* releaser = nullptr) : releaser_(releaser) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const MemoryReleaser* releaser_;
};

}  // namespace strata::server
