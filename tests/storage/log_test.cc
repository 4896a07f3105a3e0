#include "storage/log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <future>

#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "tests/support/wait.h"
#include "tests/storage/log_test_util.h"

namespace strata::storage {
namespace {

using testing::MakeBatch;
using testing::MakeProducerBatch;
using testing::ReadAll;
using namespace std::chrono_literals;

// Releases the syncs a test held when it goes: before the futures waiting on them, also
// when an assertion fails.
struct ReleaseSyncsAtExit {
  FaultInjectingFileOps& ops;
  ~ReleaseSyncsAtExit() { ops.ReleaseSyncs(); }
};

class LogTest : public ::testing::Test {
 protected:
  // Small-log options through ops, with one segment for everything the test writes.
  LogOptions OneSegmentOptions(FaultInjectingFileOps& ops) {
    LogOptions options = SmallLogOptions(dir_, &ops);
    options.config.segment_bytes = 1 << 20;
    return options;
  }
  std::unique_ptr<Log> OpenLog(LogOptions options) {
    auto log = Log::Open(options);
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? std::move(*log) : nullptr;
  }
  testing::TempDir tmp_;
  std::string dir_ = tmp_.Sub("topic-0");
};

TEST_F(LogTest, LeaderAppendAssignsOffsetsAndStampsEpoch) {
  auto log = OpenLog(SmallLogOptions(dir_));
  std::string batch = MakeBatch(5, "a");
  auto info = log->AppendAsLeader(batch, 3);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->first_offset, 0);
  EXPECT_EQ(info->last_offset, 4);
  batch = MakeBatch(2, "b");
  info = log->AppendAsLeader(batch, 3);
  EXPECT_EQ(info->first_offset, 5);
  EXPECT_EQ(log->log_end_offset(), 7);
  auto records = ReadAll(*log);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 7u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ((*records)[i].offset, i);
    EXPECT_EQ((*records)[i].leader_epoch, 3);
  }
  EXPECT_EQ((*records)[5].value, "b-0");
  EXPECT_EQ(log->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{3, 0}}));
}

TEST_F(LogTest, LogAppendTimeTopicStampsTheLeadersClockAndKeepsTheCrcValid) {
  ManualClock clock(1'800'000'000'000);
  LogOptions options = SmallLogOptions(dir_);
  options.clock = &clock;
  options.config.log_append_time = true;
  auto log = OpenLog(options);
  std::string batch = MakeBatch(3, "a");  // create times far from the clock
  auto info = log->AppendAsLeader(batch, 0);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->log_append_time, clock.NowMs());
  EXPECT_EQ(info->max_timestamp, clock.NowMs());
  RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
  EXPECT_TRUE(h.log_append_time());
  EXPECT_EQ(h.max_timestamp, clock.NowMs());
  EXPECT_TRUE(ValidateStoredBatch(batch, "stamped").ok());
  // The time index answers by the stamped time.
  auto found = log->FetchOffsetByTimestamp(clock.NowMs());
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->offset, 0);

  LogOptions create_time = SmallLogOptions(tmp_.Sub("topic-1"));
  create_time.clock = &clock;
  auto plain = OpenLog(create_time);
  std::string other = MakeBatch(1, "b");
  info = plain->AppendAsLeader(other, 0);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->log_append_time, -1);
  EXPECT_FALSE(RecordBatchHeader::Parse(other.data()).log_append_time());
}

TEST_F(LogTest, InvalidBatchIsRejectedAndNothingIsAppended) {
  auto log = OpenLog(SmallLogOptions(dir_));
  std::string good = MakeBatch(2, "a");
  std::string bad = MakeBatch(2, "b");
  bad.back() ^= 1;
  std::string both = good + bad;
  auto info = log->AppendAsLeader(both, 0);
  EXPECT_EQ(ErrcOf(info.status()), Errc::kCorruptMessage) << info.status();
  EXPECT_EQ(log->log_end_offset(), 0);
}

