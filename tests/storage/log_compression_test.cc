// Compressed batches in a Log: exact timestamp lookups inside them, LogAppendTime on
// them, and compression.type making the leader recompress (Kafka's rules: records,
// timestamps and producer fields kept, offsets assigned by the log).

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "storage/compression.h"
#include "storage/bytes.h"
#include "storage/errc.h"
#include "storage/log.h"
#include "tests/storage/log_test_util.h"

namespace strata::storage {
namespace {

constexpr Compression kCodecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                   Compression::kZstd};

// 100 records, timestamps 1000 + i, in one batch of `codec`.
std::string TimedBatch(Compression codec, int records = 100, int64_t first_ts = 1000) {
  RecordBatchBuilder builder;
  builder.set_compression(codec);
  for (int i = 0; i < records; ++i) builder.Add(absl::StrCat("k", i), absl::StrCat("v", i), first_ts + i);
  return builder.Build();
}

// The stored batches' headers, from the log start.
std::vector<RecordBatchHeader> StoredHeaders(const Log& log) {
  std::vector<RecordBatchHeader> out;
  auto info = log.Read(log.log_start_offset(), 64 << 20, log.log_end_offset(), true);
  EXPECT_TRUE(info.ok()) << info.status();
  auto bytes = info->records.ReadAll();
  EXPECT_TRUE(bytes.ok());
  BatchSplitter splitter(*bytes);
  while (true) {
    auto batch = splitter.Next();
    if (!batch.ok() || !*batch) break;
    EXPECT_TRUE(ValidateStoredBatch(**batch, "stored").ok());
    out.push_back(RecordBatchHeader::Parse((*batch)->data()));
  }
  return out;
}

TEST(LogCompression, TimestampLookupsAreExactInsideCompressedBatches) {
  testing::TempDir tmp;
  for (Compression codec : kCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    LogOptions options = SmallLogOptions(tmp.Sub(absl::StrCat("ts-", static_cast<int>(codec))));
    options.config.segment_bytes = 1 << 20;
    auto log = Log::Open(options);
    ASSERT_TRUE(log.ok()) << log.status();
    for (int b = 0; b < 3; ++b) {
      std::string batch = TimedBatch(codec, 100, 1000 + b * 100);
      ASSERT_TRUE((*log)->AppendAsLeader(batch, 0).ok());
    }
    for (int64_t target : {1000, 1001, 1070, 1099, 1100, 1250, 1299}) {
      auto found = (*log)->FetchOffsetByTimestamp(target);
      ASSERT_TRUE(found.ok()) << found.status();
      ASSERT_TRUE(found->has_value());
      EXPECT_EQ((*found)->offset, target - 1000) << "target " << target;
      EXPECT_EQ((*found)->timestamp, target);
    }
    auto past = (*log)->FetchOffsetByTimestamp(1300);
    ASSERT_TRUE(past.ok());
    EXPECT_FALSE(past->has_value());
  }
}

TEST(LogCompression, LogAppendTimeStampsCompressedBatchesWithoutReencoding) {
  testing::TempDir tmp;
  ManualClock clock(5'000'000);
  LogOptions options = SmallLogOptions(tmp.Sub("lat-0"));
  options.config.segment_bytes = 1 << 20;
  options.config.log_append_time = true;
  options.clock = &clock;
  auto log = Log::Open(options);
  ASSERT_TRUE(log.ok());
  std::string batch = TimedBatch(Compression::kZstd);
  const size_t size = batch.size();
  auto info = (*log)->AppendAsLeader(batch, 0);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->log_append_time, 5'000'000);
  auto headers = StoredHeaders(**log);
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_TRUE(headers[0].log_append_time());
  EXPECT_EQ(headers[0].max_timestamp, 5'000'000);
  EXPECT_EQ(headers[0].compression(), Compression::kZstd);
  EXPECT_EQ(static_cast<size_t>(headers[0].size_in_bytes()), size) << "header fields only";
  auto found = (*log)->FetchOffsetByTimestamp(4'999'999);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->offset, 0) << "every record carries the append time";
}

