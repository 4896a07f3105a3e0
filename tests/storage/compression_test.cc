#include "storage/compression.h"

#include <gtest/gtest.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/bytes.h"
#include "storage/errc.h"
#include "storage/record_batch.h"

namespace strata::storage {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr Compression kCodecs[] = {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd};
constexpr Compression kAllCodecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                      Compression::kZstd};

// Text-like bytes that compress a few times, with a pseudo-random tail of each line.
std::string SampleData(size_t size, uint32_t seed = 1) {
  std::string out;
  uint32_t x = seed;
  while (out.size() < size) {
    x = x * 1103515245 + 12345;
    absl::StrAppend(&out, "{\"user\":", x % 1000, ",\"event\":\"click\",\"n\":", x >> 7, "}\n");
  }
  out.resize(size);
  return out;
}

std::string Decompressed(Compression codec, absl::string_view input, size_t max_output = 64 * kMiB) {
  auto out = Decompress(codec, input, max_output);
  EXPECT_TRUE(out.ok()) << CompressionName(codec) << ": " << out.status();
  return out.ok() ? *out : std::string();
}

std::string Compressed(Compression codec, absl::string_view input) {
  auto out = Compress(codec, input);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::string();
}

// ---- frames as other writers make them, with the codec libraries directly ----

std::string XerialHeader() {
  std::string out("\x82SNAPPY\0", 8);
  AppendBigEndian<int32_t>(&out, 1);
  AppendBigEndian<int32_t>(&out, 1);
  return out;
}

std::string RawSnappy(absl::string_view input) {
  size_t length = snappy_max_compressed_length(input.size());
  std::string out(length, '\0');
  EXPECT_EQ(snappy_compress(input.data(), input.size(), out.data(), &length), SNAPPY_OK);
  out.resize(length);
  return out;
}

void AppendXerialBlock(std::string* out, absl::string_view block_input) {
  std::string block = RawSnappy(block_input);
  AppendBigEndian<int32_t>(out, static_cast<int32_t>(block.size()));
  out->append(block);
}

// A whole LZ4 frame from liblz4's streaming API, fed `chunk` `repeat` times.
std::string Lz4Frame(absl::string_view chunk, size_t repeat, const LZ4F_preferences_t& prefs) {
  LZ4F_cctx* ctx = nullptr;
  EXPECT_FALSE(LZ4F_isError(LZ4F_createCompressionContext(&ctx, LZ4F_VERSION)));
  std::string out, buffer(LZ4F_compressBound(chunk.size(), &prefs) + LZ4F_HEADER_SIZE_MAX, '\0');
  size_t n = LZ4F_compressBegin(ctx, buffer.data(), buffer.size(), &prefs);
  out.append(buffer.data(), n);
  for (size_t i = 0; i < repeat; ++i) {
    n = LZ4F_compressUpdate(ctx, buffer.data(), buffer.size(), chunk.data(), chunk.size(), nullptr);
    EXPECT_FALSE(LZ4F_isError(n));
    out.append(buffer.data(), n);
  }
  n = LZ4F_compressEnd(ctx, buffer.data(), buffer.size(), nullptr);
  out.append(buffer.data(), n);
  LZ4F_freeCompressionContext(ctx);
  return out;
}

LZ4F_preferences_t Lz4JavaStylePrefs() {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
  prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  prefs.frameInfo.contentSize = 0;  // absent
  return prefs;
}

// A zstd frame written by the streaming API (as zstd-jni's output stream): no content
// size unless pledged.
std::string ZstdStreamFrame(absl::string_view chunk, size_t repeat, std::optional<uint64_t> pledged = std::nullopt) {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, 3);
  if (pledged) ZSTD_CCtx_setPledgedSrcSize(ctx, *pledged);
  std::string out, buffer(ZSTD_CStreamOutSize(), '\0');
  for (size_t i = 0; i <= repeat; ++i) {
    bool last = i == repeat;
    ZSTD_inBuffer in{last ? nullptr : chunk.data(), last ? 0 : chunk.size(), 0};
    ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
    while (true) {
      ZSTD_outBuffer dst{buffer.data(), buffer.size(), 0};
      size_t left = ZSTD_compressStream2(ctx, &dst, &in, mode);
      EXPECT_FALSE(ZSTD_isError(left)) << ZSTD_getErrorName(left);
      out.append(buffer.data(), dst.pos);
      if (ZSTD_isError(left) || (last ? left == 0 : in.pos == in.size)) break;
    }
  }
  ZSTD_freeCCtx(ctx);
  return out;
}