TEST_F(LogTest, RollsBySizeAndReadsAcrossSegments) {
  auto log = OpenLog(SmallLogOptions(dir_));
  auto values = AppendBatches(*log, 60, 4, "r");
  EXPECT_GT(log->segment_count(), 3);
  auto records = ReadAll(*log);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(Values(*records), values);
  // A read from the middle starts at the batch holding the offset.
  auto info = log->Read(101, 1 << 20, log->log_end_offset(), true);
  ASSERT_TRUE(info.ok());
  auto bytes = info->records.ReadAll();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(RecordBatchHeader::Parse(bytes->data()).base_offset, 100);
}

TEST_F(LogTest, RollsByTimeAndWhenTheIndexIsFull) {
  LogOptions options = SmallLogOptions(dir_);
  options.config.segment_bytes = 1 << 20;
  options.config.segment_ms = 1000;
  auto log = OpenLog(options);
  std::string batch = MakeBatch(1, "t", 10'000);
  ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  batch = MakeBatch(1, "t", 10'500);
  ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  EXPECT_EQ(log->segment_count(), 1);
  batch = MakeBatch(1, "t", 11'100);  // more than segment.ms after the first batch
  ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  EXPECT_EQ(log->segment_count(), 2);

  LogOptions small_index = SmallLogOptions(tmp_.Sub("idx-0"));
  small_index.config.segment_bytes = 1 << 20;
  small_index.config.index_interval_bytes = 0;  // an entry for every batch
  small_index.config.segment_index_bytes = 36;  // 4 offset entries, 3 time entries
  auto log2 = OpenLog(small_index);
  AppendBatches(*log2, 12, 1, "i");
  EXPECT_GE(log2->segment_count(), 3);
  auto records = ReadAll(*log2);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 12u);
}

TEST_F(LogTest, ReadBoundsAndOutOfRange) {
  auto log = OpenLog(SmallLogOptions(dir_));
  AppendBatches(*log, 3, 5, "x");
  auto at_end = log->Read(15, 1000, 15, true);
  ASSERT_TRUE(at_end.ok());
  EXPECT_TRUE(at_end->records.empty());
  EXPECT_EQ(ErrcOf(log->Read(16, 1000, 16, true).status()), Errc::kOffsetOutOfRange);
  // Up to a high watermark at 10: only the first two batches.
  auto bounded = log->Read(0, 1 << 20, 10, true);
  ASSERT_TRUE(bounded.ok());
  auto bytes = bounded->records.ReadAll();
  ASSERT_TRUE(bytes.ok());
  BatchSplitter splitter(*bytes);
  int64_t last = -1;
  while (auto b = splitter.Next().value()) last = RecordBatchHeader::Parse(b->data()).last_offset();
  EXPECT_EQ(last, 9);
  // max_bytes smaller than a batch: min_one_batch still returns the whole first batch.
  auto one = log->Read(0, 10, 15, true);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->records.size, static_cast<uint64_t>(RecordBatchHeader::Parse(bytes->data()).size_in_bytes()));
  auto none = log->Read(0, 10, 15, false);
  EXPECT_EQ(none->records.size, 10u);
}

TEST_F(LogTest, TruncateToRemovesTheTailAndEpochs) {
  auto log = OpenLog(SmallLogOptions(dir_));
  AppendBatches(*log, 30, 4, "a", 1);
  AppendBatches(*log, 30, 4, "b", 2);
  ASSERT_EQ(log->log_end_offset(), 240);
  auto truncated = log->TruncateTo(100);
  ASSERT_TRUE(truncated.ok()) << truncated.status();
  EXPECT_TRUE(*truncated);
  EXPECT_EQ(log->log_end_offset(), 100);
  EXPECT_EQ(log->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{1, 0}}));
  auto records = ReadAll(*log);
  ASSERT_EQ(records->size(), 100u);
  EXPECT_EQ(records->back().offset, 99);
  // Appends continue at the new end.
  std::string batch = MakeBatch(1, "c");
  EXPECT_EQ(log->AppendAsLeader(batch, 3)->first_offset, 100);
  EXPECT_FALSE(*log->TruncateTo(500));
}

