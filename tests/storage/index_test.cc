#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>

#include "storage/errc.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "tests/support/temp_dir.h"

namespace strata::storage {
namespace {

std::unique_ptr<OffsetIndex> OpenOffsetIndex(const std::string& path, bool writable, size_t max_bytes = 800) {
  auto file = IndexFile::Open(*FileOps::Default(), path, OffsetIndex::kEntrySize, max_bytes, writable);
  EXPECT_TRUE(file.ok()) << file.status();
  return std::make_unique<OffsetIndex>(100, std::move(*file));
}

TEST(OffsetIndex, LookupFindsLargestEntryAtOrBelow) {
  testing::TempDir dir;
  auto index = OpenOffsetIndex(dir.Sub("00000000000000000100.index"), true);
  for (int i = 1; i <= 10; ++i) index->Append(100 + i * 10, i * 1000);
  EXPECT_EQ(index->Lookup(99).offset, 100);  // below the first entry: the base
  EXPECT_EQ(index->Lookup(99).position, 0u);
  EXPECT_EQ(index->Lookup(110).position, 1000u);
  EXPECT_EQ(index->Lookup(125).position, 2000u);
  EXPECT_EQ(index->Lookup(1000).position, 10000u);
  index->TruncateTo(130);
  EXPECT_EQ(index->entries(), 2u);
  EXPECT_EQ(index->Lookup(1000).offset, 120);
}

TEST(OffsetIndex, PreallocatedThenTrimmedAndReopenedWithSameEntries) {
  testing::TempDir dir;
  std::string path = dir.Sub("00000000000000000100.index");
  {
    auto index = OpenOffsetIndex(path, true, 800);
    EXPECT_EQ(std::filesystem::file_size(path), 800u);  // preallocated
    EXPECT_EQ(index->file().max_entries(), 100u);
    for (int i = 1; i <= 5; ++i) index->Append(100 + i, i * 64);
    ASSERT_TRUE(index->file().MakeReadOnly().ok());
    EXPECT_EQ(std::filesystem::file_size(path), 40u);  // trimmed on roll
  }
  auto reopened = OpenOffsetIndex(path, false);
  EXPECT_EQ(reopened->entries(), 5u);
  EXPECT_EQ(reopened->entry(4).offset, 105);
  EXPECT_TRUE(reopened->SanityCheck(1000).ok());
}

size_t OpenDescriptors() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                           std::filesystem::directory_iterator()));
}

// A broker keeps thousands of segments: their indexes hold no file descriptor once mapped
// (Kafka's neither), only their .log does. Entries written through the mapping are
// flushed and survive a resize and a reopen.
TEST(OffsetIndex, AnIndexHoldsNoFileDescriptorOnceMapped) {
  testing::TempDir dir;
  const size_t before = OpenDescriptors();
  std::vector<std::unique_ptr<OffsetIndex>> indexes;
  for (int i = 0; i < 50; ++i) {
    indexes.push_back(OpenOffsetIndex(dir.Sub(std::to_string(100 + i) + ".index"), /*writable=*/i % 2 == 0));
  }
  EXPECT_EQ(OpenDescriptors(), before);
  OffsetIndex& active = *indexes[0];
  for (int i = 1; i <= 5; ++i) active.Append(100 + i, i * 64);
  ASSERT_TRUE(active.file().Flush().ok());  // opened again for the sync, and closed
  EXPECT_EQ(OpenDescriptors(), before);
  ASSERT_TRUE(active.file().MakeReadOnly().ok());  // trimmed: the file is resized by path
  EXPECT_EQ(std::filesystem::file_size(dir.Sub("100.index")), 5 * OffsetIndex::kEntrySize);
  ASSERT_TRUE(active.file().MakeWritable(800).ok());
  active.Append(106, 6 * 64);
  ASSERT_TRUE(active.file().Flush().ok());
  EXPECT_EQ(OpenDescriptors(), before);
  EXPECT_EQ(active.Lookup(106).position, 6u * 64);
  indexes.clear();
  auto reopened = OpenOffsetIndex(dir.Sub("100.index"), false);
  EXPECT_EQ(reopened->entries(), 6u);
  EXPECT_EQ(reopened->Lookup(103).position, 3u * 64);
}

TEST(OffsetIndex, AFlushWhoseFileIsGoneIsAnError) {
  testing::TempDir dir;
  auto index = OpenOffsetIndex(dir.Sub("100.index"), true);
  index->Append(101, 64);
  std::filesystem::remove(dir.Sub("100.index"));  // as a log dir that vanished
  EXPECT_FALSE(index->file().Flush().ok());
}

TEST(OffsetIndex, UntrimmedPreallocatedFileCountsOnlyRealEntries) {
  testing::TempDir dir;
  std::string path = dir.Sub("00000000000000000100.index");
  {
    auto index = OpenOffsetIndex(path, true, 800);
    index->Append(101, 64);
    index->Append(102, 128);
    ASSERT_TRUE(index->file().Flush().ok());
    // No trim: what a crash leaves behind.
  }
  EXPECT_EQ(std::filesystem::file_size(path), 800u);
  auto reopened = OpenOffsetIndex(path, false);
  EXPECT_EQ(reopened->entries(), 2u);
}

TEST(OffsetIndex, SanityCheckNamesTheBadEntry) {
  testing::TempDir dir;
  auto index = OpenOffsetIndex(dir.Sub("00000000000000000100.index"), true);
  index->Append(110, 100);
  index->Append(120, 5000);
  absl::Status s = index->SanityCheck(1000);  // position 5000 is past the log
  EXPECT_EQ(ErrcOf(s), Errc::kInconsistentLog);
  EXPECT_NE(s.message().find("entry 1"), absl::string_view::npos) << s;
}

TEST(TimeIndex, AppendsOnlyGrowingTimestampsAndLooksUp) {
  testing::TempDir dir;
  auto file = IndexFile::Open(*FileOps::Default(), dir.Sub("00000000000000000100.timeindex"), TimeIndex::kEntrySize,
                              120, true);
  ASSERT_TRUE(file.ok());
  TimeIndex index(100, std::move(*file));
  index.MaybeAppend(1000, 105);
  index.MaybeAppend(1000, 106);  // not growing: ignored
  index.MaybeAppend(900, 107);   // not growing: ignored
  index.MaybeAppend(2000, 110);
  EXPECT_EQ(index.entries(), 2u);
  EXPECT_EQ(index.Lookup(500).offset, 100);  // nothing at or below: base offset
  EXPECT_EQ(index.Lookup(500).timestamp, -1);
  EXPECT_EQ(index.Lookup(1500).offset, 105);
  EXPECT_EQ(index.Lookup(2500).offset, 110);
  index.TruncateTo(110);
  EXPECT_EQ(index.entries(), 1u);
  EXPECT_TRUE(index.SanityCheck(106).ok());
  // An entry at or past the segment's next offset (a garbled index) is corrupt.
  absl::Status s = index.SanityCheck(105);
  EXPECT_EQ(ErrcOf(s), Errc::kInconsistentLog);
  EXPECT_NE(s.message().find("past the segment's records"), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace strata::storage
