// Transactions in the storage engine: end-transaction markers, the aborted-transaction
// index, producer state with open transactions, and the log's last stable offset across
// appends, truncation, clean and unclean reopening.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "storage/bytes.h"
#include "storage/control_record.h"
#include "storage/crc32c.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "storage/producer_state.h"
#include "storage/transaction_index.h"
#include "tests/storage/log_test_util.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"

namespace strata::storage {
namespace {

std::string TxnBatch(int64_t pid, int16_t epoch, int32_t seq, int records, int64_t timestamp = 1000) {
  RecordBatchBuilder builder;
  builder.set_producer(pid, epoch, seq).set_transactional(true);
  for (int i = 0; i < records; ++i) builder.Add("k", "v" + std::to_string(seq + i), timestamp + i);
  return builder.Build();
}

std::string Marker(int64_t pid, int16_t epoch, ControlRecordType type, int32_t coordinator_epoch = 0) {
  return BuildEndTxnMarkerBatch(pid, epoch, EndTxnMarker{type, coordinator_epoch}, 2000);
}

RecordBatchHeader At(std::string batch, int64_t base_offset) {
  SetBaseOffset(batch.data(), base_offset);
  return RecordBatchHeader::Parse(batch.data());
}

TEST(ControlRecord, MarkerRoundTrips) {
  std::string batch = Marker(7, 3, ControlRecordType::kCommit, 11);
  ASSERT_TRUE(ValidateStoredBatch(batch, "marker").ok());
  RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
  EXPECT_TRUE(h.is_control());
  EXPECT_TRUE(h.is_transactional());
  EXPECT_EQ(h.producer_id, 7);
  EXPECT_EQ(h.producer_epoch, 3);
  EXPECT_EQ(h.base_sequence, kNoSequence);
  auto marker = ReadControlBatch(batch);
  ASSERT_TRUE(marker.ok()) << marker.status();
  EXPECT_EQ(*marker, (EndTxnMarker{ControlRecordType::kCommit, 11}));

  // A control record of another type (KRaft's LEADER_CHANGE) is no marker.
  std::string key("\0\0\0\2", 4);
  std::string other = RecordBatchBuilder().set_control(true).Add(key, std::string("x"), 1).Build();
  EXPECT_EQ(ReadControlBatch(other)->type, ControlRecordType::kUnknown);
  std::string short_key = RecordBatchBuilder().set_control(true).Add(std::string("\0", 1), std::nullopt, 1).Build();
  EXPECT_EQ(ErrcOf(ReadControlBatch(short_key).status()), Errc::kInvalidRecord);
}

TEST(TransactionIndex, AppendCollectTruncateAndReload) {
  testing::TempDir dir;
  std::string path = dir.Sub("00000000000000000000.txnindex");
  auto index = TransactionIndex::Open(*FileOps::Default(), path);
  ASSERT_TRUE(index.ok());
  EXPECT_FALSE(std::filesystem::exists(path)) << "no file until the first abort";
  ASSERT_TRUE((*index)->Append({1, 0, 10, 5}).ok());
  ASSERT_TRUE((*index)->Append({2, 5, 20, 21}).ok());
  ASSERT_TRUE((*index)->Append({3, 22, 30, 31}).ok());
  // Replayed entries are recognised; an earlier marker that differs is not.
  EXPECT_TRUE((*index)->Append({2, 5, 20, 21}).ok());
  EXPECT_EQ(ErrcOf((*index)->Append({4, 6, 20, 21})), Errc::kInconsistentLog);
  EXPECT_EQ((*index)->entries().size(), 3u);

  std::vector<AbortedTxn> out;
  EXPECT_FALSE((*index)->Collect(11, 100, &out)) << "no entry's last stable offset reaches 100";
  EXPECT_EQ(out, (std::vector<AbortedTxn>{{2, 5, 20, 21}, {3, 22, 30, 31}}));
  out.clear();
  EXPECT_TRUE((*index)->Collect(11, 21, &out));
  EXPECT_EQ(out, (std::vector<AbortedTxn>{{2, 5, 20, 21}}));
  out.clear();
  EXPECT_TRUE((*index)->Collect(0, 8, &out)) << "entry 2's last stable offset 21 passes 8";
  EXPECT_EQ(out, (std::vector<AbortedTxn>{{1, 0, 10, 5}, {2, 5, 20, 21}}));
  ASSERT_TRUE((*index)->Flush().ok());
  EXPECT_EQ(std::filesystem::file_size(path), 3 * TransactionIndex::kEntrySize);

  ASSERT_TRUE((*index)->TruncateTo(20).ok());
  EXPECT_EQ((*index)->entries().size(), 1u);
  (*index)->Close();
  {
    std::ofstream torn(path, std::ios::app | std::ios::binary);
    torn << std::string(7, '\1');  // a torn append
  }
  auto reloaded = TransactionIndex::Open(*FileOps::Default(), path);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ((*reloaded)->entries(), (std::vector<AbortedTxn>{{1, 0, 10, 5}}));
  EXPECT_EQ(std::filesystem::file_size(path), TransactionIndex::kEntrySize);
  (*reloaded)->Close();
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.put('\7');  // version 0x0700
  }
  EXPECT_EQ(ErrcOf(TransactionIndex::Open(*FileOps::Default(), path).status()), Errc::kCorruptMessage);
}

TEST(ProducerStateTxn, OpenCompleteAndTheFirstUnstableOffset) {
  testing::TempDir dir;
  ProducerStateManager state(*FileOps::Default(), dir.path());
  EXPECT_FALSE(state.FirstUnstableOffset());
  state.Update(At(TxnBatch(1, 0, 0, 3), 0));  // [0, 3) producer 1
  state.Update(At(TxnBatch(2, 0, 0, 2), 3));  // [3, 5) producer 2
  state.Update(At(TxnBatch(1, 0, 3, 1), 5));  // 5, producer 1 still the same transaction
  EXPECT_EQ(state.FirstUnstableOffset(), 0);
  EXPECT_EQ(state.Find(1)->current_txn_first_offset, 0);

  // A non-transactional batch, or a later epoch's data, cannot join the open transaction.
  std::string plain = testing::MakeProducerBatch(1, 1, 0, 4);
  EXPECT_EQ(ErrcOf(state.CheckProducedBatch(At(plain, 6)).status()), Errc::kInvalidTxnState);
  EXPECT_EQ(ErrcOf(state.CheckProducedBatch(At(TxnBatch(1, 1, 0, 1), 6)).status()), Errc::kInvalidTxnState);

  EndTxnMarker abort{ControlRecordType::kAbort, 4};
  RecordBatchHeader m1 = At(Marker(1, 0, ControlRecordType::kAbort, 4), 6);
  ASSERT_TRUE(state.CheckMarker(m1, abort).ok());
  auto completed = state.Update(m1, &abort);
  ASSERT_TRUE(completed);
  EXPECT_EQ(*completed, (CompletedTxn{1, 0, 6, true}));
  EXPECT_EQ(state.LastStableOffsetAfter(*completed), 3) << "producer 2's open transaction";
  // Completed, but its marker is not below the high watermark yet.
  EXPECT_EQ(state.FirstUnstableOffset(), 0);
  state.OnHighWatermarkUpdated(6);
  EXPECT_EQ(state.FirstUnstableOffset(), 0);
  state.OnHighWatermarkUpdated(7);
  EXPECT_EQ(state.FirstUnstableOffset(), 3);

  // Fencing: an older coordinator epoch, an older producer epoch.
  EndTxnMarker stale{ControlRecordType::kCommit, 3};
  EXPECT_EQ(ErrcOf(state.CheckMarker(At(Marker(1, 0, ControlRecordType::kCommit, 3), 7), stale)),
            Errc::kCoordinatorFenced);
  EndTxnMarker commit{ControlRecordType::kCommit, 4};
  state.Update(At(TxnBatch(2, 1, 0, 1), 7));  // not checked here: Update trusts its caller
  EXPECT_EQ(ErrcOf(state.CheckMarker(At(Marker(2, 0, ControlRecordType::kCommit, 4), 8), commit)),
            Errc::kInvalidProducerEpoch);

  // A marker for a producer with nothing open here completes nothing.
  RecordBatchHeader empty = At(Marker(9, 0, ControlRecordType::kCommit, 4), 8);
  EXPECT_FALSE(state.Update(empty, &commit));
}

TEST(ProducerStateTxn, SnapshotsKeepOpenTransactionsAndVersionOneLoads) {
  testing::TempDir dir;
  ProducerStateManager state(*FileOps::Default(), dir.path());
  state.Update(At(TxnBatch(1, 2, 0, 3), 0));
  EndTxnMarker commit{ControlRecordType::kCommit, 5};
  state.Update(At(Marker(1, 2, ControlRecordType::kCommit, 5), 3), &commit);
  state.Update(At(TxnBatch(4, 0, 0, 2), 4));
  ASSERT_TRUE(state.TakeSnapshot().ok());  // at 6
  ProducerStateManager loaded(*FileOps::Default(), dir.path());
  ASSERT_EQ(*loaded.LoadNewestSnapshotAtOrBelow(100, 0), 6);
  EXPECT_EQ(loaded.Find(1)->coordinator_epoch, 5);
  EXPECT_EQ(loaded.Find(1)->current_txn_first_offset, -1);
  EXPECT_EQ(loaded.Find(4)->current_txn_first_offset, 4);
  EXPECT_EQ(loaded.ongoing_txns(), (std::map<int64_t, int64_t>{{4, 4}}));
  EXPECT_EQ(loaded.FirstUnstableOffset(), 4);

  // Version 1 (before transactions): the same fields without the last two.
  std::string v2 = ProducerStateManager::EncodeSnapshot(state.producers());
  std::string body;
  int32_t count = 2;
  AppendBigEndian(&body, count);
  for (size_t i = 0; i < 2; ++i) body.append(v2.substr(10 + i * 50, 38));
  std::string v1;
  AppendBigEndian(&v1, uint16_t{1});
  AppendBigEndian(&v1, Crc32c(body.data(), body.size()));
  v1.append(body);
  auto decoded = ProducerStateManager::DecodeSnapshot(v1, "v1");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->at(4).current_txn_first_offset, -1);
  EXPECT_EQ(decoded->at(4).batches.back().last_offset, 5);
}

class LogTxnTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(LogOptions options) {
    auto log = Log::Open(options);
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? std::move(*log) : nullptr;
  }
  int64_t Append(Log& log, std::string batch, AppendOrigin origin = AppendOrigin::kClient) {
    auto info = log.AppendAsLeader(batch, 0, origin);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->first_offset : -1;
  }
  testing::TempDir tmp_;
  std::string dir_ = tmp_.Sub("topic-0");
};

TEST_F(LogTxnTest, LastStableOffsetAndAbortedTransactions) {
  auto log = OpenLog(SmallLogOptions(dir_));
  Append(*log, testing::MakeBatch(2, "plain", 1000));       // [0, 2)
  EXPECT_EQ(Append(*log, TxnBatch(1, 0, 0, 2)), 2);         // [2, 4) producer 1
  EXPECT_EQ(Append(*log, TxnBatch(2, 0, 0, 2)), 4);         // [4, 6) producer 2
  log->UpdateHighWatermark(6);
  EXPECT_EQ(log->high_watermark(), 6);
  EXPECT_EQ(log->last_stable_offset(), 2);

  std::string from_client = Marker(1, 0, ControlRecordType::kAbort);
  EXPECT_EQ(ErrcOf(log->AppendAsLeader(from_client, 0).status()), Errc::kInvalidRecord);
  EXPECT_EQ(Append(*log, Marker(1, 0, ControlRecordType::kAbort), AppendOrigin::kCoordinator), 6);
  EXPECT_EQ(log->last_stable_offset(), 2) << "the abort marker is not below the high watermark";
  log->UpdateHighWatermark(7);
  EXPECT_EQ(log->last_stable_offset(), 4) << "producer 2's transaction is open";
  EXPECT_EQ(Append(*log, Marker(2, 0, ControlRecordType::kCommit), AppendOrigin::kCoordinator), 7);
  log->UpdateHighWatermark(8);
  EXPECT_EQ(log->last_stable_offset(), 8);
  EXPECT_EQ(log->offsets().last_stable_offset, 8);

  auto aborted = log->CollectAbortedTxns(0, 8);
  ASSERT_TRUE(aborted.ok()) << aborted.status();
  EXPECT_EQ(*aborted, (std::vector<AbortedTxn>{{1, 2, 6, 4}}));
  EXPECT_TRUE(log->CollectAbortedTxns(7, 8)->empty()) << "the marker is below the fetch offset";
  EXPECT_TRUE(log->CollectAbortedTxns(0, 2)->empty()) << "the transaction starts at the upper bound";

  // A fenced marker (older producer epoch) changes nothing.
  Append(*log, TxnBatch(3, 5, 0, 1));  // 8
  std::string stale = Marker(3, 4, ControlRecordType::kAbort);
  EXPECT_EQ(ErrcOf(log->AppendAsLeader(stale, 0, AppendOrigin::kCoordinator).status()),
            Errc::kInvalidProducerEpoch);
  EXPECT_EQ(log->log_end_offset(), 9);
}

