// The remote tier's chunk cache on a local directory: a block is fetched once and then
// read from its file, concurrent readers of one block cause one fetch, the least
// recently used blocks go past the budget (a reader holding one reads on), the directory
// starts empty, and a disk that cannot keep a block costs the cache, not the read.
#include "broker/tiered/remote_chunk_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "absl/synchronization/notification.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string BytesOf(const RemoteChunkCache::Block& block) {
  std::string out;
  EXPECT_TRUE(block.AppendTo(out, 0, block.size()).ok());
  return out;
}

class RemoteChunkCacheTest : public ::testing::Test {
 protected:
  std::unique_ptr<RemoteChunkCache> Open(int64_t budget, storage::FileOps* ops = storage::FileOps::Default()) {
    auto cache = RemoteChunkCache::Open({.dir = dir(), .budget_bytes = budget, .ops = ops});
    EXPECT_TRUE(cache.ok()) << cache.status();
    return cache.ok() ? std::move(*cache) : nullptr;
  }
  std::string dir() const { return tmp_.Sub("cache"); }
  std::set<std::string> Files() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir())) out.insert(e.path().filename().string());
    return out;
  }
  // A fetch of `bytes` that counts its calls.
  RemoteChunkCache::Fetch Counted(std::string bytes) {
    return [this, bytes]() -> absl::StatusOr<std::string> {
      ++fetches_;
      return bytes;
    };
  }

  testing::TempDir tmp_;
  std::atomic<int> fetches_{0};
};

