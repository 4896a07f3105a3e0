#include "storage/log_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/errc.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "tests/storage/log_test_util.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;
using testing::MakeProducerBatch;
using testing::ReadAll;

void CorruptByte(const std::string& path, uint64_t position) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(position);
  char c;
  f.read(&c, 1);
  c ^= 0x5A;
  f.seekp(position);
  f.write(&c, 1);
}

void AppendGarbage(const std::string& path, size_t bytes) {
  std::ofstream f(path, std::ios::app | std::ios::binary);
  f << std::string(bytes, '\x7f');
}

class LogLoaderTest : public ::testing::Test {
 protected:
  // Writes a log of 60 batches x 4 records with an idempotent producer in every
  // batch; closes it cleanly (clean) or abandons it (a crash with the given
  // recovery point flushed).
  std::vector<std::string> WriteLog(bool clean, int64_t flush_to = -1) {
    auto log = Log::Open(LoaderOptions());
    EXPECT_TRUE(log.ok()) << log.status();
    std::vector<std::string> values;
    for (int b = 0; b < 60; ++b) {
      std::string batch = MakeProducerBatch(4, 1000 + b % 3, 0, (b / 3) * 4);
      EXPECT_TRUE((*log)->AppendAsLeader(batch, 1).ok());
      for (int i = 0; i < 4; ++i) values.push_back("p" + std::to_string(1000 + b % 3) + "-" + std::to_string((b / 3) * 4 + i));
    }
    if (flush_to >= 0) EXPECT_TRUE((*log)->Flush(flush_to).ok());
    if (clean) EXPECT_TRUE((*log)->Close().ok());
    return values;
  }
  std::unique_ptr<Log> Reopen(bool clean, int64_t recovery_point) {
    LogOptions options = LoaderOptions();
    options.had_clean_shutdown = clean;
    options.recovery_point = recovery_point;
    auto log = Log::Open(options);
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? std::move(*log) : nullptr;
  }
  LogOptions LoaderOptions() {
    LogOptions options = SmallLogOptions(dir_);
    options.config.segment_bytes = 1024;
    return options;
  }
  std::string SegmentPath(int64_t base, absl::string_view suffix) { return SegmentFileName(dir_, base, suffix); }
  std::vector<int64_t> Bases() {
    std::vector<int64_t> bases;
    for (const auto& e : fs::directory_iterator(dir_)) {
      auto parsed = ParseSegmentFileName(e.path().filename().string());
      if (parsed && parsed->kind == kLogSuffix && parsed->state.empty()) bases.push_back(parsed->offset);
    }
    std::sort(bases.begin(), bases.end());
    return bases;
  }

  testing::TempDir tmp_;
  std::string dir_ = tmp_.Sub("topic-0");
};

TEST_F(LogLoaderTest, UncleanShutdownRecoversOnlySegmentsAfterTheRecoveryPoint) {
  auto values = WriteLog(/*clean=*/false, /*flush_to=*/200);
  auto bases = Bases();
  ASSERT_GT(bases.size(), 4u);
  auto log = Reopen(false, 200);
  int expected = 0;
  for (size_t i = 0; i < bases.size(); ++i) {
    if (i + 1 == bases.size() || bases[i + 1] > 200) ++expected;
  }
  EXPECT_EQ(log->load_stats().segments_recovered, expected);
  EXPECT_LT(expected, static_cast<int>(bases.size()));
  EXPECT_EQ(Values(*ReadAll(*log)), values);
  EXPECT_EQ(log->recovery_point(), 240);
}

TEST_F(LogLoaderTest, TornTailIsTruncatedAtTheFirstBadBatch) {
  auto values = WriteLog(false, 100);
  auto bases = Bases();
  std::string last = SegmentPath(bases.back(), kLogSuffix);
  uint64_t size = fs::file_size(last);
  AppendGarbage(last, 37);  // half a batch header of junk
  auto log = Reopen(false, 100);
  EXPECT_EQ(log->load_stats().bytes_truncated, 37);
  EXPECT_EQ(fs::file_size(last), size);
  EXPECT_EQ(Values(*ReadAll(*log)), values);
}

