// compaction_bench: the log cleaner's figures against raw I/O of the same bytes on the
// same disk, in one run (issue 16). Not a ctest test: run it by hand after a Release
// build:
//   build/tests/bench/compaction_bench [--dir /tmp] [--mib 256] [--startup-mib 1024]
//
//   cleaner_MBps        CleanLog of a log of --mib MiB (1 KiB records, keys drawn from
//                       --keys, so most records are superseded) vs reading the same
//                       segment files and writing a copy (1 MiB chunks, fdatasync): MB
//                       of log cleaned per second
//   startup_ms          Log::Open of a compacted log of --startup-mib MiB (mostly
//                       distinct keys, idempotent producers) left with a pending .swap
//                       by a cleaning stopped mid-swap (a failed rename, as a kill -9
//                       there leaves it) vs a clean open of the same log; with the
//                       producer-state rebuilds and batches replayed each open took
//
// MB is 10^6 bytes. The page cache cannot be dropped here: every phase runs with its data
// cached (sync(2) between phases). Figures on a shared VM disk vary from run to run.

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "storage/cleaner.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "storage/record_batch.h"

namespace {

using namespace strata::storage;
using SteadyClock = std::chrono::steady_clock;

struct Options {
  std::string dir = "/tmp";
  int64_t mib = 256;
  int64_t startup_mib = 1024;
  int64_t keys = 20000;
  int32_t record_bytes = 1024;
  int32_t records_per_batch = 16;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "compaction_bench: %s\n", what.c_str());
  std::exit(1);
}
template <typename T>
T Check(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) Die(absl::StrCat(what, ": ", value.status().message()));
  return std::move(value).value();
}
void Check(const absl::Status& status, const std::string& what) {
  if (!status.ok()) Die(absl::StrCat(what, ": ", status.message()));
}

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

// One figure against its baseline in the same run: "<name> <a>=<x> <b>=<y> ratio=<x/y>".
void PrintRatio(const char* name, const char* a, double x, const char* b, double y, const std::string& note = "") {
  std::printf("%-18s %s=%.1f %s=%.1f ratio=%.3f%s%s\n", name, a, x, b, y, x / y, note.empty() ? "" : "  ",
              note.c_str());
  std::fflush(stdout);
}

LogOptions BenchLogOptions(const std::string& dir, FileOps* ops, bool clean, int64_t recovery_point) {
  LogOptions lo;
  lo.ops = ops;
  lo.dir = dir;
  lo.config.segment_bytes = 64 << 20;
  lo.config.cleanup_compact = true;
  lo.config.cleanup_delete = false;
  lo.had_clean_shutdown = clean;
  lo.recovery_point = recovery_point;
  return lo;
}

// Appends until the log holds `mib` MiB of keyed records; with a non-empty `sequence`,
// each batch comes from one of that many idempotent producers, whose next sequences it
// holds across calls.
void Fill(Log& log, const Options& o, int64_t mib, int64_t keys, std::vector<int32_t>& sequence,
          std::mt19937_64& rng) {
  std::string value(o.record_bytes, 'v');
  const int producers = static_cast<int>(sequence.size());
  const int64_t target = mib << 20;
  int64_t batches = 0;
  while (log.size_in_bytes() < target) {
    RecordBatchBuilder builder;
    int p = producers > 0 ? static_cast<int>(batches % producers) : -1;
    if (p >= 0) builder.set_producer(1000 + p, 0, sequence[p]);
    for (int r = 0; r < o.records_per_batch; ++r) {
      for (size_t i = 0; i < value.size(); i += 64) value[i] = static_cast<char>('a' + rng() % 26);
      builder.Add(absl::StrCat("key-", rng() % keys), value, 1'700'000'000'000 + batches);
    }
    std::string batch = builder.Build();
    Check(log.AppendAsLeader(batch, 0).status(), "append");
    if (p >= 0) sequence[p] += o.records_per_batch;
    ++batches;
  }
  Check(log.Roll(), "roll");
  log.UpdateHighWatermark(log.log_end_offset());
  Check(log.FlushAll(), "flush");
  Check(SyncProducerSnapshot(*FileOps::Default(), log.dir(), log.log_end_offset()), "snapshot sync");
}