TEST_F(LogTest, TruncateToTheLogEndDropsAnEpochThatHoldsNoRecords) {
  auto log = OpenLog(SmallLogOptions(dir_));
  AppendBatches(*log, 30, 4, "a", 1);
  // Became leader of epoch 2 at the log end, then deposed before appending anything.
  ASSERT_TRUE(log->leader_epoch_cache().Assign(2, 120).ok());
  auto truncated = log->TruncateTo(120);
  ASSERT_TRUE(truncated.ok()) << truncated.status();
  EXPECT_FALSE(*truncated);  // no record went
  EXPECT_EQ(log->log_end_offset(), 120);
  EXPECT_EQ(log->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{1, 0}}));
  // Epochs holding records stay.
  EXPECT_FALSE(*log->TruncateTo(500));
  EXPECT_EQ(log->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{1, 0}}));
}

TEST_F(LogTest, TruncateFullyAndStartAtRestartsEmpty) {
  auto log = OpenLog(SmallLogOptions(dir_));
  AppendBatches(*log, 20, 4, "a", 1);
  ASSERT_TRUE(log->TruncateFullyAndStartAt(1000).ok());
  EXPECT_EQ(log->log_start_offset(), 1000);
  EXPECT_EQ(log->log_end_offset(), 1000);
  EXPECT_EQ(log->segment_base_offsets(), std::vector<int64_t>{1000});
  EXPECT_TRUE(log->leader_epoch_cache().entries().empty());
  std::string batch = MakeBatch(3, "f");
  SetBaseOffset(batch.data(), 1000);
  ASSERT_TRUE(log->AppendAsFollower(batch).ok());
  EXPECT_EQ(log->log_end_offset(), 1003);
}

TEST_F(LogTest, FollowerAppendKeepsOffsetsAndRefusesGapsAndOverlaps) {
  auto log = OpenLog(SmallLogOptions(dir_));
  std::string batch = MakeBatch(3, "f");
  SetPartitionLeaderEpoch(batch.data(), 4);
  ASSERT_TRUE(log->AppendAsFollower(batch).ok());
  EXPECT_EQ(log->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{4, 0}}));
  EXPECT_EQ(ErrcOf(log->AppendAsFollower(batch).status()), Errc::kInvalidRecord);  // offset 0 again
  SetBaseOffset(batch.data(), 10);
  EXPECT_EQ(ErrcOf(log->AppendAsFollower(batch).status()), Errc::kInvalidRecord);  // a hole
  SetBaseOffset(batch.data(), 3);
  EXPECT_TRUE(log->AppendAsFollower(batch).ok());
  EXPECT_EQ(log->log_end_offset(), 6);
}

TEST_F(LogTest, LogStartAdvanceDeletesWholeSegmentsBelowIt) {
  LogOptions options = SmallLogOptions(dir_);
  auto log = OpenLog(options);
  AppendBatches(*log, 60, 4, "a");
  log->UpdateHighWatermark(log->log_end_offset());
  int before = log->segment_count();
  auto bases = log->segment_base_offsets();
  ASSERT_TRUE(log->MaybeIncrementLogStartOffset(bases[2] + 1).ok());
  EXPECT_EQ(log->log_start_offset(), bases[2] + 1);
  EXPECT_EQ(log->segment_count(), before - 2);
  EXPECT_EQ(ErrcOf(log->Read(bases[2], 100, log->log_end_offset(), true).status()), Errc::kOffsetOutOfRange);
  auto records = ReadAll(*log);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->front().offset, bases[2] + 1);
  // Not above the high watermark.
  EXPECT_EQ(ErrcOf(log->MaybeIncrementLogStartOffset(log->log_end_offset() + 1)), Errc::kOffsetOutOfRange);
}

