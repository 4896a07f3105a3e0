// The allocator's figures on /metrics (server/allocator.h, server/memory_metrics.h): they name the allocator and
// follow what the process allocates.

#include "server/allocator.h"
#include "server/memory_metrics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "base/sanitizers.h"

namespace strata::server {
namespace {

double Sample(const std::vector<prometheus::MetricFamily>& families, const std::string& name, std::string* label) {
  for (const auto& f : families) {
    if (f.name != name) continue;
    EXPECT_EQ(f.metric.size(), 1u) << name;
    EXPECT_EQ(f.metric.at(0).label.at(0).name, "allocator");
    *label = f.metric.at(0).label.at(0).value;
    return f.metric.at(0).gauge.value;
  }
  ADD_FAILURE() << "no family " << name;
  return -1;
}

TEST(AllocatorTest, MetricsNameTheAllocatorAndFollowWhatIsAllocated) {
  MemoryMetrics metrics;
  std::string allocator;
  const double before = Sample(metrics.Collect(), "strata_memory_allocated_bytes", &allocator);
#if STRATA_TEST_JEMALLOC
  EXPECT_EQ(allocator, "jemalloc");
#endif
  if (allocator != "jemalloc" && allocator != "glibc") FAIL() << "allocator " << allocator;
#if STRATA_ASAN
  GTEST_SKIP() << "AddressSanitizer allocates outside glibc's arenas";
#endif
  constexpr size_t kSize = 64 << 20;
  auto block = std::make_unique<char[]>(kSize);
  std::memset(block.get(), 1, kSize);  // resident, not only reserved
  const auto during = metrics.Collect();
  std::string label;
  EXPECT_GE(Sample(during, "strata_memory_allocated_bytes", &label), before + kSize);
  EXPECT_GE(Sample(during, "strata_memory_resident_bytes", &label), kSize);
  block.reset();
  EXPECT_LT(Sample(metrics.Collect(), "strata_memory_allocated_bytes", &label), before + kSize);
}

}  // namespace
}  // namespace strata::server