// KIP-890 part 1: with verification in force, a batch that opens a transaction needs a
// guard asked before the coordinator was, and still current; a marker in between ends
// it, so a batch delayed past its transaction's end cannot open a hanging transaction.
TEST_F(LogTxnTest, ABatchOpeningATransactionNeedsACurrentVerificationGuard) {
  auto log = OpenLog(SmallLogOptions(dir_));
  auto append = [&](std::string batch, const TxnVerification& v) {
    return log->AppendAsLeader(batch, 0, AppendOrigin::kClient, v);
  };
  // Never verified: refused, nothing stored.
  EXPECT_EQ(ErrcOf(append(TxnBatch(1, 0, 0, 2), {.required = true, .guard = 0}).status()), Errc::kInvalidTxnState);
  EXPECT_EQ(log->log_end_offset(), 0);
  // Verified: the guard opens it; while it is open no guard is needed (0) and any passes.
  const uint64_t guard = log->StartTxnVerification(1, 0);
  ASSERT_NE(guard, 0u);
  EXPECT_EQ(log->StartTxnVerification(1, 0), guard) << "a batch behind it waits for the same answer";
  EXPECT_EQ(ErrcOf(append(TxnBatch(1, 0, 0, 2), {.required = true, .guard = guard + 1}).status()),
            Errc::kInvalidTxnState);
  ASSERT_TRUE(append(TxnBatch(1, 0, 0, 2), {.required = true, .guard = guard}).ok());
  // Open now, but a batch behind the first is still being verified: the next one queues
  // behind it (the requests of a connection are pipelined; order is the producer's).
  EXPECT_EQ(log->StartTxnVerification(1, 0), guard);
  for (int i = 0; i < 3; ++i) log->EndTxnVerification(1);
  EXPECT_EQ(log->StartTxnVerification(1, 0), 0u) << "open, and nothing in flight: nothing to verify";
  ASSERT_TRUE(append(TxnBatch(1, 0, 2, 1), {.required = true, .guard = 0}).ok());
  EXPECT_NE(log->StartTxnVerification(1, 1), 0u) << "another epoch cannot join it";
  log->EndTxnVerification(1);
  Append(*log, Marker(1, 0, ControlRecordType::kAbort), AppendOrigin::kCoordinator);  // 3

  // The race: verified for the next transaction, then the marker of that one came (the
  // producer's batch was delayed past its abort). The guard it holds is no longer good.
  const uint64_t before_marker = log->StartTxnVerification(1, 0);
  ASSERT_NE(before_marker, 0u);
  Append(*log, TxnBatch(1, 0, 3, 1, 1500));  // 4: the next transaction opens (no verification asked here)
  Append(*log, Marker(1, 0, ControlRecordType::kAbort), AppendOrigin::kCoordinator);  // 5
  const int64_t end = log->log_end_offset();
  EXPECT_EQ(ErrcOf(append(TxnBatch(1, 0, 4, 1), {.required = true, .guard = before_marker}).status()),
            Errc::kInvalidTxnState);
  EXPECT_EQ(log->log_end_offset(), end) << "nothing stored";
  log->UpdateHighWatermark(end);
  EXPECT_EQ(log->last_stable_offset(), end) << "no transaction left hanging";
  // Without verification in force (transaction.partition.verification.enable=false) it opens freely.
  EXPECT_TRUE(append(TxnBatch(1, 0, 4, 1), {}).ok());
}