TEST_F(RemoteChunkCacheTest, ABlockIsFetchedOnceAndThenReadFromItsFile) {
  auto cache = Open(1 << 20);
  const RemoteChunkCache::Key key{std::string("\x01\x02segment", 9), 3};
  auto first = cache->Get(key, Counted("the bytes of block three"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(BytesOf(*first), "the bytes of block three");
  auto again = cache->Get(key, Counted("never fetched"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(BytesOf(*again), "the bytes of block three");
  EXPECT_EQ(fetches_, 1);
  std::string part;
  ASSERT_TRUE(again->AppendTo(part, 4, 9).ok());
  EXPECT_EQ(part, "bytes");
  EXPECT_EQ(Files(), std::set<std::string>{"AQJzZWdtZW50.3"}) << "<segment id, base64url>.<block>, nothing else";
  RemoteChunkCacheStats stats = cache->stats();
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.misses, 1);
  EXPECT_EQ(stats.bytes, 24);
  EXPECT_TRUE(cache->Has(key));
  EXPECT_FALSE(cache->Has({key.first, 4}));
}

TEST_F(RemoteChunkCacheTest, ReadersOfABlockBeingFetchedWaitForThatFetch) {
  auto cache = Open(1 << 20);
  const RemoteChunkCache::Key key{"segment", 0};
  absl::Notification release;
  std::string first_bytes;
  std::thread first([&] {
    auto block = cache->Get(key, [&]() -> absl::StatusOr<std::string> {
      ++fetches_;
      release.WaitForNotification();
      return std::string("fetched once");
    });
    ASSERT_TRUE(block.ok()) << block.status();
    first_bytes = BytesOf(*block);
  });
  ASSERT_TRUE(testing::WaitUntil([&] { return fetches_ == 1; }, 10s));
  EXPECT_TRUE(cache->Has(key)) << "a block being fetched is not prefetched again";
  std::string second_bytes;
  std::thread second([&] {
    auto block = cache->Get(key, Counted("a second fetch"));
    ASSERT_TRUE(block.ok()) << block.status();
    second_bytes = BytesOf(*block);
  });
  ASSERT_TRUE(testing::WaitUntil([&] { return cache->stats().waits == 1; }, 10s));
  release.Notify();
  first.join();
  second.join();
  EXPECT_EQ(first_bytes, "fetched once");
  EXPECT_EQ(second_bytes, "fetched once");
  EXPECT_EQ(fetches_, 1);
}

TEST_F(RemoteChunkCacheTest, TheLeastRecentlyReadBlocksGoPastTheBudget) {
  auto cache = Open(300);
  const std::string hundred(100, 'x');
  ASSERT_TRUE(cache->Get({"s", 1}, Counted(hundred)).ok());
  ASSERT_TRUE(cache->Get({"s", 2}, Counted(hundred)).ok());
  auto held = cache->Get({"s", 3}, Counted(std::string(100, 'h')));
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(cache->Get({"s", 1}, Counted("unused")).ok());  // 1 is now the most recent
  ASSERT_TRUE(cache->Get({"s", 4}, Counted(hundred)).ok());   // 2 goes
  EXPECT_EQ(Files(), (std::set<std::string>{"cw.1", "cw.3", "cw.4"}));
  ASSERT_TRUE(cache->Get({"s", 5}, Counted(hundred)).ok());  // then 3, which a reader holds
  EXPECT_EQ(Files(), (std::set<std::string>{"cw.1", "cw.4", "cw.5"}));
  EXPECT_EQ(BytesOf(*held), std::string(100, 'h')) << "a reader holding an evicted block reads on";
  EXPECT_EQ(fetches_, 5);
  ASSERT_TRUE(cache->Get({"s", 2}, Counted(hundred)).ok());
  EXPECT_EQ(fetches_, 6) << "an evicted block is fetched again";
  RemoteChunkCacheStats stats = cache->stats();
  EXPECT_EQ(stats.evictions, 3);
  EXPECT_EQ(stats.bytes, 300);
  EXPECT_EQ(stats.blocks, 3);
  // A block larger than the whole cache is served, not kept.
  auto big = cache->Get({"s", 9}, Counted(std::string(301, 'b')));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(BytesOf(*big), std::string(301, 'b'));
  EXPECT_FALSE(cache->Has({"s", 9}));
  EXPECT_EQ(cache->stats().write_errors, 0);
}

TEST_F(RemoteChunkCacheTest, OpeningEmptiesTheDirectory) {
  fs::create_directories(dir() + "/stale-dir");
  std::ofstream(dir() + "/cw.1") << "from an earlier run, perhaps torn by a crash";
  std::ofstream(dir() + "/cw.2.tmp") << "half written";
  auto cache = Open(1 << 20);
  EXPECT_TRUE(Files().empty());
  ASSERT_TRUE(cache->Get({"s", 1}, Counted("fresh")).ok());
  EXPECT_EQ(fetches_, 1) << "nothing from before is served";
}

TEST_F(RemoteChunkCacheTest, ADiskThatCannotKeepABlockCostsTheCacheNotTheRead) {
  storage::FaultInjectingFileOps ops;
  auto cache = Open(1 << 20, &ops);
  ops.AddRule({.path_substring = dir(), .op = storage::FaultOp::kWrite, .error = ENOSPC});
  auto block = cache->Get({"s", 1}, Counted("served from memory"));
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(BytesOf(*block), "served from memory");
  EXPECT_EQ(cache->stats().write_errors, 1);
  EXPECT_FALSE(cache->Has({"s", 1}));
  EXPECT_TRUE(Files().empty()) << "no half-written file is left";
  ops.ClearRules();
  ASSERT_TRUE(cache->Get({"s", 1}, Counted("served from memory")).ok());
  EXPECT_EQ(fetches_, 2);
  EXPECT_TRUE(cache->Has({"s", 1})) << "kept once the disk takes it";
}

TEST_F(RemoteChunkCacheTest, AFailedFetchIsAnsweredAndNotKept) {
  auto cache = Open(1 << 20);
  auto failed = cache->Get({"s", 1}, [&]() -> absl::StatusOr<std::string> {
    ++fetches_;
    return storage::MakeError(storage::Errc::kRemoteStorageError, "checksum mismatch");
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("checksum mismatch"), std::string::npos);
  EXPECT_FALSE(cache->Has({"s", 1}));
  auto next = cache->Get({"s", 1}, Counted("good"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(BytesOf(*next), "good");
  EXPECT_EQ(fetches_, 2);
}

TEST_F(RemoteChunkCacheTest, AnUncreatableDirectoryIsAnErrorNamingIt) {
  std::ofstream(tmp_.Sub("a-file")) << "x";
  auto cache = RemoteChunkCache::Open({.dir = tmp_.Sub("a-file") + "/cache"});
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.status().message().find("the remote chunk cache " + tmp_.Sub("a-file") + "/cache"),
            std::string::npos)
      << cache.status();
}

}  // namespace
}  // namespace strata::broker