TEST_F(LogTest, RetentionBySizeAndTimeDeletesOldestSegmentsAsync) {
  ManualClock clock(1'000'000);
  Scheduler scheduler(1);
  LogOptions options = SmallLogOptions(dir_);
  options.clock = &clock;
  options.scheduler = &scheduler;
  options.config.retention_ms = -1;
  options.config.retention_bytes = 2048;
  options.config.file_delete_delay_ms = 0;
  auto log = OpenLog(options);
  AppendBatches(*log, 60, 4, "a", 0, 1'000'000);
  log->UpdateHighWatermark(log->log_end_offset());
  int before = log->segment_count();
  auto deleted = log->DeleteOldSegments();
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_GT(*deleted, 0);
  EXPECT_EQ(log->segment_count(), before - *deleted);
  EXPECT_LE(log->size_in_bytes(), 2048 + 1024);
  EXPECT_EQ(log->log_start_offset(), log->segment_base_offsets().front());
  ASSERT_TRUE(scheduler.WaitIdle(std::chrono::seconds(10)));
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".deleted"), std::string::npos) << entry.path();
  }

  // Time: everything but the active segment is older than retention.ms.
  auto log2 = OpenLog([&] {
    LogOptions o = options;
    o.dir = tmp_.Sub("time-0");
    o.config.retention_bytes = -1;
    o.config.retention_ms = 60'000;
    return o;
  }());
  AppendBatches(*log2, 60, 4, "t", 0, 1'000'000);
  log2->UpdateHighWatermark(log2->log_end_offset());
  EXPECT_EQ(*log2->DeleteOldSegments(), 0);  // nothing expired yet
  clock.Advance(120'000);
  int segments = log2->segment_count();
  EXPECT_EQ(*log2->DeleteOldSegments(), segments - 1);
  EXPECT_EQ(log2->segment_count(), 1);
}

TEST_F(LogTest, DeletedSegmentsAreRenamedFirstAndRemovedLater) {
  Scheduler scheduler(1);
  LogOptions options = SmallLogOptions(dir_);
  options.scheduler = &scheduler;
  options.config.file_delete_delay_ms = 3'600'000;
  auto log = OpenLog(options);
  AppendBatches(*log, 60, 4, "a");
  log->UpdateHighWatermark(log->log_end_offset());
  // The flushes after each roll ran (only the removal below is left pending).
  ASSERT_TRUE(testing::WaitUntil([&] { return log->recovery_point() == log->segment_base_offsets().back(); }, 10s));
  ASSERT_TRUE(testing::WaitUntil([&] { return scheduler.pending() == 0; }, 10s));
  int64_t first = log->segment_base_offsets()[0];
  int64_t second = log->segment_base_offsets()[1];
  ASSERT_TRUE(log->MaybeIncrementLogStartOffset(second).ok());
  EXPECT_FALSE(std::filesystem::exists(SegmentFileName(dir_, first, kLogSuffix)));
  EXPECT_TRUE(std::filesystem::exists(SegmentFileName(dir_, first, ".log.deleted")));
  EXPECT_TRUE(std::filesystem::exists(SegmentFileName(dir_, first, ".index.deleted")));
  EXPECT_EQ(scheduler.pending(), 1u);  // the removal waits for file.delete.delay.ms
}

TEST_F(LogTest, RetentionNeverDeletesAboveTheHighWatermark) {
  LogOptions options = SmallLogOptions(dir_);
  options.config.retention_bytes = 0;
  auto log = OpenLog(options);
  AppendBatches(*log, 60, 4, "a");
  EXPECT_EQ(*log->DeleteOldSegments(), 0);  // high watermark still 0
}

TEST_F(LogTest, FlushMovesTheRecoveryPoint) {
  auto log = OpenLog(SmallLogOptions(dir_));
  AppendBatches(*log, 10, 4, "a");
  EXPECT_EQ(log->recovery_point(), 0);
  ASSERT_TRUE(log->Flush(20).ok());
  EXPECT_EQ(log->recovery_point(), 20);
  ASSERT_TRUE(log->FlushAll().ok());
  EXPECT_EQ(log->recovery_point(), 40);
}

TEST_F(LogTest, ARolledSegmentIsFlushedInTheBackgroundAndTheRecoveryPointMovesToTheActiveSegment) {
  Scheduler scheduler(1);
  LogOptions options = SmallLogOptions(dir_);
  options.scheduler = &scheduler;
  auto log = OpenLog(options);
  AppendBatches(*log, 60, 4, "a");
  ASSERT_GT(log->segment_count(), 3);
  // No flush was asked for: the rolls flushed what lies below the active segment.
  ASSERT_TRUE(testing::WaitUntil([&] { return log->recovery_point() == log->segment_base_offsets().back(); }, 10s));
  EXPECT_LT(log->recovery_point(), log->log_end_offset());  // the active segment is not flushed
  EXPECT_EQ(log->unflushed_messages(), log->log_end_offset() - log->segment_base_offsets().back());
}