// Transaction protocol version 2: the coordinator's marker moves the producer to the next
// epoch, which the producer's next transaction runs in. Its first batch there starts at
// sequence 0; a later batch that overtook it (both waited for the coordinator) is
// refused OUT_OF_ORDER_SEQUENCE_NUMBER, so the producer retries it behind the first
// (before, it was taken as the epoch's first and the real first then refused). And a
// version 2 guard survives the marker of the transaction before, which carries its
// batch's own epoch; a marker of a later epoch ends it.
TEST_F(LogTxnTest, Version2TheEpochAMarkerStartsBeginsAtSequenceZeroAndKeepsItsGuard) {
  auto log = OpenLog(SmallLogOptions(dir_));
  auto append = [&](std::string batch, const TxnVerification& v) {
    return log->AppendAsLeader(batch, 0, AppendOrigin::kClient, v);
  };
  Append(*log, TxnBatch(1, 0, 0, 2));                                                  // [0, 2) epoch 0
  const uint64_t guard = log->StartTxnVerification(1, 1, /*epoch_bump=*/true);        // the next one's
  ASSERT_NE(guard, 0u);
  Append(*log, Marker(1, 1, ControlRecordType::kCommit), AppendOrigin::kCoordinator);  // 2: epoch 1
  const int64_t end = log->log_end_offset();
  EXPECT_EQ(ErrcOf(append(TxnBatch(1, 1, 15, 2), {.required = true, .guard = guard}).status()),
            Errc::kOutOfOrderSequence);
  EXPECT_EQ(log->log_end_offset(), end) << "nothing stored";
  ASSERT_TRUE(append(TxnBatch(1, 1, 0, 15), {.required = true, .guard = guard}).ok()) << "the guard survived";
  EXPECT_TRUE(append(TxnBatch(1, 1, 15, 2), {.required = true, .guard = 0}).ok()) << "then the one behind it";
  log->EndTxnVerification(1);
  Append(*log, Marker(1, 2, ControlRecordType::kCommit), AppendOrigin::kCoordinator);  // epoch 2
  // A marker of a later epoch than the guarded batch's (a fence, a timeout) ends the guard.
  const uint64_t next = log->StartTxnVerification(1, 2, true);
  Append(*log, Marker(1, 3, ControlRecordType::kAbort), AppendOrigin::kCoordinator);
  const int64_t fenced_end = log->log_end_offset();
  EXPECT_EQ(ErrcOf(append(TxnBatch(1, 3, 0, 1), {.required = true, .guard = next}).status()),
            Errc::kInvalidTxnState);
  EXPECT_EQ(log->log_end_offset(), fenced_end);
}

