#include "storage/record_batch.h"

#include <gtest/gtest.h>

#include "storage/bytes.h"
#include "storage/crc32c.h"
#include "storage/errc.h"
#include "tests/support/batches.h"

namespace strata::storage {
namespace {

using testing::MakeBatch;

TEST(Crc32c, KnownVectors) {
  // RFC 3720 B.4 test vectors.
  std::string zeros(32, '\0');
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  std::string ones(32, '\xFF');
  EXPECT_EQ(Crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32cExtend(Crc32c("1234", 4), "56789", 5), 0xE3069283u);
}

TEST(Crc32c, LongInputsMatchTheBytewiseDefinition) {
  // Long inputs take the three-stream path; every length and alignment around its
  // block boundaries must agree with the plain table computation.
  std::string data(20'016, '\0');  // room for the longest length at the largest offset
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + (i >> 7));
  auto reference = [](const char* p, size_t n) {
    uint32_t crc = ~0u;
    for (size_t i = 0; i < n; ++i) {
      crc ^= static_cast<uint8_t>(p[i]);
      for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0);
    }
    return ~crc;
  };
  for (size_t n : {3071u, 3072u, 3073u, 6144u, 9000u, 16'707u, 19'999u}) {
    for (size_t offset : {0u, 1u, 5u}) {
      EXPECT_EQ(Crc32c(data.data() + offset, n), reference(data.data() + offset, n)) << n << " at " << offset;
    }
  }
  EXPECT_EQ(Crc32cExtend(Crc32c(data.data(), 5000), data.data() + 5000, 12'000), Crc32c(data.data(), 17'000));
}

TEST(RecordBatch, BuildsAndDecodesRoundTrip) {
  RecordBatchBuilder builder;
  builder.set_producer(7, 2, 40);
  builder.Add("key", "value", 100, {{"h", "v"}, {"n", std::nullopt}});
  builder.Add(std::nullopt, std::nullopt, 105);
  std::string batch = builder.Build();
  ASSERT_TRUE(ValidateProducedBatch(batch, 1 << 20).ok());
  RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
  EXPECT_EQ(h.records_count, 2);
  EXPECT_EQ(h.last_offset_delta, 1);
  EXPECT_EQ(h.base_timestamp, 100);
  EXPECT_EQ(h.max_timestamp, 105);
  EXPECT_EQ(h.producer_id, 7);
  EXPECT_EQ(h.producer_epoch, 2);
  EXPECT_EQ(h.base_sequence, 40);
  EXPECT_EQ(h.last_sequence(), 41);
  auto records = DecodeRecords(batch);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].key, "key");
  EXPECT_EQ((*records)[0].value, "value");
  ASSERT_EQ((*records)[0].headers.size(), 2u);
  EXPECT_EQ((*records)[0].headers[1].value, std::nullopt);
  EXPECT_EQ((*records)[1].key, std::nullopt);
  EXPECT_EQ((*records)[1].timestamp_delta, 5);
}

TEST(RecordBatch, BaseOffsetRewriteKeepsCrcValid) {
  std::string batch = MakeBatch(3, "a");
  SetBaseOffset(batch.data(), 123456789);
  SetPartitionLeaderEpoch(batch.data(), 9);
  EXPECT_TRUE(ValidateStoredBatch(batch, "t").ok());
  RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
  EXPECT_EQ(h.base_offset, 123456789);
  EXPECT_EQ(h.partition_leader_epoch, 9);
  EXPECT_EQ(h.last_offset(), 123456791);
}

TEST(RecordBatch, EachMalformationGetsItsOwnError) {
  std::string good = MakeBatch(3, "a");
  auto expect = [](const std::string& batch, Errc errc, absl::string_view words) {
    absl::Status s = ValidateProducedBatch(batch, 1 << 20);
    EXPECT_EQ(ErrcOf(s), errc) << s;
    EXPECT_NE(s.message().find(words), absl::string_view::npos) << s;
  };
  expect(good.substr(0, 30), Errc::kCorruptMessage, "cannot hold a batch header");
  std::string bad_magic = good;
  bad_magic[batch_layout::kMagic] = 1;
  expect(bad_magic, Errc::kCorruptMessage, "magic 1");
  std::string bad_crc = good;
  bad_crc.back() ^= 0x1;
  expect(bad_crc, Errc::kCorruptMessage, "CRC mismatch");
  std::string bad_length = good;
  StoreBigEndian<int32_t>(bad_length.data() + batch_layout::kBatchLength, static_cast<int32_t>(good.size()));
  expect(bad_length, Errc::kCorruptMessage, "truncated");
  std::string bad_delta = good;
  StoreBigEndian<int32_t>(bad_delta.data() + batch_layout::kLastOffsetDelta, 5);
  StoreBigEndian(bad_delta.data() + batch_layout::kCrc, ComputeBatchCrc(bad_delta));
  expect(bad_delta, Errc::kInvalidRecord, "lastOffsetDelta 5 but 3 records");
  std::string bad_count = good;
  StoreBigEndian<int32_t>(bad_count.data() + batch_layout::kRecordsCount, 0);
  StoreBigEndian(bad_count.data() + batch_layout::kCrc, ComputeBatchCrc(bad_count));
  expect(bad_count, Errc::kInvalidRecord, "recordsCount 0");
  std::string bad_offset_delta = good;
  ASSERT_EQ(bad_offset_delta[batch_layout::kHeaderSize + 3], 0);  // record 0's offsetDelta varint
  bad_offset_delta[batch_layout::kHeaderSize + 3] = 2;             // zig-zag 1
  StoreBigEndian(bad_offset_delta.data() + batch_layout::kCrc, ComputeBatchCrc(bad_offset_delta));
  expect(bad_offset_delta, Errc::kInvalidRecord, "record 0 has offsetDelta 1, expected 0");
  std::string bad_record_length = good;
  bad_record_length[batch_layout::kHeaderSize] = 0x7e;  // record 0 claims 63 bytes
  StoreBigEndian(bad_record_length.data() + batch_layout::kCrc, ComputeBatchCrc(bad_record_length));
  expect(bad_record_length, Errc::kCorruptMessage, "record 0");
}

TEST(RecordBatch, TooLargeBatchIsRejected) {
  std::string good = MakeBatch(3, "a");
  absl::Status s = ValidateProducedBatch(good, 10);
  EXPECT_EQ(ErrcOf(s), Errc::kRecordTooLarge) << s;
}

TEST(RecordBatch, SplitterRejectsTrailingGarbage) {
  std::string buffer = MakeBatch(2, "a") + MakeBatch(1, "b") + "xyz";
  BatchSplitter splitter(buffer);
  ASSERT_TRUE(splitter.Next().value().has_value());
  ASSERT_TRUE(splitter.Next().value().has_value());
  auto third = splitter.Next();
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.status().message().find("3 trailing bytes"), absl::string_view::npos) << third.status();
}

TEST(Varint, ZigZagRoundTrip) {
  for (int64_t v : std::vector<int64_t>{0, 1, -1, 63, -64, 300, INT32_MAX, INT64_MIN, INT64_MAX}) {
    std::string buf;
    AppendVarlong(&buf, v);
    absl::string_view in = buf;
    EXPECT_EQ(ReadVarlong(&in), v);
    EXPECT_TRUE(in.empty());
  }
}

}  // namespace
}  // namespace strata::storage