TEST_F(LogTest, FlushMessagesFlushesTheAppendThatReachesIt) {
  LogOptions options = SmallLogOptions(dir_);
  options.config.segment_bytes = 1 << 20;
  options.config.flush_messages = 10;
  auto log = OpenLog(options);
  AppendBatches(*log, 2, 4, "a");
  EXPECT_EQ(log->recovery_point(), 0);  // 8 unflushed, below flush.messages
  AppendBatches(*log, 1, 4, "b");
  EXPECT_EQ(log->recovery_point(), 12);  // answered after the flush
}

TEST_F(LogTest, FlushMsFlushesALogLeftUnflushedThatLong) {
  ManualClock clock(1'000'000);
  LogOptions options = SmallLogOptions(dir_);
  options.clock = &clock;
  options.config.segment_bytes = 1 << 20;
  options.config.flush_ms = 1000;
  auto log = OpenLog(options);
  AppendBatches(*log, 2, 4, "a");
  clock.Advance(999);
  ASSERT_TRUE(log->MaybeFlushForTime(clock.NowMs()).ok());
  EXPECT_EQ(log->recovery_point(), 0);
  clock.Advance(1);
  ASSERT_TRUE(log->MaybeFlushForTime(clock.NowMs()).ok());
  EXPECT_EQ(log->recovery_point(), 8);
  EXPECT_EQ(log->last_flush_ms(), clock.NowMs());
}

// Whichever of the active segment's files the flush waits on — its .log or one of its
// indexes — appends and reads go on.
TEST_F(LogTest, AppendsAndReadsGoOnWhileAFlushWaitsOnTheDisk) {
  int partition = 0;
  for (const char* held : {".log", ".index", ".timeindex"}) {
    SCOPED_TRACE(held);
    FaultInjectingFileOps ops;
    LogOptions options = OneSegmentOptions(ops);
    options.dir = tmp_.Sub("held-" + std::to_string(partition++));
    options.config.index_interval_bytes = 1;  // an index entry with every batch
    auto log = OpenLog(options);
    AppendBatches(*log, 2, 4, "a");
    std::future<absl::Status> flushed;
    std::future<bool> appended;
    ReleaseSyncsAtExit release{ops};
    ops.HoldSyncs(held);  // that file's fsync waits, as on a slow disk
    flushed = std::async(std::launch::async, [&] { return log->Flush(8); });
    ASSERT_TRUE(testing::WaitUntil([&] { return ops.syncs_held() == 1; }, 10s));
    appended = std::async(std::launch::async, [&] {
      AppendBatches(*log, 1, 4, "b");
      return ReadAll(*log).ok();
    });
    ASSERT_EQ(appended.wait_for(10s), std::future_status::ready) << "the append waited for the flush's fsync";
    EXPECT_TRUE(appended.get());
    EXPECT_EQ(log->log_end_offset(), 12);
    EXPECT_EQ(log->recovery_point(), 0);  // not before the sync returned
    ops.ReleaseSyncs();
    ASSERT_TRUE(flushed.get().ok());
    EXPECT_EQ(log->recovery_point(), 8);  // what lay below the flush's offset, not the append made meanwhile
  }
}

