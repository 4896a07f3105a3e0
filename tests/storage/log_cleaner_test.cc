// The log cleaner (compaction) on real files: a randomized property test against a
// model of the log, a consumer reading while the cleaner swaps segments, the cleaner's
// settings (lags, tombstones, dirty ratio, checkpoint, dedupe buffer), producers'
// sequences across cleaning, and a crash at every step of the swap (seed 004).
// Seeds: STRATA_CLEANER_SEEDS (comma-separated), else a fixed few.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "storage/cleaner.h"
#include "storage/compression.h"
#include "storage/control_record.h"
#include "storage/errc.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "storage/log_cleaner.h"
#include "tests/storage/log_test_util.h"
#include "tests/support/wait.h"

namespace strata::storage {
namespace {

constexpr int64_t kStart = 1'700'000'000'000;

struct KeyedRecord {
  int64_t offset = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp = 0;
  bool operator==(const KeyedRecord&) const = default;
};

using Entry = std::pair<std::optional<std::string>, std::optional<std::string>>;

std::string KeyedBatch(const std::vector<Entry>& entries, int64_t timestamp, Compression codec = Compression::kNone) {
  RecordBatchBuilder builder;
  builder.set_compression(codec);
  for (const auto& [key, value] : entries) {
    builder.Add(key ? std::optional<absl::string_view>(*key) : std::nullopt,
                value ? std::optional<absl::string_view>(*value) : std::nullopt, timestamp);
  }
  return builder.Build();
}

// Every record of the log from its start, with keys, checking each batch.
std::vector<KeyedRecord> ReadKeyed(const Log& log) {
  std::vector<KeyedRecord> out;
  int64_t offset = log.log_start_offset();
  const int64_t end = log.log_end_offset();
  while (offset < end) {
    auto info = log.Read(offset, 1 << 20, end, true);
    EXPECT_TRUE(info.ok()) << info.status();
    if (!info.ok()) return out;
    auto bytes = info->records.ReadAll();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok() || bytes->empty()) break;
    BatchSplitter splitter(*bytes);
    int64_t next = offset;
    while (true) {
      auto batch = splitter.Next();
      if (!batch.ok() || !*batch) break;  // a partial tail: read again from there
      EXPECT_TRUE(ValidateStoredBatch(**batch, "read back").ok());
      RecordBatchHeader h = RecordBatchHeader::Parse((*batch)->data());
      auto records = DecodeRecords(**batch);
      EXPECT_TRUE(records.ok()) << records.status();
      if (!records.ok()) return out;
      for (const Record& r : *records) {
        int64_t o = h.base_offset + r.offset_delta;
        if (o >= offset) out.push_back({o, r.key, r.value, h.base_timestamp + r.timestamp_delta});
      }
      next = h.next_offset();
    }
    if (next == offset) break;
    offset = next;
  }
  return out;
}

std::vector<uint64_t> Seeds() {
  std::vector<uint64_t> seeds = {1, 2, 3, 4, 5};
  if (const char* env = std::getenv("STRATA_CLEANER_SEEDS")) {
    seeds.clear();
    for (absl::string_view part : absl::StrSplit(env, ',', absl::SkipEmpty())) {
      uint64_t s;
      if (absl::SimpleAtoi(part, &s)) seeds.push_back(s);
    }
  }
  return seeds;
}

class LogCleanerTest : public ::testing::Test {
 protected:
  LogOptions Options(const std::string& name, FileOps* ops = FileOps::Default()) {
    LogOptions options = SmallLogOptions(tmp_.Sub(name), ops);
    options.clock = &clock_;
    options.config.segment_bytes = 4096;
    options.config.segment_index_bytes = 4096;
    options.config.cleanup_compact = true;
    options.config.cleanup_delete = false;
    return options;
  }

  CleanParams Params(size_t map_bytes = 16 << 20) {
    CleanParams params;
    params.now_ms = clock_.NowMs();
    params.offset_map_bytes = map_bytes;
    return params;
  }

  testing::TempDir tmp_;
  ManualClock clock_{kStart};
};

// The model: what the log must hold after cleaning. `latest` is each key's last offset.
struct Model {
  std::map<int64_t, KeyedRecord> all;           // every record appended, by offset
  std::map<std::string, int64_t> latest;        // key -> offset of its latest record

