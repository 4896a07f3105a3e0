// Google Benchmark micro-benchmarks of the batch codec's hot paths: CRC32C over a
// batch-sized buffer (against memcpy of the same bytes as the machine's baseline),
// validation of a produced 16 KiB batch, and the record compression codecs on a 1 MiB
// records section of JSON-like records: storage::Decompress per codec against the codec
// library's own one-shot decode of the same bytes into a preallocated buffer (the
// baseline: what the bounded, growing output costs), Compress, and ValidateProducedBatch
// of the compressed batch. Figures are bytes of uncompressed records per second. Run by hand:
//   build/tests/bench/codec_bench
#include <benchmark/benchmark.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>

#include "storage/bytes.h"
#include "storage/compression.h"
#include "storage/crc32c.h"
#include "storage/record_batch.h"

namespace {

using strata::storage::Crc32c;

void BM_Crc32c(benchmark::State& state) {
  std::string data(state.range(0), 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31);
  for (auto _ : state) benchmark::DoNotOptimize(Crc32c(data.data(), data.size()));
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Crc32c)->Arg(64)->Arg(1024)->Arg(16 * 1024)->Arg(1 << 20);

void BM_MemcpyBaseline(benchmark::State& state) {
  std::string from(state.range(0), 'x'), to(state.range(0), 'y');
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_MemcpyBaseline)->Arg(16 * 1024)->Arg(1 << 20);

void BM_ValidateProducedBatch(benchmark::State& state) {
  strata::storage::RecordBatchBuilder builder;
  std::string value(1024, 'v');
  for (int i = 0; i < 16; ++i) builder.Add("key", value, 1000 + i);
  std::string batch = builder.Build();
  for (auto _ : state) {
    auto s = strata::storage::ValidateProducedBatch(batch, 1 << 20);
    if (!s.ok()) state.SkipWithError("invalid");
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * batch.size());
}
BENCHMARK(BM_ValidateProducedBatch);

using strata::storage::Compression;
namespace layout = strata::storage::batch_layout;

// A batch of JSON-like order events whose records section is about 1 MiB; such data
// compresses 3-5x with these codecs.
const std::string& RecordsBatch() {
  static const std::string batch = [] {
    std::mt19937 rng(42);
    const char* statuses[] = {"created", "paid", "shipped", "delivered", "returned"};
    const char* regions[] = {"eu-west-1", "us-east-1", "ap-south-1", "sa-east-1"};
    strata::storage::RecordBatchBuilder builder;
    size_t bytes = 0;
    for (int i = 0; bytes < (1 << 20); ++i) {
      std::string value = "{\"order_id\":" + std::to_string(10'000'000 + rng() % 90'000'000) +
                          ",\"customer\":\"cust-" + std::to_string(rng() % 100'000) + "\",\"sku\":\"SKU-" +
                          std::to_string(rng() % 5'000) + "\",\"qty\":" + std::to_string(1 + rng() % 9) +
                          ",\"price\":" + std::to_string(rng() % 100'000 / 100.0) +
                          ",\"status\":\"" + statuses[rng() % 5] + "\",\"region\":\"" + regions[rng() % 4] +
                          "\",\"ts\":" + std::to_string(1'700'000'000'000 + i * 7) + "}";
      std::string key = "cust-" + std::to_string(rng() % 100'000);
      bytes += value.size() + key.size() + 10;
      builder.Add(key, value, 1'700'000'000'000 + i * 7);
    }
    return builder.Build();
  }();
  return batch;
}

std::string Section() { return RecordsBatch().substr(layout::kHeaderSize); }

std::string CompressedSection(Compression codec) {
  auto compressed = strata::storage::Compress(codec, Section());
  if (!compressed.ok()) std::abort();
  return *compressed;
}

void Report(benchmark::State& state, size_t uncompressed, size_t compressed) {
  state.SetBytesProcessed(int64_t(state.iterations()) * uncompressed);
  state.counters["ratio"] = double(uncompressed) / compressed;
}

void BM_Decompress(benchmark::State& state, Compression codec) {
  const std::string section = Section(), compressed = CompressedSection(codec);
  for (auto _ : state) {
    auto out = strata::storage::Decompress(codec, compressed, strata::storage::kDefaultMaxUncompressedBatchBytes);
    if (!out.ok() || out->size() != section.size()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out);
  }
  Report(state, section.size(), compressed.size());
}
BENCHMARK_CAPTURE(BM_Decompress, gzip, Compression::kGzip);
BENCHMARK_CAPTURE(BM_Decompress, snappy, Compression::kSnappy);
BENCHMARK_CAPTURE(BM_Decompress, lz4, Compression::kLz4);
BENCHMARK_CAPTURE(BM_Decompress, zstd, Compression::kZstd);

// The library's own decode of the same bytes, into a buffer of the known size.
void BM_RawDecode(benchmark::State& state, Compression codec) {
  const std::string section = Section(), compressed = CompressedSection(codec);
  std::string out(section.size(), '\0');
  LZ4F_dctx* lz4 = nullptr;
  LZ4F_createDecompressionContext(&lz4, LZ4F_VERSION);
  ZSTD_DCtx* zstd = ZSTD_createDCtx();
  for (auto _ : state) {
    size_t produced = 0;
    switch (codec) {
      case Compression::kGzip: {
        z_stream z{};
        inflateInit2(&z, 15 + 16);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
        z.avail_in = static_cast<uInt>(compressed.size());
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        if (inflate(&z, Z_FINISH) == Z_STREAM_END) produced = z.total_out;
        inflateEnd(&z);
        break;
      }
      case Compression::kSnappy: {  // the xerial blocks, each with snappy's raw decoder
        const char* p = compressed.data() + 16;
        const char* end = compressed.data() + compressed.size();
        while (p < end) {
          int32_t n = strata::storage::LoadBigEndian<int32_t>(p);
          size_t length = 0;
          snappy::GetUncompressedLength(p + 4, n, &length);
          if (!snappy::RawUncompress(p + 4, n, out.data() + produced)) break;
          produced += length;
          p += 4 + n;
        }
        break;
      }
      case Compression::kLz4: {
        size_t dst = out.size(), src = compressed.size();
        if (LZ4F_decompress(lz4, out.data(), &dst, compressed.data(), &src, nullptr) == 0) produced = dst;
        break;
      }
      case Compression::kZstd:
        produced = ZSTD_decompressDCtx(zstd, out.data(), out.size(), compressed.data(), compressed.size());
        break;
      case Compression::kNone: break;
    }
    if (produced != section.size()) state.SkipWithError("decode failed");
    benchmark::ClobberMemory();
  }
  LZ4F_freeDecompressionContext(lz4);
  ZSTD_freeDCtx(zstd);
  Report(state, section.size(), compressed.size());
}
BENCHMARK_CAPTURE(BM_RawDecode, gzip, Compression::kGzip);
BENCHMARK_CAPTURE(BM_RawDecode, snappy, Compression::kSnappy);
BENCHMARK_CAPTURE(BM_RawDecode, lz4, Compression::kLz4);
BENCHMARK_CAPTURE(BM_RawDecode, zstd, Compression::kZstd);

void BM_Compress(benchmark::State& state, Compression codec) {
  const std::string section = Section();
  size_t compressed = 0;
  for (auto _ : state) {
    auto out = strata::storage::Compress(codec, section);
    compressed = out.ok() ? out->size() : 1;
    benchmark::DoNotOptimize(out);
  }
  Report(state, section.size(), compressed);
}
BENCHMARK_CAPTURE(BM_Compress, gzip, Compression::kGzip);
BENCHMARK_CAPTURE(BM_Compress, snappy, Compression::kSnappy);
BENCHMARK_CAPTURE(BM_Compress, lz4, Compression::kLz4);
BENCHMARK_CAPTURE(BM_Compress, zstd, Compression::kZstd);

// The produce path's check of a compressed 1 MiB batch: CRC, decompression, record framing.
void BM_ValidateCompressedBatch(benchmark::State& state, Compression codec) {
  auto batch =
      strata::storage::RecompressBatch(RecordsBatch(), codec, strata::storage::kDefaultMaxUncompressedBatchBytes);
  if (!batch.ok()) std::abort();
  for (auto _ : state) {
    auto s = strata::storage::ValidateProducedBatch(*batch, 4 << 20);
    if (!s.ok()) state.SkipWithError("invalid");
    benchmark::DoNotOptimize(s);
  }
  Report(state, RecordsBatch().size(), batch->size());
}
BENCHMARK_CAPTURE(BM_ValidateCompressedBatch, none, Compression::kNone);
BENCHMARK_CAPTURE(BM_ValidateCompressedBatch, gzip, Compression::kGzip);
BENCHMARK_CAPTURE(BM_ValidateCompressedBatch, snappy, Compression::kSnappy);
BENCHMARK_CAPTURE(BM_ValidateCompressedBatch, lz4, Compression::kLz4);
BENCHMARK_CAPTURE(BM_ValidateCompressedBatch, zstd, Compression::kZstd);

}  // namespace

BENCHMARK_MAIN();