// One gzip member written by zlib's streaming API, fed `chunk` `repeat` times.
std::string GzipMember(absl::string_view chunk, size_t repeat, int level = Z_BEST_SPEED) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out, buffer(1 << 16, '\0');
  for (size_t i = 0; i <= repeat; ++i) {
    bool last = i == repeat;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(last ? "" : chunk.data()));
    z.avail_in = last ? 0 : static_cast<uInt>(chunk.size());
    int r;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer.data());
      z.avail_out = static_cast<uInt>(buffer.size());
      r = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      out.append(buffer.data(), buffer.size() - z.avail_out);
    } while (last ? r != Z_STREAM_END : z.avail_in > 0 || z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

// How far the process's peak resident size rose while fn ran (Linux: clear_refs resets
// the peak), or nullopt where that cannot be measured.
std::optional<size_t> PeakRssGrowth(const std::function<void()>& fn) {
  auto peak_kb = []() -> std::optional<size_t> {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmHWM:", 0) == 0) return std::stoul(line.substr(6));
    }
    return std::nullopt;
  };
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.close();
  if (!clear) {
    fn();
    return std::nullopt;
  }
  auto before = peak_kb();
  fn();
  auto after = peak_kb();
  if (!before || !after) return std::nullopt;
  return (*after - std::min(*before, *after)) * 1024;
}

// ---- Compress / Decompress ----

TEST(Compression, NamesAndTopicSetting) {
  EXPECT_STREQ(CompressionName(Compression::kNone), "none");
  EXPECT_STREQ(CompressionName(Compression::kZstd), "zstd");
  EXPECT_STREQ(CompressionName(static_cast<Compression>(6)), "unknown");
  EXPECT_EQ(ParseCompressionType("producer").value(), std::nullopt);
  EXPECT_EQ(ParseCompressionType("uncompressed").value(), Compression::kNone);
  for (Compression codec : kCodecs) EXPECT_EQ(ParseCompressionType(CompressionName(codec)).value(), codec);
  for (absl::string_view bad : {"none", "GZIP", "brotli", ""}) {
    auto parsed = ParseCompressionType(bad);
    EXPECT_EQ(ErrcOf(parsed.status()), Errc::kInvalidConfig) << bad;
    EXPECT_NE(parsed.status().message().find("compression.type"), absl::string_view::npos);
  }
}

TEST(Compression, BoundIsSixtyFourTimesMaxMessageBytesWithinFloorAndCeiling) {
  EXPECT_EQ(MaxUncompressedBatchBytes(1024 * 1024 + 12), 64 * (1024 * 1024 + 12));
  EXPECT_EQ(MaxUncompressedBatchBytes(1000), 16 * kMiB);
  EXPECT_EQ(MaxUncompressedBatchBytes(0), 16 * kMiB);
  EXPECT_EQ(MaxUncompressedBatchBytes(-1), 16 * kMiB);
  EXPECT_EQ(MaxUncompressedBatchBytes(100 * kMiB), 512 * kMiB);
  EXPECT_EQ(MaxUncompressedBatchBytes(INT64_MAX), 512 * kMiB);
}

TEST(Compression, EveryCodecRoundTripsEmptySmallAndLargeInputs) {
  for (Compression codec : kAllCodecs) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{100}, 40 * size_t{1024}, 3 * kMiB + 17}) {
      std::string input = SampleData(size, static_cast<uint32_t>(size));
      std::string compressed = Compressed(codec, input);
      if (codec != Compression::kNone && size >= 1024) {
        EXPECT_LT(compressed.size(), input.size() / 2);
      }
      EXPECT_EQ(Decompressed(codec, compressed), input) << CompressionName(codec) << " " << size;
      // Exactly at the bound is fine; one byte below it is not.
      EXPECT_TRUE(Decompress(codec, compressed, size).ok()) << CompressionName(codec) << " " << size;
      if (size > 0) {
        auto short_bound = Decompress(codec, compressed, size - 1);
        EXPECT_EQ(ErrcOf(short_bound.status()), Errc::kInvalidRecord) << CompressionName(codec) << " " << size;
      }
    }
  }
}

TEST(Compression, SnappyWritesTheXerialFraming) {
  std::string input = SampleData(80 * 1024);
  std::string compressed = Compressed(Compression::kSnappy, input);
  ASSERT_GE(compressed.size(), 16u);
  EXPECT_EQ(compressed.substr(0, 16), XerialHeader());
  // 80 KiB in 32 KiB blocks: three blocks, each a raw snappy block.
  absl::string_view rest = absl::string_view(compressed).substr(16);
  std::string joined;
  int blocks = 0;
  while (!rest.empty()) {
    int32_t length = LoadBigEndian<int32_t>(rest.data());
    std::string block;
    ASSERT_TRUE(snappy::Uncompress(rest.data() + 4, length, &block));
    joined += block;
    rest.remove_prefix(4 + length);
    ++blocks;
  }
  EXPECT_EQ(blocks, 3);
  EXPECT_EQ(joined, input);
}