  void Add(const KeyedRecord& r) {
    all[r.offset] = r;
    latest[*r.key] = r.offset;
  }
};

// Checks the property: offsets grow, every record read is the one appended at its
// offset, every key's latest record is there unless it is a tombstone the cleaner may
// have removed, and below `cleaned_to` no superseded record and no expired tombstone is
// left.
void CheckAgainstModel(const std::vector<KeyedRecord>& read, const Model& model, int64_t cleaned_to, int64_t now,
                       int64_t delete_retention_ms) {
  std::set<int64_t> present;
  // Each key's latest offset below cleaned_to: the cleaning saw only that far.
  std::map<std::string, int64_t> latest_below;
  for (const auto& [offset, r] : model.all) {
    if (offset < cleaned_to) latest_below[*r.key] = offset;
  }
  int64_t previous = -1;
  for (const KeyedRecord& r : read) {
    ASSERT_GT(r.offset, previous) << "offsets must only grow";
    previous = r.offset;
    auto it = model.all.find(r.offset);
    ASSERT_NE(it, model.all.end()) << "offset " << r.offset << " was never appended";
    ASSERT_EQ(r, it->second) << "offset " << r.offset << " holds another record";
    present.insert(r.offset);
    if (r.offset < cleaned_to) {
      ASSERT_EQ(latest_below.at(*r.key), r.offset) << "superseded record at " << r.offset << " survived cleaning";
      if (!r.value) {
        ASSERT_LE(now - r.timestamp, delete_retention_ms) << "expired tombstone at " << r.offset << " survived";
      }
    }
  }
  for (const auto& [key, offset] : model.latest) {
    const KeyedRecord& r = model.all.at(offset);
    if (!r.value && (offset < cleaned_to && now - r.timestamp > delete_retention_ms)) continue;
    ASSERT_TRUE(present.count(offset)) << "key " << key << "'s latest record at " << offset << " is gone";
  }
}

TEST_F(LogCleanerTest, RandomKeysValuesAndTombstonesKeepEveryKeysLatestRecord) {
  for (uint64_t seed : Seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed=" << seed << " (STRATA_CLEANER_SEEDS=" << seed << " reruns it)");
    std::mt19937_64 rng(seed);
    LogOptions options = Options(absl::StrCat("prop-", seed));
    options.config.delete_retention_ms = 50'000;
    auto opened = Log::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status();
    Log& log = **opened;
    Model model;
    const int keys = 5 + static_cast<int>(rng() % 60);
    std::optional<int64_t> checkpoint;
    int64_t cleaned_at = clock_.NowMs();
    for (int round = 0; round < 8; ++round) {
      int batches = 10 + static_cast<int>(rng() % 40);
      for (int b = 0; b < batches; ++b) {
        std::vector<Entry> entries;
        int n = 1 + static_cast<int>(rng() % 6);
        for (int i = 0; i < n; ++i) {
          std::string key = absl::StrCat("k", rng() % keys);
          std::optional<std::string> value;
          if (rng() % 5 != 0) value = absl::StrCat("v", round, "-", b, "-", i, std::string(rng() % 64, 'x'));
          entries.emplace_back(key, value);
        }
        const Compression codecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                      Compression::kZstd};
        std::string batch = KeyedBatch(entries, clock_.NowMs(), codecs[rng() % 5]);
        auto info = log.AppendAsLeader(batch, 0);
        ASSERT_TRUE(info.ok()) << info.status();
        for (size_t i = 0; i < entries.size(); ++i) {
          model.Add({info->first_offset + static_cast<int64_t>(i), entries[i].first, entries[i].second, clock_.NowMs()});
        }
        clock_.Advance(static_cast<int64_t>(rng() % 3000));
      }
      if (rng() % 2) ASSERT_TRUE(log.Roll().ok());
      log.UpdateHighWatermark(log.log_end_offset());
      // A small offset map now and then: the cleaning stops where it filled.
      size_t map_bytes = rng() % 3 == 0 ? 1024 + rng() % 4096 : 16 << 20;
      auto result = CleanLog(log, checkpoint, Params(map_bytes));
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_GE(result->next_dirty_offset, result->first_dirty_offset);
      checkpoint = result->next_dirty_offset;
      if (map_bytes == (16u << 20)) {
        CleaningView view = log.ViewForCleaning();
        int64_t cleanable_end = view.segments.empty() ? 0 : view.segments.back().next_base_offset;
        ASSERT_EQ(*checkpoint, std::max(cleanable_end, result->first_dirty_offset)) << "a full map cleans it all";
      }
      // Every cleaning rewrites the log from its start with a map of [first dirty, its
      // end): by induction, below the checkpoint each key keeps only its latest record
      // and no tombstone older than delete.retention.ms is left.
      std::vector<KeyedRecord> read = ReadKeyed(log);
      // Tombstones expire only when a cleaning runs: judged at the last one that did.
      if (result->segments_cleaned > 0) cleaned_at = clock_.NowMs();
      ASSERT_NO_FATAL_FAILURE(CheckAgainstModel(read, model, *checkpoint, cleaned_at, 50'000));
    }
  }
}

TEST_F(LogCleanerTest, AConsumerReadingDuringCleaningSeesAConsistentLog) {
  LogOptions options = Options("reader-0");
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.status();
  Log& log = **opened;
  Model model;
  for (int b = 0; b < 400; ++b) {
    std::vector<Entry> entries;
    for (int i = 0; i < 4; ++i) entries.emplace_back(absl::StrCat("k", (b * 4 + i) % 37), absl::StrCat("v", b, "-", i));
    std::string batch = KeyedBatch(entries, clock_.NowMs());
    auto info = log.AppendAsLeader(batch, 0);
    ASSERT_TRUE(info.ok()) << info.status();
    for (int i = 0; i < 4; ++i) model.Add({info->first_offset + i, entries[i].first, entries[i].second, clock_.NowMs()});
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!done.load() || reads.load() < 3) {
      std::vector<KeyedRecord> read = ReadKeyed(log);
      // Mid-cleaning the log is part cleaned, part not: still consistent.
      CheckAgainstModel(read, model, 0, clock_.NowMs(), INT64_MAX);
      reads.fetch_add(1);
      if (::testing::Test::HasFailure()) return;
    }
  });
  for (int i = 0; i < 3; ++i) {
    auto result = CleanLog(log, std::nullopt, Params());
    ASSERT_TRUE(result.ok()) << result.status();
  }
  done.store(true);
  reader.join();
  ASSERT_NO_FATAL_FAILURE(CheckAgainstModel(ReadKeyed(log), model, log.ViewForCleaning().segments.back().next_base_offset,
                                            clock_.NowMs(), INT64_MAX));
  EXPECT_EQ(ReadKeyed(log).size(), 37u) << "one record per key";
}