TEST(LogCompression, CompressionTypeRecompressesOnTheLeaderKeepingRecords) {
  testing::TempDir tmp;
  int n = 0;
  for (Compression target : kCodecs) {
    for (Compression produced : kCodecs) {
      SCOPED_TRACE(absl::StrCat(CompressionName(produced), " -> ", CompressionName(target)));
      LogOptions options = SmallLogOptions(tmp.Sub(absl::StrCat("cc-", n++)));
      options.config.segment_bytes = 1 << 20;
      options.config.compression_type = target;
      auto log = Log::Open(options);
      ASSERT_TRUE(log.ok());
      RecordBatchBuilder builder;
      builder.set_compression(produced).set_producer(9, 1, 0);
      for (int i = 0; i < 50; ++i) builder.Add(absl::StrCat("k", i), std::string(200, 'a' + i % 26), 7000 + i);
      std::string original = builder.Build();
      // Two batches in one request: the second's offsets follow the first's.
      std::string records = original + [&] {
        RecordBatchBuilder second;
        second.set_compression(produced).set_producer(9, 1, 50);
        second.Add("last", "value", 8000);
        return second.Build();
      }();
      auto info = (*log)->AppendAsLeader(records, 0);
      ASSERT_TRUE(info.ok()) << info.status();
      EXPECT_EQ(info->first_offset, 0);
      EXPECT_EQ(info->last_offset, 50);
      auto headers = StoredHeaders(**log);
      ASSERT_EQ(headers.size(), 2u);
      for (const RecordBatchHeader& h : headers) {
        EXPECT_EQ(h.compression(), target);
        EXPECT_EQ(h.producer_id, 9);
        EXPECT_EQ(h.producer_epoch, 1);
      }
      EXPECT_EQ(headers[0].base_sequence, 0);
      EXPECT_EQ(headers[1].base_sequence, 50);
      EXPECT_EQ(headers[1].base_offset, 50);
      auto read = (*log)->Read(0, 64 << 20, (*log)->log_end_offset(), true);
      ASSERT_TRUE(read.ok());
      auto bytes = read->records.ReadAll();
      ASSERT_TRUE(bytes.ok());
      auto decoded = DecodeRecords(absl::string_view(*bytes).substr(0, headers[0].size_in_bytes()));
      auto expected = DecodeRecords(original);
      ASSERT_TRUE(decoded.ok() && expected.ok()) << decoded.status() << expected.status();
      EXPECT_EQ(*decoded, *expected) << "keys, values, headers, offset and timestamp deltas kept";
      EXPECT_EQ(headers[0].base_timestamp, 7000);
      EXPECT_EQ(headers[0].max_timestamp, 7049);
      // The retried request is recognised as a duplicate after recompression too.
      auto retry = (*log)->AppendAsLeader(records, 0);
      ASSERT_TRUE(retry.ok()) << retry.status();
      EXPECT_TRUE(retry->duplicate);
    }
  }
}

TEST(LogCompression, ACorruptCompressedBatchIsRefusedAndTheLogKeepsServing) {
  testing::TempDir tmp;
  LogOptions options = SmallLogOptions(tmp.Sub("corrupt-0"));
  options.config.segment_bytes = 1 << 20;
  auto log = Log::Open(options);
  ASSERT_TRUE(log.ok());
  std::string batch = TimedBatch(Compression::kLz4);
  // Garble the compressed section and fix the CRC, as a buggy client could send it.
  for (size_t i = batch_layout::kHeaderSize + 8; i < batch.size(); i += 7) batch[i] ^= 0x5a;
  StoreBigEndian(batch.data() + batch_layout::kCrc, ComputeBatchCrc(batch));
  auto refused = (*log)->AppendAsLeader(batch, 0);
  ASSERT_FALSE(refused.ok());
  Errc errc = ErrcOf(refused.status());
  EXPECT_TRUE(errc == Errc::kCorruptMessage || errc == Errc::kInvalidRecord) << refused.status();
  EXPECT_EQ((*log)->log_end_offset(), 0);
  std::string good = TimedBatch(Compression::kLz4);
  EXPECT_TRUE((*log)->AppendAsLeader(good, 0).ok());
}

}  // namespace
}  // namespace strata::storage