// Reads every .log file of dir and writes a copy of it, 1 MiB at a time, then fdatasync:
// what the cleaner must at least do with the same bytes.
SteadyClock::duration RawReadWrite(const std::string& dir, const std::vector<std::string>& logs, uint64_t* bytes) {
  std::vector<char> buffer(1 << 20);
  auto start = SteadyClock::now();
  for (const std::string& path : logs) {
    int in = ::open(path.c_str(), O_RDONLY);
    std::string copy = JoinPath(dir, "raw-copy.tmp");
    int out = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) Die(absl::StrCat("open ", path, ": ", std::strerror(errno)));
    while (true) {
      ssize_t n = ::read(in, buffer.data(), buffer.size());
      if (n < 0) Die(absl::StrCat("read ", path, ": ", std::strerror(errno)));
      if (n == 0) break;
      if (::write(out, buffer.data(), static_cast<size_t>(n)) != n) Die("write");
      *bytes += static_cast<uint64_t>(n);
    }
    ::fdatasync(out);
    ::close(in);
    ::close(out);
    ::unlink(copy.c_str());
  }
  return SteadyClock::now() - start;
}

void CleanerThroughput(const Options& o, const std::string& root) {
  std::string dir = JoinPath(root, "clean-0");
  std::mt19937_64 rng(1);
  auto log = Check(Log::Open(BenchLogOptions(dir, FileOps::Default(), false, 0)), "open");
  std::vector<int32_t> no_producers;
  Fill(*log, o, o.mib, o.keys, no_producers, rng);
  std::vector<std::string> logs;
  for (int64_t base : log->segment_base_offsets()) logs.push_back(SegmentFileName(dir, base, kLogSuffix));
  const int64_t size = log->size_in_bytes();
  ::sync();
  uint64_t raw_bytes = 0;
  SteadyClock::duration raw = RawReadWrite(root, logs, &raw_bytes);
  ::sync();
  CleanParams params;
  params.now_ms = 1'800'000'000'000;
  params.offset_map_bytes = 128 << 20;
  auto start = SteadyClock::now();
  CleanResult result = Check(CleanLog(*log, std::nullopt, params), "clean");
  SteadyClock::duration took = SteadyClock::now() - start;
  PrintRatio("cleaner_MBps", "strata", static_cast<double>(size) / 1e6 / Seconds(took), "raw",
             static_cast<double>(raw_bytes) / 1e6 / Seconds(raw),
             absl::StrCat(size >> 20, " MiB log -> ", log->size_in_bytes() >> 20, " MiB, ", result.records_removed,
                          " records removed; raw = read + write + fdatasync of the same bytes"));
  Check(log->Close(), "close");
}

