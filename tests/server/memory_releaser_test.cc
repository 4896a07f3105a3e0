// The MemoryReleaser (server/memory_releaser.h): free pages that glibc keeps below live
// chunks go back to the system once they exceed the bound, and not again until they
// have grown past it.

#include "server/memory_releaser.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "server/allocator.h"
#include "server/memory_metrics.h"

namespace strata::server {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// What a burst leaves: 48 MiB of 16 KiB buffers, written and freed, each below a small
// chunk that stays allocated, so glibc can neither merge them nor shrink its heap.
class Holes {
 public:
  Holes() {
    constexpr size_t kBuffers = 3072;
    constexpr size_t kBuffer = 16 << 10;
    std::vector<void*> buffers;
    for (size_t i = 0; i < kBuffers; ++i) {
      buffers.push_back(std::malloc(kBuffer));
      std::memset(buffers.back(), 1, kBuffer);
      live_.push_back(std::malloc(64));
    }
    for (void* b : buffers) std::free(b);
  }
  ~Holes() {
    for (void* p : live_) std::free(p);
  }

 private:
  std::vector<void*> live_;
};

uint64_t Slack() {
  const uint64_t anonymous = AnonymousResidentBytes();
  const uint64_t allocated = ReadAllocatorStats().allocated;
  return anonymous > allocated ? anonymous - allocated : 0;
}

#if STRATA_ASAN || STRATA_TEST_JEMALLOC
#define SKIP_UNLESS_GLIBC() GTEST_SKIP() << "the releaser trims glibc's arenas"
#else
#define SKIP_UNLESS_GLIBC() (void)0
#endif

TEST(MemoryReleaserTest, FreePagesPastTheBoundGoBackOnce) {
  SKIP_UNLESS_GLIBC();
  MemoryReleaser releaser(absl::ZeroDuration());
  releaser.ReleaseIfOverBound();  // whatever the test's start left
  const uint64_t releases = releaser.releases();
  Holes holes;
  const uint64_t slack = Slack();
  ASSERT_GE(slack, 40 * kMiB) << "the freed buffers are not resident: the test shows nothing";
  const uint64_t before = AnonymousResidentBytes();

  // Of each 16 KiB hole, the whole pages go back (three of its four or five).
  EXPECT_GE(releaser.ReleaseIfOverBound(), 32 * kMiB);
  EXPECT_LE(AnonymousResidentBytes(), before - 32 * kMiB);
  EXPECT_LE(Slack(), slack - 32 * kMiB);
  EXPECT_EQ(releaser.releases(), releases + 1);
  EXPECT_GE(releaser.released_bytes(), 32 * kMiB);

  // Under the bound now: nothing to do.
  EXPECT_EQ(releaser.ReleaseIfOverBound(), 0u);
  EXPECT_EQ(releaser.releases(), releases + 1);

  bool found = false;
  for (const auto& f : MemoryMetrics(&releaser).Collect()) {
    if (f.name != "strata_memory_releases_total") continue;
    found = true;
    EXPECT_EQ(f.metric.at(0).counter.value, static_cast<double>(releaser.releases()));
  }
  EXPECT_TRUE(found);
}

TEST(MemoryReleaserTest, ItsThreadReleasesEveryInterval) {
  SKIP_UNLESS_GLIBC();
  Holes holes;
  const uint64_t slack = Slack();
  ASSERT_GE(slack, 40 * kMiB);
  MemoryReleaser releaser(absl::Milliseconds(10));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (releaser.releases() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // polling its counter
  }
  EXPECT_GE(releaser.releases(), 1u);
  EXPECT_LE(Slack(), slack - 32 * kMiB);
}

}  // namespace
}  // namespace strata::server