// A READ_COMMITTED fetch gets the aborted transactions among the records it read
// (bounded by FetchDataInfo::upper_bound_offset, from the offset index), never fewer: each
// aborted batch read has its transaction in the list, whatever the fetch size, also when
// the transaction began long before the fetch and ends long after it.
TEST_F(LogTxnTest, AFetchGetsEveryAbortedTransactionAmongTheRecordsItRead) {
  LogOptions options = SmallLogOptions(dir_);
  options.config.segment_bytes = 64 * 1024;
  auto log = OpenLog(options);
  std::map<int64_t, int32_t> sequence;
  std::map<int64_t, int64_t> open;                     // producer -> its transaction's first offset
  std::map<std::pair<int64_t, int64_t>, bool> aborted;  // (producer, first offset) -> aborted
  std::map<int64_t, std::pair<int64_t, int64_t>> txn_of_batch;  // batch base offset -> (producer, first offset)
  uint32_t rng = 7;
  auto next = [&] { return rng = rng * 1103515245u + 12345u; };
  for (int i = 0; i < 600; ++i) {
    const int64_t pid = 1 + next() % 4;  // producer 1's transactions run long
    if (open.count(pid) && (pid != 1 || i > 550) && next() % 3 == 0) {
      const bool abort = next() % 2 == 0;
      aborted[{pid, open[pid]}] = abort;
      Append(*log, Marker(pid, 0, abort ? ControlRecordType::kAbort : ControlRecordType::kCommit),
             AppendOrigin::kCoordinator);
      open.erase(pid);
      continue;
    }
    const int64_t at = Append(*log, TxnBatch(pid, 0, sequence[pid], 1));
    sequence[pid] += 1;
    if (!open.count(pid)) open[pid] = at;
    txn_of_batch[at] = {pid, open[pid]};
  }
  for (auto& [pid, first] : open) {  // end the rest (aborted) so that everything is stable
    aborted[{pid, first}] = true;
    Append(*log, Marker(pid, 0, ControlRecordType::kAbort), AppendOrigin::kCoordinator);
  }
  const int64_t end = log->log_end_offset();
  log->UpdateHighWatermark(end);
  ASSERT_EQ(log->last_stable_offset(), end);
  for (uint64_t max_bytes : {100u, 700u, 5000u, 1u << 20}) {
    int64_t offset = 0;
    int64_t listed_total = 0;
    while (offset < end) {
      auto info = log->Read(offset, max_bytes, end, true);
      ASSERT_TRUE(info.ok()) << info.status();
      auto bytes = info->records.ReadAll();
      ASSERT_TRUE(bytes.ok());
      auto listed = log->CollectAbortedTxns(offset, std::min(end, info->upper_bound_offset));
      ASSERT_TRUE(listed.ok());
      listed_total += static_cast<int64_t>(listed->size());
      std::set<std::pair<int64_t, int64_t>> in_list;
      for (const AbortedTxn& t : *listed) in_list.insert({t.producer_id, t.first_offset});
      BatchSplitter splitter(*bytes);
      int64_t next_offset = offset;
      while (true) {
        auto batch = splitter.Next();
        if (!batch.ok() || !*batch) break;
        RecordBatchHeader h = RecordBatchHeader::Parse((*batch)->data());
        next_offset = h.next_offset();
        auto txn = txn_of_batch.find(h.base_offset);
        if (h.is_control() || txn == txn_of_batch.end() || !aborted.at(txn->second)) continue;
        ASSERT_TRUE(in_list.count(txn->second)) << "fetch at " << offset << " of " << max_bytes << " bytes read aborted batch "
                                                << h.base_offset << " without its transaction listed";
      }
      ASSERT_GT(next_offset, offset);
      offset = next_offset;
    }
    // Bounded by what was read: small fetches do not each carry the whole log's list.
    if (max_bytes == 100u) EXPECT_LT(listed_total, static_cast<int64_t>(aborted.size()) * 40) << max_bytes;
  }
}