void StartupWithPendingSwap(const Options& o, const std::string& root) {
  std::string dir = JoinPath(root, "startup-0");
  std::mt19937_64 rng(2);
  FaultInjectingFileOps ops;
  int64_t log_end = 0;
  {
    auto log = Check(Log::Open(BenchLogOptions(dir, &ops, false, 0)), "open");
    // Mostly distinct keys: the log stays about this large once compacted.
    const int64_t records = (o.startup_mib << 20) / o.record_bytes;
    std::vector<int32_t> sequences(8, 0);
    Fill(*log, o, o.startup_mib, records * 4, sequences, rng);
    CleanParams params;
    params.now_ms = 1'800'000'000'000;
    params.offset_map_bytes = 512 << 20;
    CleanResult first = Check(CleanLog(*log, std::nullopt, params), "first cleaning");
    // More data, and a cleaning that stops after the cleaned files became .swap and one
    // old segment became .deleted (a kill -9 there leaves the same files).
    Fill(*log, o, (log->size_in_bytes() >> 20) + 64, records * 4, sequences, rng);
    ops.AddRule({.path_substring = "", .op = FaultOp::kRename, .remaining = 1, .skip = 4});
    auto second = CleanLog(*log, first.next_dirty_offset, params);
    if (second.ok()) Die("the cleaning was meant to stop mid-swap");
    log_end = log->log_end_offset();
  }  // destroyed without Close: no clean-shutdown state is written
  int swaps = 0;
  auto names = Check(FileOps::Default()->ListDir(dir), "list");
  for (const std::string& n : names) swaps += n.size() > 9 && n.substr(n.size() - 9) == ".log.swap";
  if (swaps == 0) Die("no .log.swap was left");
  ::sync();
  auto start = SteadyClock::now();
  auto log = Check(Log::Open(BenchLogOptions(dir, FileOps::Default(), false, log_end)), "open with a pending swap");
  SteadyClock::duration with_swap = SteadyClock::now() - start;
  LoadStats swap_stats = log->load_stats();
  int64_t size = log->size_in_bytes();
  Check(log->Close(), "close");
  log.reset();
  ::sync();
  start = SteadyClock::now();
  log = Check(Log::Open(BenchLogOptions(dir, FileOps::Default(), true, log_end)), "clean open");
  SteadyClock::duration clean = SteadyClock::now() - start;
  LoadStats clean_stats = log->load_stats();
  PrintRatio("startup_ms", "pending_swap", Seconds(with_swap) * 1e3, "clean_open", Seconds(clean) * 1e3,
             absl::StrCat(size >> 20, " MiB compacted log; pending swap: ", swap_stats.swaps_completed,
                          " swaps completed, producer-state rebuilds ", swap_stats.producer_state_rebuilds,
                          ", batches replayed ", swap_stats.producer_batches_replayed,
                          "; clean open: rebuilds ", clean_stats.producer_state_rebuilds, ", batches replayed ",
                          clean_stats.producer_batches_replayed));
  Check(log->Close(), "close");
  log.reset();
  // For scale, what seed 004's bug cost: producer state replayed from the log start (the
  // snapshots removed, so the loader has to).
  for (const std::string& n : Check(FileOps::Default()->ListDir(dir), "list")) {
    if (n.size() > 9 && n.substr(n.size() - 9) == ".snapshot") Check(FileOps::Default()->Remove(JoinPath(dir, n)), "rm");
  }
  ::sync();
  start = SteadyClock::now();
  log = Check(Log::Open(BenchLogOptions(dir, FileOps::Default(), true, log_end)), "open without snapshots");
  SteadyClock::duration rebuild = SteadyClock::now() - start;
  PrintRatio("rebuild_ms", "from_log_start", Seconds(rebuild) * 1e3, "clean_open", Seconds(clean) * 1e3,
             absl::StrCat("no snapshot: producer-state rebuilds ", log->load_stats().producer_state_rebuilds,
                          ", batches replayed ", log->load_stats().producer_batches_replayed,
                          " (what a swap recovery that rebuilt producer state would cost)"));
  Check(log->Close(), "close");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"compaction_bench: log cleaner throughput and startup with a pending swap vs raw I/O"};
  app.add_option("--dir", o.dir, "where the logs are written (removed at the end)");
  app.add_option("--mib", o.mib, "size of the log the cleaner cleans");
  app.add_option("--startup-mib", o.startup_mib, "size of the compacted log opened with a pending swap");
  app.add_option("--keys", o.keys, "distinct keys of the cleaned log");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  std::string root = JoinPath(o.dir, absl::StrCat("compaction-bench-", ::getpid()));
  Check(CreateDirRecursively(*FileOps::Default(), root), "mkdir");
  CleanerThroughput(o, root);
  StartupWithPendingSwap(o, root);
  Check(RemoveRecursively(*FileOps::Default(), root), "cleanup");
  return 0;
}