TEST_F(LogTest, AnAppendThatStartsAnEpochDoesNotWaitOnTheDiskAndTheFlushWritesTheEpochFirst) {
  FaultInjectingFileOps ops;
  LogOptions options = OneSegmentOptions(ops);
  auto log = OpenLog(options);
  AppendBatches(*log, 1, 4, "a", /*epoch=*/0);
  ASSERT_TRUE(log->FlushAll().ok());
  ReleaseSyncsAtExit release{ops};
  ops.HoldSyncs("leader-epoch-checkpoint");  // a slow disk under the checkpoint
  // Epoch 1 starts with this append: written by the next flush, not under the log's lock.
  auto appended = std::async(std::launch::async, [&] { AppendBatches(*log, 1, 4, "b", /*epoch=*/1); });
  ASSERT_EQ(appended.wait_for(10s), std::future_status::ready) << "the append waited for the checkpoint's fsync";
  EXPECT_EQ(log->leader_epoch_cache().Latest()->epoch, 1);  // visible at once
  EXPECT_EQ(ops.syncs_held(), 0);
  // The flush writes the epoch before the recovery point passes its start.
  auto flushed = std::async(std::launch::async, [&] { return log->FlushAll(); });
  ASSERT_TRUE(testing::WaitUntil([&] { return ops.syncs_held() == 1; }, 10s));
  EXPECT_EQ(log->recovery_point(), 4);
  ops.ReleaseSyncs();
  ASSERT_TRUE(flushed.get().ok());
  EXPECT_EQ(log->recovery_point(), 8);
  EXPECT_FALSE(log->leader_epoch_cache().has_unsynced());
  auto reread = LeaderEpochCache::Load(*FileOps::Default(), log->leader_epoch_cache().path());
  ASSERT_TRUE(reread.ok()) << reread.status();
  EXPECT_EQ((*reread)->entries(), (std::vector<EpochEntry>{{0, 0}, {1, 4}}));
}

TEST_F(LogTest, AnEpochNotYetWrittenWhenThePowerFailsIsReadBackFromItsBatches) {
  FaultInjectingFileOps ops;
  LogOptions options = OneSegmentOptions(ops);
  {
    auto log = OpenLog(options);
    AppendBatches(*log, 1, 4, "a", /*epoch=*/0);
    ASSERT_TRUE(log->FlushAll().ok());
    AppendBatches(*log, 1, 4, "b", /*epoch=*/2);
    ASSERT_TRUE(log->leader_epoch_cache().has_unsynced());
    ops.SimulateCrash(7);
  }
  options.recovery_point = 4;
  options.had_clean_shutdown = false;
  auto reopened = OpenLog(options);
  // Whatever of epoch 2's batch survived, the epochs agree with the batches.
  if (reopened->log_end_offset() == 8) {
    EXPECT_EQ(reopened->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{0, 0}, {2, 4}}));
  } else {
    EXPECT_EQ(reopened->log_end_offset(), 4);
    EXPECT_EQ(reopened->leader_epoch_cache().entries(), (std::vector<EpochEntry>{{0, 0}}));
  }
}

TEST_F(LogTest, IdempotentProducerRetriesAreDeduplicated) {
  auto log = OpenLog(SmallLogOptions(dir_));
  std::string b0 = MakeProducerBatch(3, 42, 0, 0);
  std::string retry = b0;
  ASSERT_EQ(log->AppendAsLeader(b0, 0)->first_offset, 0);
  std::string b1 = MakeProducerBatch(2, 42, 0, 3);
  ASSERT_EQ(log->AppendAsLeader(b1, 0)->first_offset, 3);
  auto dup = log->AppendAsLeader(retry, 0);
  ASSERT_TRUE(dup.ok()) << dup.status();
  EXPECT_TRUE(dup->duplicate);
  EXPECT_EQ(dup->first_offset, 0);
  EXPECT_EQ(dup->last_offset, 2);
  EXPECT_EQ(log->log_end_offset(), 5);

  std::string gap = MakeProducerBatch(1, 42, 0, 7);
  absl::Status refused = log->AppendAsLeader(gap, 0).status();
  EXPECT_EQ(ErrcOf(refused), Errc::kOutOfOrderSequence);
  // What the producer state held, for the broker to tell a gap a retry fills.
  std::optional<SequenceGap> held = SequenceGapOf(refused);
  ASSERT_TRUE(held.has_value()) << refused;
  EXPECT_EQ(held->expected_sequence, 5);
  EXPECT_EQ(held->last_offset, 4);
  std::string old_epoch = MakeProducerBatch(1, 42, 0, 5);
  std::string new_epoch = MakeProducerBatch(1, 42, 1, 0);
  ASSERT_TRUE(log->AppendAsLeader(new_epoch, 0).ok());
  EXPECT_EQ(ErrcOf(log->AppendAsLeader(old_epoch, 0).status()), Errc::kInvalidProducerEpoch);
  std::string bad_new_epoch = MakeProducerBatch(1, 42, 2, 5);
  refused = log->AppendAsLeader(bad_new_epoch, 0).status();
  EXPECT_EQ(ErrcOf(refused), Errc::kOutOfOrderSequence);
  held = SequenceGapOf(refused);
  ASSERT_TRUE(held.has_value()) << refused;
  EXPECT_EQ(held->expected_sequence, 0);
  EXPECT_EQ(held->last_offset, -1) << "none of the new producer epoch";
  EXPECT_EQ(log->log_end_offset(), 6);
}