TEST_F(LogTxnTest, TruncationReopensATransactionAndDropsItsAbortEntry) {
  auto log = OpenLog(SmallLogOptions(dir_));
  Append(*log, TxnBatch(1, 0, 0, 3));                                              // [0, 3)
  Append(*log, Marker(1, 0, ControlRecordType::kAbort), AppendOrigin::kCoordinator);  // 3
  log->UpdateHighWatermark(4);
  EXPECT_EQ(log->last_stable_offset(), 4);
  ASSERT_EQ(log->CollectAbortedTxns(0, 4)->size(), 1u);
  ASSERT_TRUE(log->TruncateTo(3).ok());
  EXPECT_EQ(log->last_stable_offset(), 0) << "the marker is gone: the transaction is open again";
  EXPECT_TRUE(log->CollectAbortedTxns(0, 4)->empty());
  // The follower gets the leader's commit instead.
  std::string commit = Marker(1, 0, ControlRecordType::kCommit);
  SetBaseOffset(commit.data(), 3);
  ASSERT_TRUE(log->AppendAsFollower(commit).ok());
  log->UpdateHighWatermark(4);
  EXPECT_EQ(log->last_stable_offset(), 4);
  EXPECT_TRUE(log->CollectAbortedTxns(0, 4)->empty());
}

