// Google Benchmark micro-benchmarks of the batch codec's hot paths: CRC32C over a
// batch-sized buffer (against memcpy of the same bytes as the machine's baseline),
// and validation of a produced 16 KiB batch. Run by hand:
//   build/tests/bench/codec_bench
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

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

}  // namespace

BENCHMARK_MAIN();