TEST_F(LogCleanerTest, NeverCleansTheActiveSegmentOrAboveTheHighWatermark) {
  auto opened = Log::Open(Options("bounds-0"));
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  for (int b = 0; b < 200; ++b) {
    std::string batch = KeyedBatch({{"same", absl::StrCat("v", b)}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  // High watermark in the middle: only segments wholly below it are cleanable.
  log.UpdateHighWatermark(100);
  auto result = CleanLog(log, std::nullopt, Params());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LE(result->next_dirty_offset, 100);
  auto read = ReadKeyed(log);
  int below = 0;
  for (const KeyedRecord& r : read) {
    if (r.offset >= result->next_dirty_offset) continue;
    ++below;
    EXPECT_EQ(r.offset, result->next_dirty_offset - 1) << "only the latest record the cleaning saw stays";
  }
  EXPECT_EQ(below, 1);
  int above = 0;
  for (const KeyedRecord& r : read) above += r.offset >= result->next_dirty_offset;
  EXPECT_EQ(above, 200 - result->next_dirty_offset) << "nothing above the cleaned end was touched";
}

TEST_F(LogCleanerTest, MinCompactionLagHoldsNewSegmentsBack) {
  LogOptions options = Options("lag-0");
  options.config.min_compaction_lag_ms = 60'000;
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  for (int b = 0; b < 100; ++b) {
    std::string batch = KeyedBatch({{"k", absl::StrCat("v", b)}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  auto early = CleanLog(log, std::nullopt, Params());
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->next_dirty_offset, 0) << "every segment is newer than the lag";
  EXPECT_EQ(ReadKeyed(log).size(), 100u);
  clock_.Advance(61'000);
  auto later = CleanLog(log, std::nullopt, Params());
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->next_dirty_offset, 100);
  EXPECT_EQ(ReadKeyed(log).size(), 1u);
}

TEST_F(LogCleanerTest, TombstonesGoOnlyAfterDeleteRetention) {
  LogOptions options = Options("tombstones-0");
  options.config.delete_retention_ms = 10'000;
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  for (int b = 0; b < 50; ++b) {
    std::string batch = KeyedBatch({{"k", absl::StrCat("v", b)}, {"gone", "x"}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  std::string tombstone = KeyedBatch({{"gone", std::nullopt}}, clock_.NowMs());
  ASSERT_TRUE(log.AppendAsLeader(tombstone, 0).ok());
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  auto first = CleanLog(log, std::nullopt, Params());
  ASSERT_TRUE(first.ok());
  auto read = ReadKeyed(log);
  ASSERT_EQ(read.size(), 2u) << "k's latest value and the fresh tombstone";
  EXPECT_EQ(read[1].key, "gone");
  EXPECT_EQ(read[1].value, std::nullopt);
  clock_.Advance(10'001);
  auto second = CleanLog(log, std::nullopt, Params());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->tombstones_removed, 1);
  read = ReadKeyed(log);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].value, "v49");
  EXPECT_EQ(read[0].offset, 98);
}

TEST_F(LogCleanerTest, AProducersLastBatchStaysEmptySoItsSequenceSurvives) {
  LogOptions options = Options("producer-0");
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Log> log = std::move(*opened);
  const int64_t pid = 7;
  int32_t seq = 0;
  for (int b = 0; b < 60; ++b) {
    RecordBatchBuilder builder;
    builder.set_producer(pid, 0, seq);
    builder.Add("k", absl::StrCat("p", b), clock_.NowMs());
    std::string batch = builder.Build();
    ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
    ++seq;
  }
  // Another writer supersedes the producer's every record, its last included.
  for (int b = 0; b < 60; ++b) {
    std::string batch = KeyedBatch({{"k", absl::StrCat("other", b)}}, clock_.NowMs());
    ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log->Roll().ok());
  log->UpdateHighWatermark(log->log_end_offset());
  auto result = CleanLog(*log, std::nullopt, Params());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->empty_batches_kept, 1);
  EXPECT_EQ(ReadKeyed(*log).size(), 1u);
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  // Without any snapshot the state comes from the log alone: the empty batch carries it.
  auto names = FileOps::Default()->ListDir(options.dir);
  ASSERT_TRUE(names.ok());
  for (const std::string& name : *names) {
    if (absl::EndsWith(name, kSnapshotSuffix)) ASSERT_TRUE(FileOps::Default()->Remove(JoinPath(options.dir, name)).ok());
  }
  options.had_clean_shutdown = true;
  auto reopened = Log::Open(options);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  RecordBatchBuilder next;
  next.set_producer(pid, 0, seq);
  next.Add("k", "after", clock_.NowMs());
  std::string batch = next.Build();
  auto appended = (*reopened)->AppendAsLeader(batch, 0);
  EXPECT_TRUE(appended.ok()) << appended.status() << ": the producer's sequence must continue";
}

// Transactions under compaction: an aborted transaction's records never supersede a
// committed one's, and are removed; an open transaction's data is not cleaned at all.
TEST_F(LogCleanerTest, AbortedDataIsDroppedAndNeverSupersedesCommittedData) {
  auto opened = Log::Open(Options("txn-0"));
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  auto txn = [&](int64_t pid, int32_t seq, const std::string& key, const std::string& value) {
    std::string batch = RecordBatchBuilder()
                            .set_producer(pid, 0, seq)
                            .set_transactional(true)
                            .Add(key, value, clock_.NowMs())
                            .Build();
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  };
  auto end = [&](int64_t pid, ControlRecordType type) {
    std::string marker = BuildEndTxnMarkerBatch(pid, 0, EndTxnMarker{type, 0}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(marker, 0, AppendOrigin::kCoordinator).ok());
  };
  txn(1, 0, "a", "committed");  // 0
  end(1, ControlRecordType::kCommit);  // 1
  txn(2, 0, "a", "aborted");  // 2: later than the committed "a", but aborted
  txn(2, 1, "b", "aborted");  // 3
  end(2, ControlRecordType::kAbort);  // 4
  for (int i = 0; i < 40; ++i) {  // fill segments so that all of the above is rolled
    std::string batch = KeyedBatch({{absl::StrCat("f", i % 4), std::string(100, 'x')}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  txn(3, 0, "a", "open");  // stays open: the cleaner stops below it
  const int64_t open_at = log.log_end_offset() - 1;
  for (int i = 0; i < 40; ++i) {
    std::string batch = KeyedBatch({{absl::StrCat("f", i % 4), std::string(100, 'y')}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  ASSERT_EQ(log.last_stable_offset(), open_at);
  auto result = CleanLog(log, std::nullopt, Params());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->aborted_records_removed, 2);
  std::map<int64_t, KeyedRecord> by_offset;
  for (const KeyedRecord& r : ReadKeyed(log)) by_offset[r.offset] = r;
  ASSERT_TRUE(by_offset.count(0)) << "the committed record of key a stays";
  EXPECT_EQ(by_offset[0].value, "committed");
  EXPECT_FALSE(by_offset.count(2) || by_offset.count(3)) << "aborted records are removed";
  ASSERT_TRUE(by_offset.count(open_at)) << "the open transaction is not cleaned";
  EXPECT_EQ(by_offset[open_at].value, "open");
  EXPECT_EQ(log.CollectAbortedTxns(0, log.log_end_offset())->size(), 1u) << "the cleaned segment keeps the entry";
}

// The offsets of the log's control batches (transaction markers), from its start.
std::vector<int64_t> MarkerOffsets(const Log& log) {
  std::vector<int64_t> out;
  int64_t offset = log.log_start_offset();
  while (offset < log.log_end_offset()) {  // a read answers from one segment
    auto info = log.Read(offset, 1 << 24, log.log_end_offset(), true);
    EXPECT_TRUE(info.ok()) << info.status();
    if (!info.ok()) return out;
    auto bytes = info->records.ReadAll();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok() || bytes->empty()) return out;
    BatchSplitter splitter(*bytes);
    while (true) {
      auto batch = splitter.Next();
      if (!batch.ok() || !*batch) break;
      RecordBatchHeader h = RecordBatchHeader::Parse((*batch)->data());
      if (h.is_control()) out.push_back(h.base_offset);
      offset = h.next_offset();
    }
  }
  return out;
}

// Markers go once past delete.retention.ms and only when nothing of their transaction is
// left; an abort marker takes its aborted-index entry along, and producer snapshots
// taken before it (which could hold the transaction open on a reload) go first.
TEST_F(LogCleanerTest, TransactionMarkersGoPastDeleteRetentionOnceTheirTransactionHasNoData) {
  LogOptions options = Options("markers-0");
  options.config.delete_retention_ms = 10'000;
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Log> log = std::move(*opened);
  auto txn = [&](int64_t pid, int32_t seq, const std::string& key, const std::string& value) {
    std::string batch =
        RecordBatchBuilder().set_producer(pid, 0, seq).set_transactional(true).Add(key, value, clock_.NowMs()).Build();
    ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  };
  auto end = [&](int64_t pid, ControlRecordType type) {
    std::string marker = BuildEndTxnMarkerBatch(pid, 0, EndTxnMarker{type, 0}, clock_.NowMs());
    ASSERT_TRUE(log->AppendAsLeader(marker, 0, AppendOrigin::kCoordinator).ok());
  };
  txn(1, 0, "a", "v1");                // 0: superseded by 2
  end(1, ControlRecordType::kCommit);  // 1: its transaction will have nothing left
  txn(1, 1, "a", "v2");                // 2
  end(1, ControlRecordType::kCommit);  // 3: stays (2 stays)
  txn(2, 0, "b", "aborted");           // 4
  ASSERT_TRUE(log->Roll().ok());       // a producer snapshot at 5 holds producer 2's transaction open
  end(2, ControlRecordType::kAbort);   // 5: goes once 4 is gone, with its index entry
  std::string plain = RecordBatchBuilder().set_producer(2, 0, 1).Add("c", "v1", clock_.NowMs()).Build();
  ASSERT_TRUE(log->AppendAsLeader(plain, 0).ok());  // 6: producer 2's last batch, outside any transaction
  for (int i = 0; i < 40; ++i) {
    std::string batch = KeyedBatch({{absl::StrCat("f", i % 4), std::string(100, 'x')}}, clock_.NowMs());
    ASSERT_TRUE(log->AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log->Roll().ok());
  log->UpdateHighWatermark(log->log_end_offset());

  auto first = CleanLog(*log, std::nullopt, Params());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->markers_removed, 0) << "within delete.retention.ms every marker stays";
  EXPECT_EQ(MarkerOffsets(*log), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(log->CollectAbortedTxns(0, log->log_end_offset())->size(), 1u);

  clock_.Advance(10'001);
  auto second = CleanLog(*log, std::nullopt, Params());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->markers_removed, 2);
  EXPECT_EQ(MarkerOffsets(*log), (std::vector<int64_t>{3})) << "a marker whose transaction has data stays";
  EXPECT_TRUE(log->CollectAbortedTxns(0, log->log_end_offset())->empty()) << "the entry went with its marker";
  const int64_t end_offset = log->log_end_offset();
  ASSERT_TRUE(log->Close().ok());
  log.reset();

  // Reloaded from the oldest snapshot left (the newer ones removed), producer 2's
  // transaction must not come back open: nothing would close it.
  auto names = FileOps::Default()->ListDir(options.dir);
  ASSERT_TRUE(names.ok());
  for (const std::string& name : *names) {
    if (!absl::EndsWith(name, kSnapshotSuffix)) continue;
    int64_t offset = 0;
    ASSERT_TRUE(absl::SimpleAtoi(name.substr(0, name.size() - kSnapshotSuffix.size()), &offset)) << name;
    EXPECT_GT(offset, 5) << "a snapshot below the removed abort marker survived";
    if (offset > 6) ASSERT_TRUE(FileOps::Default()->Remove(JoinPath(options.dir, name)).ok());
  }
  options.had_clean_shutdown = true;
  auto reopened = Log::Open(options);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  (*reopened)->UpdateHighWatermark(end_offset);
  EXPECT_EQ((*reopened)->last_stable_offset(), end_offset) << "no transaction hangs after the reload";
}

TEST_F(LogCleanerTest, ACompactedTopicRefusesRecordsWithoutAKey) {
  auto opened = Log::Open(Options("keyless-0"));
  ASSERT_TRUE(opened.ok());
  for (Compression codec : {Compression::kNone, Compression::kZstd}) {
    std::string batch = KeyedBatch({{"k", "v"}, {std::nullopt, "v"}}, clock_.NowMs(), codec);
    auto appended = (*opened)->AppendAsLeader(batch, 0);
    ASSERT_FALSE(appended.ok());
    EXPECT_EQ(ErrcOf(appended.status()), Errc::kInvalidRecord) << appended.status();
  }
  EXPECT_EQ((*opened)->log_end_offset(), 0);
}

TEST_F(LogCleanerTest, RetentionDoesNotDeleteACompactOnlyLog) {
  LogOptions options = Options("retention-0");
  options.config.retention_ms = 1000;
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  for (int b = 0; b < 100; ++b) {
    std::string batch = KeyedBatch({{absl::StrCat("k", b), "v"}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  log.UpdateHighWatermark(log.log_end_offset());
  clock_.Advance(10'000);
  auto deleted = log.DeleteOldSegments();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 0);
  LogConfig both = log.config();
  both.cleanup_delete = true;
  log.UpdateConfig(both);
  deleted = log.DeleteOldSegments();
  ASSERT_TRUE(deleted.ok());
  EXPECT_GT(*deleted, 0) << "compact,delete: retention applies too";
}

TEST_F(LogCleanerTest, TheCleanerPicksTheDirtiestLogAndCheckpointsWhereItStopped) {
  FileOps* ops = FileOps::Default();
  std::string log_dir = tmp_.Sub("dir");
  ASSERT_TRUE(ops->CreateDir(log_dir).ok());
  std::map<TopicPartition, std::unique_ptr<Log>> logs;
  for (int p = 0; p < 2; ++p) {
    LogOptions options = Options("");
    options.dir = JoinPath(log_dir, absl::StrCat("t-", p));
    auto opened = Log::Open(options);
    ASSERT_TRUE(opened.ok());
    // t-0: every key once (nothing to remove); t-1: one key over and over.
    for (int b = 0; b < 100; ++b) {
      std::string batch = KeyedBatch({{p == 0 ? absl::StrCat("k", b) : "k", absl::StrCat("v", b)}}, clock_.NowMs());
      ASSERT_TRUE((*opened)->AppendAsLeader(batch, 0).ok());
    }
    ASSERT_TRUE((*opened)->Roll().ok());
    (*opened)->UpdateHighWatermark((*opened)->log_end_offset());
    logs[TopicPartition{"t", p}] = std::move(*opened);
  }
  LogCleanerOptions co;
  co.clock = &clock_;
  auto list = [&] {
    std::vector<CleanerCandidate> out;
    for (auto& [tp, log] : logs) out.push_back({tp, log.get(), log_dir});
    return out;
  };
  auto cleaner = LogCleaner::Create(co, {log_dir}, list);
  auto cleaned = cleaner->CleanDirtiestOnce();
  ASSERT_TRUE(cleaned.ok()) << cleaned.status();
  ASSERT_TRUE(*cleaned);
  // Both are wholly dirty (ratio 1); either may go first, then the other.
  cleaned = cleaner->CleanDirtiestOnce();
  ASSERT_TRUE(cleaned.ok() && *cleaned);
  EXPECT_EQ(cleaner->checkpoint({"t", 0}), 100);
  EXPECT_EQ(cleaner->checkpoint({"t", 1}), 100);
  EXPECT_EQ(ReadKeyed(*logs[{"t", 1}]).size(), 1u);
  EXPECT_EQ(ReadKeyed(*logs[{"t", 0}]).size(), 100u);
  cleaned = cleaner->CleanDirtiestOnce();
  ASSERT_TRUE(cleaned.ok());
  EXPECT_FALSE(*cleaned) << "nothing is dirty now";
  // A little new data: below min.cleanable.dirty.ratio (0.5), not cleaned.
  Log& one = *logs[{"t", 1}];
  std::string batch = KeyedBatch({{"k", "new"}}, clock_.NowMs());
  ASSERT_TRUE(one.AppendAsLeader(batch, 0).ok());
  ASSERT_TRUE(one.Roll().ok());
  one.UpdateHighWatermark(one.log_end_offset());
  cleaned = cleaner->CleanDirtiestOnce();
  ASSERT_TRUE(cleaned.ok());
  EXPECT_TRUE(*cleaned) << "t-1 is half clean, half dirty: ratio 0.5 meets the minimum";
  // The checkpoint file holds both, and a new cleaner reads it back.
  auto reread = LogCleaner::Create(co, {log_dir}, list);
  EXPECT_EQ(reread->checkpoint({"t", 0}), 100);
  EXPECT_EQ(reread->checkpoint({"t", 1}), 101);
}

TEST_F(LogCleanerTest, MaxCompactionLagForcesACleaningBelowTheDirtyRatio) {
  std::string log_dir = tmp_.Sub("maxlag");
  ASSERT_TRUE(FileOps::Default()->CreateDir(log_dir).ok());
  LogOptions options = Options("");
  options.dir = JoinPath(log_dir, "t-0");
  options.config.min_cleanable_dirty_ratio = 0.99;
  options.config.max_compaction_lag_ms = 60'000;
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  for (int b = 0; b < 100; ++b) {
    std::string batch = KeyedBatch({{absl::StrCat("k", b % 10), "v"}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  LogCleanerOptions co;
  co.clock = &clock_;
  auto cleaner = LogCleaner::Create(co, {log_dir}, [&] {
    return std::vector<CleanerCandidate>{{TopicPartition{"t", 0}, &log, log_dir}};
  });
  ASSERT_TRUE(cleaner->CleanDirtiestOnce().ok());
  // Cleaned once (wholly dirty). New data, a small share: only max lag makes it due.
  for (int b = 0; b < 10; ++b) {
    std::string batch = KeyedBatch({{absl::StrCat("k", b), "new"}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  auto cleaned = cleaner->CleanDirtiestOnce();
  ASSERT_TRUE(cleaned.ok());
  EXPECT_FALSE(*cleaned);
  clock_.Advance(60'001);
  cleaned = cleaner->CleanDirtiestOnce();
  ASSERT_TRUE(cleaned.ok());
  EXPECT_TRUE(*cleaned);
  EXPECT_EQ(ReadKeyed(log).size(), 10u);
}

// Kafka's dynamic log.cleaner.* configs on a running cleaner: a new backoff wakes a
// thread waiting the old one (an hour here), and a new thread count restarts the threads.
TEST_F(LogCleanerTest, ReconfigureTakesANewBackoffAndThreadCountWhileRunning) {
  std::string log_dir = tmp_.Sub("reconfigure");
  ASSERT_TRUE(FileOps::Default()->CreateDir(log_dir).ok());
  LogOptions options = Options("");
  options.dir = JoinPath(log_dir, "t-0");
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  LogCleanerOptions co;
  co.clock = &clock_;
  co.backoff_ms = 3'600'000;
  auto cleaner = LogCleaner::Create(co, {log_dir}, [&] {
    return std::vector<CleanerCandidate>{{TopicPartition{"t", 0}, &log, log_dir}};
  });
  cleaner->Start();
  // Dirty data once the thread found nothing to clean and waits its backoff.
  ASSERT_TRUE(testing::WaitUntil([&] { return cleaner->stats().picks == 1; }, std::chrono::seconds(10)));
  for (int b = 0; b < 100; ++b) {
    std::string batch = KeyedBatch({{"k", absl::StrCat("v", b)}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  LogCleanerOptions next = cleaner->options();
  next.backoff_ms = 10;
  cleaner->Reconfigure(next);
  EXPECT_TRUE(testing::WaitUntil([&] { return cleaner->stats().cleanings == 1; }, std::chrono::seconds(10)))
      << "the thread still waits the old backoff";
  EXPECT_EQ(ReadKeyed(log).size(), 1u);
  next.threads = 3;
  cleaner->Reconfigure(next);
  EXPECT_EQ(cleaner->options().threads, 3);
  EXPECT_TRUE(testing::WaitUntil([&] { return cleaner->stats().threads == 3; }, std::chrono::seconds(10)));
  next.threads = 1;
  cleaner->Reconfigure(next);
  EXPECT_TRUE(testing::WaitUntil([&] { return cleaner->stats().threads == 1; }, std::chrono::seconds(10)));
  cleaner->Shutdown();
  EXPECT_EQ(cleaner->stats().threads, 0);
}

TEST_F(LogCleanerTest, AnIoErrorWhileCleaningTakesTheDirOffline) {
  FaultInjectingFileOps ops;
  LogDirFailureChannel channel;
  std::string log_dir = tmp_.Sub("failing");
  ASSERT_TRUE(ops.CreateDir(log_dir).ok());
  channel.RegisterDir(log_dir);
  LogOptions options = Options("", &ops);
  options.dir = JoinPath(log_dir, "t-0");
  options.failure_channel = &channel;
  auto opened = Log::Open(options);
  ASSERT_TRUE(opened.ok());
  Log& log = **opened;
  for (int b = 0; b < 50; ++b) {
    std::string batch = KeyedBatch({{"k", absl::StrCat("v", b)}}, clock_.NowMs());
    ASSERT_TRUE(log.AppendAsLeader(batch, 0).ok());
  }
  ASSERT_TRUE(log.Roll().ok());
  log.UpdateHighWatermark(log.log_end_offset());
  ops.AddRule({.path_substring = ".log.cleaned", .op = FaultOp::kWrite});
  auto result = CleanLog(log, std::nullopt, Params());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(channel.IsOffline(log_dir));
  EXPECT_TRUE(log.offline());
}

// Seed 004: the swap, crashed at each of its renames (and before it, at the flush of the
// cleaned files). Reopened after the simulated power loss, the log holds either the
// cleaned or the uncleaned segments — never a mix that loses a key's latest record —
// producer state comes from its snapshot (no rebuild), and the idempotent producer
// continues its sequence.
TEST_F(LogCleanerTest, ACrashAtEveryStepOfTheSwapLosesNothingAndKeepsProducerState) {
  // How many renames a successful swap makes, counted on a dry run.
  auto build = [&](const std::string& name, FileOps* ops, Model& model) -> std::unique_ptr<Log> {
    LogOptions options = Options(name, ops);
    auto opened = Log::Open(options);
    EXPECT_TRUE(opened.ok()) << opened.status();
    std::unique_ptr<Log> log = std::move(*opened);
    for (int b = 0; b < 120; ++b) {
      RecordBatchBuilder builder;
      builder.set_producer(42, 0, b);
      builder.Add(absl::StrCat("k", b % 13), absl::StrCat("v", b), clock_.NowMs());
      std::string batch = builder.Build();
      auto info = log->AppendAsLeader(batch, 0);
      EXPECT_TRUE(info.ok()) << info.status();
      model.Add({info->first_offset, absl::StrCat("k", b % 13), absl::StrCat("v", b), clock_.NowMs()});
    }
    EXPECT_TRUE(log->Roll().ok());
    log->UpdateHighWatermark(log->log_end_offset());
    EXPECT_TRUE(log->FlushAll().ok());
    // What the flush scheduled after the roll does: the roll's producer snapshot durable.
    EXPECT_TRUE(SyncProducerSnapshot(*ops, options.dir, log->log_end_offset()).ok());
    return log;
  };
  int renames = 0;
  {
    FaultInjectingFileOps counting;
    Model model;
    auto log = build("dry-0", &counting, model);
    int64_t before = counting.renames();
    auto result = CleanLog(*log, std::nullopt, Params());
    ASSERT_TRUE(result.ok()) << result.status();
    renames = static_cast<int>(counting.renames() - before);
    ASSERT_GE(renames, 6) << "cleaned -> swap (3 files), old -> deleted (3 each), swap -> live (3)";
  }
  // Crash points: 0 = the flush of the cleaned files fails; k = the k-th rename fails.
  for (int k = 0; k <= renames; ++k) {
    SCOPED_TRACE(::testing::Message() << "crash point " << k << " of " << renames);
    FaultInjectingFileOps ops;
    Model model;
    std::string name = absl::StrCat("crash-", k);
    auto log = build(name, &ops, model);
    if (k == 0) {
      ops.AddRule({.path_substring = ".cleaned", .op = FaultOp::kSync, .remaining = 1});
    } else {
      ops.AddRule({.path_substring = "", .op = FaultOp::kRename, .remaining = 1, .skip = k - 1});
    }
    auto result = CleanLog(*log, std::nullopt, Params());
    ASSERT_FALSE(result.ok()) << "the injected fault must stop the swap";
    const int64_t log_end = log->log_end_offset();
    log.reset();  // the process dies: nothing more is written
    ops.SimulateCrash(static_cast<uint64_t>(k) + 1);

    LogOptions options = Options(name);
    options.recovery_point = log_end;  // everything was flushed before the cleaning
    options.had_clean_shutdown = false;
    auto reopened = Log::Open(options);
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    Log& after = **reopened;
    EXPECT_EQ(after.load_stats().producer_state_rebuilds, 0);
    EXPECT_EQ(after.log_end_offset(), log_end);
    ASSERT_NO_FATAL_FAILURE(CheckAgainstModel(ReadKeyed(after), model, 0, clock_.NowMs(), INT64_MAX));
    auto names = FileOps::Default()->ListDir(options.dir);
    ASSERT_TRUE(names.ok());
    for (const std::string& n : *names) {
      EXPECT_FALSE(absl::EndsWith(n, kCleanedSuffix) || absl::EndsWith(n, kSwapSuffix) ||
                   absl::EndsWith(n, kDeletedSuffix))
          << n << " left after loading";
    }
    RecordBatchBuilder next;
    next.set_producer(42, 0, 120);
    next.Add("k0", "after", clock_.NowMs());
    std::string batch = next.Build();
    auto appended = after.AppendAsLeader(batch, 0);
    EXPECT_TRUE(appended.ok()) << appended.status();
    // And cleaning again finishes the job.
    after.UpdateHighWatermark(after.log_end_offset());
    ASSERT_TRUE(after.Roll().ok());
    model.Add({log_end, "k0", "after", clock_.NowMs()});
    auto again = CleanLog(after, std::nullopt, Params());
    ASSERT_TRUE(again.ok()) << again.status();
    auto read = ReadKeyed(after);
    EXPECT_EQ(read.size(), 13u);
    ASSERT_NO_FATAL_FAILURE(CheckAgainstModel(read, model, again->next_dirty_offset, clock_.NowMs(), INT64_MAX));
  }
}


// log.cleaner.io.max.bytes.per.second: the cleaner's I/O waits for the rate (a lower bound
// on the time taken, which no scheduling can undercut), and a stopping cleaner never waits.
TEST(Throttler, PacesToTheRateAndGivesUpWhenStopped) {
  Throttler throttler(1'000'000);
  std::atomic<bool> stop{false};
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(throttler.Acquire(150'000, stop));
  EXPECT_TRUE(throttler.Acquire(150'000, stop));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(290));
  stop.store(true);
  EXPECT_FALSE(throttler.Acquire(1'000'000'000, stop)) << "a stopped job does not wait 1000 s";
  Throttler unlimited(0);
  std::atomic<bool> running{false};
  EXPECT_TRUE(unlimited.Acquire(int64_t{1} << 40, running));
}

// A dynamic log.cleaner.io.max.bytes.per.second: a new rate ends a wait for the old one
// (here 1000 s of bytes at 1 byte/s).
TEST(Throttler, ANewRateEndsAWaitForTheOldOne) {
  Throttler throttler(1);
  std::atomic<bool> stop{false};
  std::thread waiting([&] { EXPECT_TRUE(throttler.Acquire(1'000, stop)); });
  ASSERT_TRUE(testing::WaitUntil([&] { return throttler.waiters() == 1; }, std::chrono::seconds(10)));
  throttler.SetRate(0);
  waiting.join();
  EXPECT_TRUE(throttler.Acquire(int64_t{1} << 40, stop)) << "no limit now";
}

}  // namespace
}  // namespace strata::storage
