#include "storage/producer_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/errc.h"
#include "storage/file_names.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"

namespace strata::storage {
namespace {

RecordBatchHeader Header(int64_t pid, int16_t epoch, int32_t seq, int records, int64_t base_offset) {
  std::string batch = testing::MakeProducerBatch(records, pid, epoch, seq);
  SetBaseOffset(batch.data(), base_offset);
  return RecordBatchHeader::Parse(batch.data());
}

TEST(ProducerState, SnapshotRoundTripAndLoadNewestAtOrBelow) {
  testing::TempDir dir;
  ProducerStateManager state(*FileOps::Default(), dir.path());
  state.Update(Header(1, 0, 0, 3, 0));
  ASSERT_TRUE(state.TakeSnapshot().ok());  // at 3
  state.Update(Header(2, 5, 10, 2, 3));
  ASSERT_TRUE(state.TakeSnapshot().ok());  // at 5
  state.Update(Header(1, 0, 3, 1, 5));
  ASSERT_TRUE(state.TakeSnapshot().ok());  // at 6
  EXPECT_EQ(*state.ListSnapshots(), (std::vector<int64_t>{3, 5, 6}));

  ProducerStateManager loaded(*FileOps::Default(), dir.path());
  auto offset = loaded.LoadNewestSnapshotAtOrBelow(5, 0);
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_EQ(*offset, 5);
  EXPECT_EQ(loaded.map_end_offset(), 5);
  EXPECT_EQ(loaded.producers().size(), 2u);
  EXPECT_EQ(loaded.Find(2)->batches.back().last_offset, 4);
  EXPECT_EQ(*loaded.ListSnapshots(), (std::vector<int64_t>{3, 5}));  // 6 was above the bound
}

TEST(ProducerState, CorruptSnapshotIsSkippedForAnOlderOne) {
  testing::TempDir dir;
  ProducerStateManager state(*FileOps::Default(), dir.path());
  state.Update(Header(1, 0, 0, 3, 0));
  ASSERT_TRUE(state.TakeSnapshot().ok());
  state.Update(Header(1, 0, 3, 3, 3));
  ASSERT_TRUE(state.TakeSnapshot().ok());
  {
    std::fstream f(SegmentFileName(dir.path(), 6, kSnapshotSuffix), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(12);
    f.put('\x55');
  }
  auto decoded = ProducerStateManager::DecodeSnapshot(
      *ReadWholeFile(*FileOps::Default(), SegmentFileName(dir.path(), 6, kSnapshotSuffix)), "s");
  EXPECT_NE(decoded.status().message().find("CRC mismatch"), absl::string_view::npos) << decoded.status();
  ProducerStateManager loaded(*FileOps::Default(), dir.path());
  EXPECT_EQ(*loaded.LoadNewestSnapshotAtOrBelow(100, 0), 3);
}

TEST(ProducerState, SequenceRules) {
  testing::TempDir dir;
  ProducerStateManager state(*FileOps::Default(), dir.path());
  EXPECT_FALSE(state.CheckProducedBatch(Header(1, 0, 17, 1, 0))->has_value());  // unknown producer: accepted
  state.Update(Header(1, 0, 0, 2, 0));
  EXPECT_TRUE(state.CheckProducedBatch(Header(1, 0, 0, 2, 0))->has_value());  // duplicate
  EXPECT_FALSE(state.CheckProducedBatch(Header(1, 0, 2, 1, 0))->has_value());
  EXPECT_EQ(ErrcOf(state.CheckProducedBatch(Header(1, 0, 3, 1, 0)).status()), Errc::kOutOfOrderSequence);
  // Sequence wraps after INT32_MAX.
  state.Update(Header(9, 0, INT32_MAX - 1, 2, 10));
  EXPECT_FALSE(state.CheckProducedBatch(Header(9, 0, 0, 1, 0))->has_value());
}

}  // namespace
}  // namespace strata::storage