TEST_F(LogTxnTest, CleanReopenKeepsOpenTransactionsAndTheIndex) {
  {
    auto log = OpenLog(SmallLogOptions(dir_));
    Append(*log, TxnBatch(1, 0, 0, 2));                                               // [0, 2)
    Append(*log, Marker(1, 0, ControlRecordType::kAbort), AppendOrigin::kCoordinator);  // 2
    Append(*log, TxnBatch(2, 0, 0, 2));                                               // [3, 5) stays open
    log->UpdateHighWatermark(5);
    ASSERT_TRUE(log->Close().ok());
  }
  LogOptions options = SmallLogOptions(dir_);
  options.high_watermark = 5;
  options.recovery_point = 5;
  options.had_clean_shutdown = true;
  auto log = OpenLog(options);
  EXPECT_EQ(log->last_stable_offset(), 3);
  EXPECT_EQ(*log->CollectAbortedTxns(0, 5), (std::vector<AbortedTxn>{{1, 0, 2, 3}}));
  EXPECT_EQ(log->load_stats().producer_batches_replayed, 0) << "from the snapshot the close took";
}

TEST_F(LogTxnTest, UncleanReopenRebuildsALostAbortEntry) {
  LogOptions options = SmallLogOptions(dir_);
  {
    auto log = OpenLog(options);
    for (int i = 0; i < 6; ++i) {  // several segments (1 KiB each), aborts and commits in turn
      int64_t pid = 10 + i;
      Append(*log, TxnBatch(pid, 0, 0, 4));
      Append(*log, Marker(pid, 0, i % 2 ? ControlRecordType::kCommit : ControlRecordType::kAbort),
             AppendOrigin::kCoordinator);
    }
    log->UpdateHighWatermark(log->log_end_offset());
    ASSERT_GT(log->segment_count(), 1);
    // Abandoned, not closed: an unclean shutdown. The index files lose their entries.
  }
  int removed = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    if (e.path().extension() == ".txnindex") removed += std::filesystem::remove(e.path());
    if (e.path().extension() == ".snapshot") std::filesystem::remove(e.path());
  }
  ASSERT_GT(removed, 0);
  options.recovery_point = 0;
  options.had_clean_shutdown = false;
  options.high_watermark = 30;
  auto log = OpenLog(options);
  ASSERT_EQ(log->log_end_offset(), 30);
  EXPECT_EQ(log->last_stable_offset(), 30);
  auto aborted = log->CollectAbortedTxns(0, 30);
  ASSERT_TRUE(aborted.ok());
  EXPECT_EQ(*aborted, (std::vector<AbortedTxn>{{10, 0, 4, 5}, {12, 10, 14, 15}, {14, 20, 24, 25}}));
}

}  // namespace
}  // namespace strata::storage