TEST(Compression, Lz4WritesFramesJavasReaderAccepts) {
  // KafkaLZ4BlockInputStream refuses linked blocks; Java writes 64 KiB blocks, no
  // checksums and no content size.
  std::string frame = Compressed(Compression::kLz4, SampleData(200'000));
  ASSERT_GE(frame.size(), 7u);
  EXPECT_EQ(LoadBigEndian<uint32_t>(frame.data()), 0x04224D18u);  // magic 0x184D2204, little-endian
  EXPECT_EQ(static_cast<uint8_t>(frame[4]), 0x60) << "FLG: version 01, independent blocks, nothing else";
  EXPECT_EQ(static_cast<uint8_t>(frame[5]), 0x40) << "BD: 64 KiB blocks";
}

TEST(Compression, SnappyReadsJavaXerialBlocksAndLibrdkafkaRawBlocks) {
  std::string first = SampleData(20'000, 7), second = SampleData(9'000, 8);
  std::string xerial = XerialHeader();
  AppendXerialBlock(&xerial, first);
  AppendXerialBlock(&xerial, second);
  EXPECT_EQ(Decompressed(Compression::kSnappy, xerial), first + second);
  // Two xerial streams back to back (the header repeats).
  EXPECT_EQ(Decompressed(Compression::kSnappy, xerial + xerial), first + second + first + second);
  // A header and no block is an empty stream.
  EXPECT_EQ(Decompressed(Compression::kSnappy, XerialHeader()), "");
  EXPECT_EQ(Decompressed(Compression::kSnappy, RawSnappy(first)), first);
}

TEST(Compression, Lz4ReadsFramesWithoutChecksumsOrContentSizeAndConcatenatedFrames) {
  std::string a = SampleData(150'000, 3), b = SampleData(70'000, 4);
  LZ4F_preferences_t java = Lz4JavaStylePrefs();
  std::string frame_a = Lz4Frame(a, 1, java);
  EXPECT_EQ(static_cast<uint8_t>(frame_a[4]) & 0x08, 0) << "no content size flag";
  EXPECT_EQ(Decompressed(Compression::kLz4, frame_a), a);
  // Linked 4 MiB blocks with both checksums and the content size: any valid frame.
  LZ4F_preferences_t other{};
  other.frameInfo.blockSizeID = LZ4F_max4MB;
  other.frameInfo.blockMode = LZ4F_blockLinked;
  other.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
  other.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  other.frameInfo.contentSize = b.size();
  std::string frame_b = Lz4Frame(b, 1, other);
  EXPECT_EQ(Decompressed(Compression::kLz4, frame_b), b);
  EXPECT_EQ(Decompressed(Compression::kLz4, frame_a + frame_b + frame_a), a + b + a);
}

TEST(Compression, ZstdReadsStreamedFramesWithoutContentSize) {
  std::string chunk = SampleData(100'000, 5);
  std::string frame = ZstdStreamFrame(chunk, 3);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  std::string expected = chunk + chunk + chunk;
  EXPECT_EQ(Decompressed(Compression::kZstd, frame), expected);
  EXPECT_EQ(Decompressed(Compression::kZstd, frame + Compressed(Compression::kZstd, "tail")), expected + "tail");
}

TEST(Compression, GzipReadsConcatenatedMembersAndRefusesTrailingGarbage) {
  std::string a = SampleData(5'000, 1), b = SampleData(7'000, 2);
  std::string both = Compressed(Compression::kGzip, a) + GzipMember(b, 1);
  EXPECT_EQ(Decompressed(Compression::kGzip, both), a + b);
  auto garbage = Decompress(Compression::kGzip, both + "garbage!", kMiB);
  EXPECT_EQ(ErrcOf(garbage.status()), Errc::kCorruptMessage) << garbage.status();
  EXPECT_NE(garbage.status().message().find("gzip"), absl::string_view::npos) << garbage.status();
}

// 1 GiB of zeros in each codec's framing, as one stream and as many concatenated ones,
// against a 1 MiB bound: refused with INVALID_RECORD, and the decoder's memory stays
// near the bound instead of following the input's promise.
TEST(Compression, BombsStopAtTheBoundWithoutAllocatingPastIt) {
  const std::string zeros(kMiB, '\0');
  constexpr size_t kUnits = 1024;  // 1 GiB in all
  struct Bomb {
    Compression codec;
    std::string name;
    std::string bytes;
  };
  std::vector<Bomb> bombs;
  bombs.push_back({Compression::kGzip, "one gzip member", GzipMember(zeros, kUnits)});
  std::string member = GzipMember(zeros, 1), members;
  for (size_t i = 0; i < kUnits; ++i) members += member;
  bombs.push_back({Compression::kGzip, "gzip members", std::move(members)});
  std::string xerial = XerialHeader(), block;
  AppendXerialBlock(&block, zeros);
  for (size_t i = 0; i < kUnits; ++i) xerial += block;
  bombs.push_back({Compression::kSnappy, "xerial blocks", std::move(xerial)});
  bombs.push_back({Compression::kSnappy, "raw snappy block", RawSnappy(std::string(8 * kMiB, '\0'))});
  bombs.push_back({Compression::kLz4, "one lz4 frame", Lz4Frame(zeros, kUnits, Lz4JavaStylePrefs())});
  LZ4F_preferences_t declared = Lz4JavaStylePrefs();
  declared.frameInfo.contentSize = kUnits * kMiB;
  bombs.push_back({Compression::kLz4, "lz4 frame declaring its size", Lz4Frame(zeros, kUnits, declared)});
  std::string frame = Lz4Frame(zeros, 1, Lz4JavaStylePrefs()), frames;
  for (size_t i = 0; i < kUnits; ++i) frames += frame;
  bombs.push_back({Compression::kLz4, "lz4 frames", std::move(frames)});
  bombs.push_back({Compression::kZstd, "one zstd frame", ZstdStreamFrame(zeros, kUnits)});
  bombs.push_back({Compression::kZstd, "zstd frame declaring its size", ZstdStreamFrame(zeros, kUnits, kUnits * kMiB)});
  std::string zstd_frame = ZstdStreamFrame(zeros, 1), zstd_frames;
  for (size_t i = 0; i < kUnits; ++i) zstd_frames += zstd_frame;
  bombs.push_back({Compression::kZstd, "zstd frames", std::move(zstd_frames)});

  for (const Bomb& bomb : bombs) {
    absl::Status status;
    auto growth = PeakRssGrowth([&] { status = Decompress(bomb.codec, bomb.bytes, kMiB).status(); });
    EXPECT_EQ(ErrcOf(status), Errc::kInvalidRecord) << bomb.name << ": " << status;
    EXPECT_NE(status.message().find("decompresses past 1048576 bytes"), absl::string_view::npos) << status;
    // The output (1 MiB + 1) and the codec's own buffers (an LZ4 block, a zstd window).
    if (growth) {
      EXPECT_LT(*growth, 24 * kMiB) << bomb.name;
    }
  }
}

TEST(Compression, MalformedInputIsCorruptNeverACrash) {
  std::string input = SampleData(10'000, 9);
  for (Compression codec : kCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    std::string good = Compressed(codec, input);
    for (size_t cut : {size_t{0}, size_t{1}, size_t{5}, good.size() / 2, good.size() - 1}) {
      auto truncated = Decompress(codec, absl::string_view(good).substr(0, cut), kMiB);
      EXPECT_EQ(ErrcOf(truncated.status()), Errc::kCorruptMessage) << cut << ": " << truncated.status();
      EXPECT_NE(truncated.status().message().find(CompressionName(codec)), absl::string_view::npos);
    }
    auto trailing = Decompress(codec, good + "xyz", kMiB);
    EXPECT_EQ(ErrcOf(trailing.status()), Errc::kCorruptMessage) << trailing.status();
    auto garbage = Decompress(codec, "this is not compressed data at all, in any framing", kMiB);
    EXPECT_EQ(ErrcOf(garbage.status()), Errc::kCorruptMessage) << garbage.status();
    EXPECT_EQ(ErrcOf(Decompress(codec, "", kMiB).status()), Errc::kCorruptMessage);
    // Every single-bit flip: decodes (codecs without checksums may) or is refused.
    for (size_t i = 0; i < good.size(); ++i) {
      std::string flipped = good;
      flipped[i] ^= static_cast<char>(1 << (i % 8));
      auto out = Decompress(codec, flipped, 64 * 1024);
      if (out.ok()) {
        EXPECT_LE(out->size(), 64u * 1024);
      } else {
        Errc errc = ErrcOf(out.status());
        EXPECT_TRUE(errc == Errc::kCorruptMessage || errc == Errc::kInvalidRecord) << i << ": " << out.status();
      }
    }
  }
  // An lz4 frame header that claims a huge content size but does not check out (wrong
  // header checksum) is corrupt, not a bomb: its size claim is not believed.
  std::string lz4_header("\x04\x22\x4d\x18\x48\x40", 6);
  lz4_header.append(std::string("\x00\x00\x00\x00\x01\x00\x00\x00", 8));  // 4 GiB, little-endian
  lz4_header.append("\x00garbage after the header", 26);
  auto lying = Decompress(Compression::kLz4, lz4_header, kMiB);
  EXPECT_EQ(ErrcOf(lying.status()), Errc::kCorruptMessage) << lying.status();
  // Checksums and magics that the codecs do check.
  std::string gzip = Compressed(Compression::kGzip, input);
  gzip[gzip.size() - 6] ^= 1;  // the CRC32 of the trailer
  EXPECT_EQ(ErrcOf(Decompress(Compression::kGzip, gzip, kMiB).status()), Errc::kCorruptMessage);
  for (Compression codec : {Compression::kLz4, Compression::kZstd}) {
    std::string bad_magic = Compressed(codec, input);
    bad_magic[0] ^= 1;
    EXPECT_EQ(ErrcOf(Decompress(codec, bad_magic, kMiB).status()), Errc::kCorruptMessage) << CompressionName(codec);
  }
  // A raw snappy block of 4 bytes that claims 1 MiB: refused before anything is allocated.
  auto claim = Decompress(Compression::kSnappy, absl::string_view("\x80\x80\x40x", 4), 64 * kMiB);
  EXPECT_EQ(ErrcOf(claim.status()), Errc::kCorruptMessage) << claim.status();
  EXPECT_NE(claim.status().message().find("more than snappy can encode"), absl::string_view::npos) << claim.status();
  EXPECT_EQ(ErrcOf(Decompress(static_cast<Compression>(5), "x", kMiB).status()), Errc::kInvalidRecord);
  EXPECT_EQ(ErrcOf(Compress(static_cast<Compression>(7), "x").status()), Errc::kInvalidArgument);
}

// ---- compressed batches ----

RecordBatchBuilder SampleBuilder(int records, Compression codec) {
  RecordBatchBuilder builder;
  builder.set_producer(77, 3, 1000).set_compression(codec);
  for (int i = 0; i < records; ++i) {
    std::string value = SampleData(50 + (i * 37) % 400, i);
    builder.Add(i % 5 == 0 ? std::nullopt : std::optional<absl::string_view>(absl::StrCat("key-", i)),
                i % 7 == 3 ? std::optional<absl::string_view>() : std::optional<absl::string_view>(value),
                1'700'000'000'000 + i * 3 - (i % 4),
                i % 3 == 0 ? std::vector<RecordHeader>{{"trace", "abc"}, {"null", std::nullopt}}
                           : std::vector<RecordHeader>{});
  }
  return builder;
}

// batch with its records section replaced (codec bits set to codec), the count and
// lastOffsetDelta set to count when given, and the CRC recomputed.
std::string WithSection(const std::string& batch, Compression codec, absl::string_view section,
                        std::optional<int32_t> count = std::nullopt) {
  std::string out = batch.substr(0, batch_layout::kHeaderSize);
  out.append(section.data(), section.size());
  RecordBatchHeader h = RecordBatchHeader::Parse(out.data());
  StoreBigEndian<int16_t>(out.data() + batch_layout::kAttributes,
                          static_cast<int16_t>((h.attributes & ~0x7) | static_cast<int16_t>(codec)));
  StoreBigEndian<int32_t>(out.data() + batch_layout::kBatchLength,
                          static_cast<int32_t>(out.size() - batch_layout::kLogOverhead));
  if (count) {
    StoreBigEndian<int32_t>(out.data() + batch_layout::kRecordsCount, *count);
    StoreBigEndian<int32_t>(out.data() + batch_layout::kLastOffsetDelta, *count - 1);
  }
  StoreBigEndian(out.data() + batch_layout::kCrc, ComputeBatchCrc(out));
  return out;
}

std::vector<Record> Decoded(absl::string_view batch) {
  auto records = DecodeRecords(batch);
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? *records : std::vector<Record>();
}

TEST(CompressedBatch, BuilderBatchesOfEveryCodecValidateAndDecode) {
  const std::vector<Record> expected = Decoded(SampleBuilder(2500, Compression::kNone).Build());
  ASSERT_EQ(expected.size(), 2500u);
  for (Compression codec : kAllCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    std::string batch = SampleBuilder(2500, codec).Build();
    RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
    EXPECT_EQ(h.compression(), codec);
    EXPECT_EQ(h.records_count, 2500);
    EXPECT_EQ(h.producer_id, 77);
    ASSERT_TRUE(ValidateProducedBatch(batch, 1 << 20).ok()) << ValidateProducedBatch(batch, 1 << 20);
    EXPECT_EQ(Decoded(batch), expected);
  }
  // One record, no key or value.
  RecordBatchBuilder tiny;
  tiny.set_compression(Compression::kZstd).Add(std::nullopt, std::nullopt, 5);
  std::string batch = tiny.Build();
  EXPECT_TRUE(ValidateProducedBatch(batch, 1 << 20).ok());
  EXPECT_EQ(Decoded(batch).size(), 1u);
}

TEST(CompressedBatch, SectionsInOtherClientsFramingsDecode) {
  std::string plain = SampleBuilder(300, Compression::kNone).Build();
  const std::vector<Record> expected = Decoded(plain);
  absl::string_view section = absl::string_view(plain).substr(batch_layout::kHeaderSize);
  std::string xerial = XerialHeader();
  AppendXerialBlock(&xerial, section.substr(0, section.size() / 3));
  AppendXerialBlock(&xerial, section.substr(section.size() / 3));
  std::vector<std::pair<Compression, std::string>> sections = {
      {Compression::kSnappy, xerial},
      {Compression::kSnappy, RawSnappy(section)},
      {Compression::kLz4, Lz4Frame(section, 1, Lz4JavaStylePrefs())},
      {Compression::kZstd, ZstdStreamFrame(section, 1)},
      {Compression::kGzip, GzipMember(section, 1, Z_DEFAULT_COMPRESSION)},
  };
  for (const auto& [codec, bytes] : sections) {
    std::string batch = WithSection(plain, codec, bytes);
    EXPECT_TRUE(ValidateProducedBatch(batch, 1 << 20).ok()) << ValidateProducedBatch(batch, 1 << 20);
    EXPECT_EQ(Decoded(batch), expected) << CompressionName(codec);
  }
}

TEST(CompressedBatch, ValidateProducedBatchChecksTheDecompressedRecords) {
  std::string plain = SampleBuilder(3, Compression::kNone).Build();
  std::string section = plain.substr(batch_layout::kHeaderSize);
  // Record 0: length varint, attributes, timestampDelta varint, then its offsetDelta.
  absl::string_view rest = section;
  ASSERT_TRUE(ReadVarint(&rest).has_value());
  rest.remove_prefix(1);
  ASSERT_EQ(ReadVarlong(&rest), 0);
  const size_t delta_at = section.size() - rest.size();
  std::string wrong_delta = section;
  ASSERT_EQ(wrong_delta[delta_at], 0);
  wrong_delta[delta_at] = 2;  // zig-zag 1
  auto expect = [&](const std::string& batch, Errc errc, absl::string_view words) {
    absl::Status s = ValidateProducedBatch(batch, 1 << 20);
    EXPECT_EQ(ErrcOf(s), errc) << words << ": " << s;
    EXPECT_NE(s.message().find(words), absl::string_view::npos) << words << ": " << s;
  };
  for (Compression codec : kCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    ASSERT_TRUE(ValidateProducedBatch(WithSection(plain, codec, Compressed(codec, section)), 1 << 20).ok());
    expect(WithSection(plain, codec, Compressed(codec, wrong_delta)), Errc::kInvalidRecord,
           "record 0 has offsetDelta 1, expected 0");
    expect(WithSection(plain, codec, Compressed(codec, section), 4), Errc::kCorruptMessage, "record 3");
    expect(WithSection(plain, codec, Compressed(codec, section), 2), Errc::kCorruptMessage,
           "bytes follow the last of 2 records");
    expect(WithSection(plain, codec, Compressed(codec, section + "xyz")), Errc::kCorruptMessage,
           "3 bytes follow the last of 3 records");
    expect(WithSection(plain, codec, "not compressed"), Errc::kCorruptMessage, CompressionName(codec));
    // Past MaxUncompressedBatchBytes(1 MiB) = 64 MiB. Snappy cannot get there: it
    // compresses at most ~21x, so 64 MiB takes a batch of 3 MiB.
    if (codec != Compression::kSnappy) {
      expect(WithSection(plain, codec, Compressed(codec, std::string(65 * kMiB, '\0'))), Errc::kInvalidRecord,
             "decompresses past 67108864 bytes");
    }
  }
  expect(WithSection(plain, static_cast<Compression>(6), section), Errc::kInvalidRecord, "unknown compression codec 6");
}

TEST(CompressedBatch, RecompressBetweenEveryPairOfCodecsKeepsRecordsAndHeader) {
  for (Compression from : kAllCodecs) {
    RecordBatchBuilder builder = SampleBuilder(200, from);
    builder.set_transactional(true).set_log_append_time(from == Compression::kLz4);
    std::string original = builder.Build();
    SetBaseOffset(original.data(), 4242);
    SetPartitionLeaderEpoch(original.data(), 9);
    const RecordBatchHeader before = RecordBatchHeader::Parse(original.data());
    const std::vector<Record> records = Decoded(original);
    for (Compression to : kAllCodecs) {
      SCOPED_TRACE(absl::StrCat(CompressionName(from), " -> ", CompressionName(to)));
      auto recompressed = RecompressBatch(original, to, 64 * kMiB);
      ASSERT_TRUE(recompressed.ok()) << recompressed.status();
      ASSERT_TRUE(ValidateProducedBatch(*recompressed, 1 << 20).ok()) << ValidateProducedBatch(*recompressed, 1 << 20);
      RecordBatchHeader after = RecordBatchHeader::Parse(recompressed->data());
      EXPECT_EQ(after.compression(), to);
      EXPECT_EQ(after.attributes & ~0x7, before.attributes & ~0x7);
      EXPECT_EQ(after.base_offset, 4242);
      EXPECT_EQ(after.partition_leader_epoch, 9);
      EXPECT_EQ(after.last_offset_delta, before.last_offset_delta);
      EXPECT_EQ(after.base_timestamp, before.base_timestamp);
      EXPECT_EQ(after.max_timestamp, before.max_timestamp);
      EXPECT_EQ(after.producer_id, before.producer_id);
      EXPECT_EQ(after.producer_epoch, before.producer_epoch);
      EXPECT_EQ(after.base_sequence, before.base_sequence);
      EXPECT_EQ(after.records_count, before.records_count);
      EXPECT_EQ(Decoded(*recompressed), records);
      if (from == to) {
        EXPECT_EQ(*recompressed, original);
      }
    }
  }
  std::string bad_crc = SampleBuilder(2, Compression::kGzip).Build();
  bad_crc.back() ^= 1;
  EXPECT_EQ(ErrcOf(RecompressBatch(bad_crc, Compression::kZstd, 64 * kMiB).status()), Errc::kCorruptMessage);
  std::string big = SampleBuilder(2000, Compression::kGzip).Build();
  EXPECT_EQ(ErrcOf(RecompressBatch(big, Compression::kZstd, 1000).status()), Errc::kInvalidRecord);
}

TEST(CompressedBatch, BuildBatchFromKeepsTheOriginalHeaderAroundASubset) {
  for (Compression codec : kAllCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    std::string original = SampleBuilder(8, codec).Build();
    SetBaseOffset(original.data(), 500);
    SetPartitionLeaderEpoch(original.data(), 4);
    const RecordBatchHeader h = RecordBatchHeader::Parse(original.data());
    const std::vector<Record> all = Decoded(original);
    ASSERT_EQ(all.size(), 8u);
    const std::vector<Record> kept = {all[1], all[4], all[6]};
    auto rebuilt = BuildBatchFrom(h, kept, codec);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
    ASSERT_TRUE(ValidateStoredBatch(*rebuilt, "rebuilt").ok()) << ValidateStoredBatch(*rebuilt, "rebuilt");
    RecordBatchHeader r = RecordBatchHeader::Parse(rebuilt->data());
    EXPECT_EQ(r.base_offset, 500);
    EXPECT_EQ(r.partition_leader_epoch, 4);
    EXPECT_EQ(r.last_offset_delta, 7);
    EXPECT_EQ(r.last_offset(), h.last_offset());
    EXPECT_EQ(r.base_sequence, 1000);
    EXPECT_EQ(r.last_sequence(), h.last_sequence());
    EXPECT_EQ(r.producer_id, 77);
    EXPECT_EQ(r.producer_epoch, 3);
    EXPECT_EQ(r.records_count, 3);
    EXPECT_EQ(r.compression(), codec);
    EXPECT_EQ(r.base_timestamp, h.base_timestamp);
    int64_t max_kept = 0;
    for (const Record& k : kept) max_kept = std::max(max_kept, h.base_timestamp + k.timestamp_delta);
    EXPECT_EQ(r.max_timestamp, max_kept);
    EXPECT_LT(r.max_timestamp, h.max_timestamp);  // record 7 held the max
    EXPECT_EQ(Decoded(*rebuilt), kept);

    // Nothing kept: a header-only batch that still carries the producer's range.
    auto empty = BuildBatchFrom(h, {}, codec);
    ASSERT_TRUE(empty.ok()) << empty.status();
    ASSERT_TRUE(ValidateStoredBatch(*empty, "empty").ok());
    RecordBatchHeader e = RecordBatchHeader::Parse(empty->data());
    EXPECT_EQ(empty->size(), batch_layout::kHeaderSize);
    EXPECT_EQ(e.records_count, 0);
    EXPECT_EQ(e.compression(), Compression::kNone);
    EXPECT_EQ(e.base_offset, 500);
    EXPECT_EQ(e.last_offset_delta, 7);
    EXPECT_EQ(e.base_sequence, 1000);
    EXPECT_EQ(e.max_timestamp, h.max_timestamp);
    EXPECT_TRUE(Decoded(*empty).empty());
  }
  // LogAppendTime keeps the batch's time; offset deltas must rise within the batch.
  std::string stamped = SampleBuilder(4, Compression::kLz4).set_log_append_time(true).Build();
  SetLogAppendTime(stamped.data(), stamped.size(), 1'800'000'000'000);
  RecordBatchHeader h = RecordBatchHeader::Parse(stamped.data());
  std::vector<Record> all = Decoded(stamped);
  ASSERT_EQ(all.size(), 4u);
  auto rebuilt = BuildBatchFrom(h, {all[0]}, Compression::kLz4);
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_EQ(RecordBatchHeader::Parse(rebuilt->data()).max_timestamp, 1'800'000'000'000);
  EXPECT_EQ(ErrcOf(BuildBatchFrom(h, {all[2], all[1]}, Compression::kNone).status()), Errc::kInvalidArgument);
  Record beyond = all[3];
  beyond.offset_delta = 4;
  EXPECT_EQ(ErrcOf(BuildBatchFrom(h, {beyond}, Compression::kNone).status()), Errc::kInvalidArgument);
}

TEST(CompressedBatch, SetLogAppendTimeRewritesOnlyTheHeader) {
  for (Compression codec : kAllCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    std::string batch = SampleBuilder(50, codec).Build();
    const std::vector<Record> records = Decoded(batch);
    const std::string section = batch.substr(batch_layout::kHeaderSize);
    SetLogAppendTime(batch.data(), batch.size(), 1'900'000'000'000);
    ASSERT_TRUE(ValidateStoredBatch(batch, "stamped").ok()) << ValidateStoredBatch(batch, "stamped");
    EXPECT_TRUE(ValidateProducedBatch(batch, 1 << 20).ok());
    RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
    EXPECT_TRUE(h.log_append_time());
    EXPECT_EQ(h.compression(), codec);
    EXPECT_EQ(h.max_timestamp, 1'900'000'000'000);
    EXPECT_EQ(batch.substr(batch_layout::kHeaderSize), section);
    EXPECT_EQ(Decoded(batch), records);
  }
}

TEST(CompressedBatch, TimestampLookupAnswersTheExactRecordOfACompressedBatch) {
  RecordBatchBuilder builder;
  builder.set_compression(Compression::kZstd).set_base_offset(50);
  for (int i = 0; i < 10; ++i) builder.Add("k", absl::StrCat("v", i), 1000 + i);
  const std::string batch = builder.Build();
  const RecordBatchHeader h = RecordBatchHeader::Parse(batch.data());
  int reads = 0;
  auto read = [&]() -> absl::StatusOr<std::string> {
    ++reads;
    return batch;
  };
  auto find = [&](int64_t target, int64_t start, size_t bound = kDefaultMaxUncompressedBatchBytes) {
    auto found = FindRecordByTimestamp(h, target, start, read, bound);
    EXPECT_TRUE(found.ok()) << found.status();
    return found.ok() ? *found : std::nullopt;
  };
  auto at = [](int64_t timestamp, int64_t offset) { return std::optional<TimestampOffset>({timestamp, offset}); };
  auto same = [](std::optional<TimestampOffset> a, std::optional<TimestampOffset> b) {
    return a.has_value() == b.has_value() && (!a || (a->timestamp == b->timestamp && a->offset == b->offset));
  };
  EXPECT_TRUE(same(find(1005, 0), at(1005, 55)));
  EXPECT_TRUE(same(find(1005, 57), at(1007, 57)));
  EXPECT_TRUE(same(find(0, 0), at(1000, 50)));
  EXPECT_EQ(reads, 3);
  EXPECT_TRUE(same(find(1010, 0), std::nullopt));  // maxTimestamp below the target
  EXPECT_TRUE(same(find(1000, 60), std::nullopt));  // batch below start_offset
  EXPECT_EQ(reads, 3);
  // Past the bound: the batch start, which skips no match.
  EXPECT_TRUE(same(find(1005, 0, 10), at(1009, 50)));
  // LogAppendTime: every record has the batch's time; no read.
  std::string stamped = batch;
  SetLogAppendTime(stamped.data(), stamped.size(), 5000);
  RecordBatchHeader s = RecordBatchHeader::Parse(stamped.data());
  auto found = FindRecordByTimestamp(s, 4000, 53, read);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_TRUE(same(*found, at(5000, 53)));
  EXPECT_EQ(reads, 4);
}

}  // namespace
}  // namespace strata::storage