TEST_F(LogTest, FetchOffsetByTimestampFindsTheFirstRecordAtOrAfter) {
  auto log = OpenLog(SmallLogOptions(dir_));
  AppendBatches(*log, 50, 4, "t", 0, 10'000);  // record i has timestamp 10000 + i
  for (int64_t target : {0, 10'000, 10'001, 10'077, 10'150, 10'199}) {
    auto found = log->FetchOffsetByTimestamp(target);
    ASSERT_TRUE(found.ok()) << found.status();
    ASSERT_TRUE(found->has_value()) << target;
    EXPECT_EQ((*found)->offset, std::max<int64_t>(0, target - 10'000)) << target;
    EXPECT_EQ((*found)->timestamp, std::max<int64_t>(10'000, target));
  }
  EXPECT_FALSE(log->FetchOffsetByTimestamp(20'000)->has_value());
}

TEST_F(LogTest, FetchOffsetByTimestampAnswersTheExactRecordInsideCompressedBatches) {
  auto log = OpenLog(SmallLogOptions(dir_));
  const Compression codecs[] = {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd};
  for (int b = 0; b < 40; ++b) {  // batch b: records 5b..5b+4 at 10000 + offset
    RecordBatchBuilder builder;
    builder.set_compression(codecs[b % 4]);
    for (int i = 0; i < 5; ++i) builder.Add("k", "v", 10'000 + b * 5 + i);
    std::string batch = builder.Build();
    ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  }
  for (int64_t target : {10'000, 10'003, 10'077, 10'151, 10'199}) {
    auto found = log->FetchOffsetByTimestamp(target);
    ASSERT_TRUE(found.ok()) << found.status();
    ASSERT_TRUE(found->has_value()) << target;
    EXPECT_EQ((*found)->offset, target - 10'000) << target;
    EXPECT_EQ((*found)->timestamp, target);
  }
}

TEST_F(LogTest, CleanCloseReopensWithoutRecovery) {
  std::vector<std::string> values;
  {
    auto log = OpenLog(SmallLogOptions(dir_));
    values = AppendBatches(*log, 40, 4, "a");
    std::string p = MakeProducerBatch(2, 7, 0, 0);
    ASSERT_TRUE(log->AppendAsLeader(p, 0).ok());
    values.push_back("p7-0");
    values.push_back("p7-1");
    ASSERT_TRUE(log->Close().ok());
  }
  LogOptions options = SmallLogOptions(dir_);
  options.had_clean_shutdown = true;
  options.recovery_point = 162;
  auto log = OpenLog(options);
  EXPECT_EQ(log->load_stats().segments_recovered, 0);
  EXPECT_EQ(log->load_stats().indexes_rebuilt, 0);
  EXPECT_EQ(log->load_stats().producer_batches_replayed, 0);
  EXPECT_EQ(log->load_stats().producer_snapshot_offset, 162);
  EXPECT_EQ(log->log_end_offset(), 162);
  EXPECT_EQ(Values(*ReadAll(*log)), values);
  // The producer's state survived: its retry is still recognised.
  std::string retry = MakeProducerBatch(2, 7, 0, 0);
  EXPECT_TRUE(log->AppendAsLeader(retry, 0)->duplicate);
  // A closed log refuses work with an error instead of touching closed files.
  ASSERT_TRUE(log->Close().ok());
  std::string late = MakeBatch(1, "late");
  EXPECT_EQ(ErrcOf(log->AppendAsLeader(late, 0).status()), Errc::kStorageError);
  EXPECT_EQ(ErrcOf(log->Read(0, 100, 10, true).status()), Errc::kStorageError);
  EXPECT_EQ(ErrcOf(log->TruncateTo(1).status()), Errc::kStorageError);
}

}  // namespace
}  // namespace strata::storage