TEST_F(LogLoaderTest, CorruptBatchAfterTheRecoveryPointCutsTheLogThere) {
  auto values = WriteLog(false, 100);
  auto bases = Bases();
  ASSERT_GE(bases.size(), 3u);
  // Corrupt the second batch of the third-to-last segment; later segments go too.
  int64_t victim = bases[bases.size() - 3];
  ASSERT_GT(victim, 100);
  CorruptByte(SegmentPath(victim, kLogSuffix), 100);  // inside the first batch's records
  auto log = Reopen(false, 100);
  EXPECT_EQ(log->log_end_offset(), victim);
  EXPECT_EQ(Bases().back(), victim);
  auto records = ReadAll(*log);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(Values(*records), std::vector<std::string>(values.begin(), values.begin() + victim));
}

TEST_F(LogLoaderTest, CorruptionBelowTheRecoveryPointFailsLoadingInsteadOfDroppingData) {
  WriteLog(false, 240);
  auto bases = Bases();
  std::string first = SegmentPath(bases[0], kLogSuffix);
  fs::remove(SegmentPath(bases[0], kIndexSuffix));
  CorruptByte(first, 100);
  LogOptions options = LoaderOptions();
  options.recovery_point = 240;
  auto log = Log::Open(options);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(ErrcOf(log.status()), Errc::kInconsistentLog) << log.status();
  EXPECT_NE(log.status().message().find("below the recovery point"), absl::string_view::npos) << log.status();
}

TEST_F(LogLoaderTest, MissingOrCorruptIndexIsRebuiltWithoutTouchingProducerState) {
  auto values = WriteLog(/*clean=*/true);
  auto bases = Bases();
  fs::remove(SegmentPath(bases[1], kIndexSuffix));
  {
    std::ofstream garbage(SegmentPath(bases[2], kIndexSuffix), std::ios::binary | std::ios::trunc);
    garbage << std::string(16, '\x01');  // entries pointing backwards
  }
  auto log = Reopen(true, 240);
  EXPECT_EQ(log->load_stats().indexes_rebuilt, 2);
  EXPECT_EQ(log->load_stats().producer_batches_replayed, 0);
  EXPECT_EQ(log->load_stats().producer_snapshot_offset, 240);
  EXPECT_EQ(Values(*ReadAll(*log)), values);
  // Producer state is intact: the last batch of producer 1001 is recognised.
  std::string retry = MakeProducerBatch(4, 1001, 0, 76);
  EXPECT_TRUE(log->AppendAsLeader(retry, 1)->duplicate);
}

// A time index below the recovery point whose entries still rise but point past its
// segment (a garbled disk block) is rebuilt on open: appending into the segment after
// a truncation to it would otherwise find its entries out of order.
TEST_F(LogLoaderTest, ATimeIndexPointingPastItsSegmentIsRebuilt) {
  auto values = WriteLog(/*clean=*/true);
  auto bases = Bases();
  ASSERT_GE(bases.size(), 3u);
  const std::string path = SegmentPath(bases[1], kTimeIndexSuffix);
  const auto size = fs::file_size(path);
  ASSERT_GE(size, TimeIndex::kEntrySize);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 4));  // the last entry's relative offset
    f.write("\x00\x00\x3f\x2a", 4);                    // 16170 past the segment's base
  }
  auto log = Reopen(true, 240);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->load_stats().indexes_rebuilt, 1);
  EXPECT_EQ(Values(*ReadAll(*log)), values);
  // Into that segment again: its indexes take appends in order.
  const int64_t keep = bases[1] + 4;
  ASSERT_TRUE(log->TruncateTo(keep).ok());
  std::string batch = MakeProducerBatch(4, 2000, 0, 0);
  ASSERT_TRUE(log->AppendAsLeader(batch, 1).ok());
  EXPECT_EQ(log->log_end_offset(), keep + 4);
}

