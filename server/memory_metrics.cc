#include "server/memory_metrics.h"

#include "controller/metric_families.h"
#include "server/allocator.h"
#include "server/memory_releaser.h"

namespace strata::server {

std::vector<prometheus::MetricFamily> MemoryMetrics::Collect() const {
  AllocatorStats stats = ReadAllocatorStats();
  std::vector<prometheus::MetricFamily> out;
  auto add = [&](const char* name, const char* help, uint64_t value,
                 prometheus::MetricType type = prometheus::MetricType::Gauge) {
    prometheus::MetricFamily f = controller::Family(name, help, type);
    controller::Add(f, static_cast<double>(value), {{"allocator", stats.allocator}});
    out.push_back(std::move(f));
  };
  add("strata_memory_allocated_bytes", "Bytes in the process's live allocations", stats.allocated);
  add("strata_memory_resident_bytes",
      "Bytes of the allocator's pages in memory: live allocations, caches, free pages not yet returned",
      stats.resident);
  if (releaser_ != nullptr) {
    add("strata_memory_releases_total", "Times the allocator's free pages were given back to the system",
        releaser_->releases(), prometheus::MetricType::Counter);
    add("strata_memory_released_bytes_total", "Anonymous resident bytes those releases gave back",
        releaser_->released_bytes(), prometheus::MetricType::Counter);
  }
  return out;
}

}  // namespace strata::server