TEST_F(LogLoaderTest, SwapSegmentIsCompletedWithoutRebuildingProducerState) {
  auto values = WriteLog(/*clean=*/true);
  auto bases = Bases();
  // An interrupted replace of segments 1 and 2 by one segment: the swap holds the
  // same batches (a compaction that removed nothing) and was fully written.
  std::string swap_log = SegmentPath(bases[1], absl::StrCat(kLogSuffix, kSwapSuffix));
  {
    std::ofstream out(swap_log, std::ios::binary);
    for (int i : {1, 2}) {
      std::ifstream in(SegmentPath(bases[i], kLogSuffix), std::ios::binary);
      out << in.rdbuf();
    }
  }
  auto log = Reopen(true, 240);
  EXPECT_EQ(log->load_stats().swaps_completed, 1);
  EXPECT_EQ(log->load_stats().producer_batches_replayed, 0);  // seed 004: no rebuild from scratch
  EXPECT_EQ(log->load_stats().producer_snapshot_offset, 240);
  EXPECT_FALSE(fs::exists(swap_log));
  EXPECT_FALSE(fs::exists(SegmentPath(bases[2], kLogSuffix)));  // replaced
  EXPECT_EQ(Values(*ReadAll(*log)), values);
}

TEST_F(LogLoaderTest, SwapSegmentWithInvalidBytesFailsLoadingSayingHowMany) {
  WriteLog(true);
  auto bases = Bases();
  std::string swap_log = SegmentPath(bases[1], absl::StrCat(kLogSuffix, kSwapSuffix));
  fs::copy_file(SegmentPath(bases[1], kLogSuffix), swap_log);
  AppendGarbage(swap_log, 123);
  LogOptions options = LoaderOptions();
  options.had_clean_shutdown = true;
  auto log = Log::Open(options);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(ErrcOf(log.status()), Errc::kInconsistentLog);
  EXPECT_NE(log.status().message().find("123 invalid bytes"), absl::string_view::npos) << log.status();
  EXPECT_TRUE(fs::exists(SegmentPath(bases[1], kLogSuffix)));  // nothing replaced
}

TEST_F(LogLoaderTest, CleanedFilesDropSwapsAtOrAboveThemAndDeletedFilesGo) {
  auto values = WriteLog(true);
  auto bases = Bases();
  std::string cleaned = SegmentPath(bases[1], absl::StrCat(kLogSuffix, kCleanedSuffix));
  std::string swap = SegmentPath(bases[2], absl::StrCat(kLogSuffix, kSwapSuffix));
  std::string deleted = SegmentPath(5000, absl::StrCat(kLogSuffix, kDeletedSuffix));
  for (const auto& p : {cleaned, swap, deleted}) std::ofstream(p) << "partial";
  auto log = Reopen(true, 240);
  EXPECT_EQ(log->load_stats().swaps_completed, 0);
  for (const auto& p : {cleaned, swap, deleted}) EXPECT_FALSE(fs::exists(p)) << p;
  EXPECT_EQ(Values(*ReadAll(*log)), values);
}

TEST_F(LogLoaderTest, SnapshotsAboveTheRecoveryPointAreNotTrustedAfterACrash) {
  WriteLog(/*clean=*/false, /*flush_to=*/100);
  auto log = Reopen(false, 100);
  // Roll snapshots were taken above 100; only one at or below 100 may be used.
  EXPECT_LE(log->load_stats().producer_snapshot_offset, 100);
  EXPECT_GT(log->load_stats().producer_batches_replayed, 0);
  std::string next = MakeProducerBatch(4, 1002, 0, 80);  // follows p1002's last batch (seq 76..79)
  EXPECT_TRUE(log->AppendAsLeader(next, 1).ok());
}

}  // namespace
}  // namespace strata::storage
