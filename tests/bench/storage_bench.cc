// storage_bench: throughput and recovery figures of storage::Log against raw POSIX I/O
// of the same bytes on the same disk, in one run. Not a ctest test: run it by hand.
//
//   append_nofsync_MBps    AppendAsLeader of 16 KiB batches of 1 KiB records vs write(2)
//   append_flush1MiB_MBps  the same with Log::Flush(log end) / fdatasync(2) every 1 MiB
//   read_MBps              Log::Read + FileSlice::ReadInto of 1 MiB vs pread(2) of 1 MiB
//   recovery_ms            Log::Open after an unclean shutdown with the recovery point at
//                          90% vs a pread(2) of the bytes that recovery had to scan
//
// MB is 10^6 bytes. Appends run raw and Strata alternately, twice each, and keep the
// best of each. The page cache cannot be dropped here, so reads and recovery run with
// the data cached (sync(2) is called between phases so that write-back of one phase
// does not land in the next). Figures on a shared VM disk vary from run to run.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/logging.h"
#include "storage/crc32c.h"
#include "storage/file_names.h"
#include "storage/log.h"
#include "storage/record_batch.h"

namespace {

using strata::storage::Log;
using strata::storage::LogOptions;
using strata::storage::RecordBatchHeader;
using SteadyClock = std::chrono::steady_clock;

constexpr uint64_t kMiB = 1 << 20;
constexpr int32_t kLeaderEpoch = 0;

struct Options {
  std::string dir = "/tmp";
  double gib = 1.0;
  int64_t mib = 0;           // overrides gib for the append and read phases
  int64_t recovery_mib = 1024;
  int32_t record_bytes = 1024;
  int32_t batch_bytes = 16 * 1024;
  int32_t pool_batches = 64;
};

[[noreturn]] void Die(absl::string_view what) {
  std::fprintf(stderr, "storage_bench: %.*s\n", static_cast<int>(what.size()), what.data());
  std::exit(1);
}

template <typename T>
T Check(absl::StatusOr<T> value, absl::string_view what) {
  if (!value.ok()) Die(absl::StrCat(what, ": ", value.status().message()));
  return std::move(value).value();
}
void Check(const absl::Status& status, absl::string_view what) {
  if (!status.ok()) Die(absl::StrCat(what, ": ", status.message()));
}

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }
double MBps(uint64_t bytes, SteadyClock::duration d) { return static_cast<double>(bytes) / 1e6 / Seconds(d); }

void PrintRatio(absl::string_view name, double strata, double raw, absl::string_view note = "") {
  std::printf("%-24s strata=%.1f raw=%.1f ratio=%.3f%s%s\n", std::string(name).c_str(), strata, raw, strata / raw,
              note.empty() ? "" : "  ", std::string(note).c_str());
  std::fflush(stdout);
}

// Distinct prebuilt batches, appended round-robin. AppendAsLeader rewrites only
// baseOffset and partitionLeaderEpoch in place (outside the CRC), so a batch can be
// appended again; the raw baselines write the very same buffers.
std::vector<std::string> BuildPool(const Options& o) {
  std::mt19937_64 rng(42);
  int32_t per_batch = std::max(1, o.batch_bytes / o.record_bytes);
  std::vector<std::string> pool;
  std::string value(o.record_bytes, '\0');
  for (int32_t b = 0; b < o.pool_batches; ++b) {
    strata::storage::RecordBatchBuilder builder;
    for (int32_t r = 0; r < per_batch; ++r) {
      for (size_t i = 0; i < value.size(); i += 8) {
        uint64_t x = rng();
        value.replace(i, std::min<size_t>(8, value.size() - i), reinterpret_cast<const char*>(&x),
                      std::min<size_t>(8, value.size() - i));
      }
      builder.Add(absl::StrCat("key-", b, "-", r), value, 1'700'000'000'000 + b);
    }
    pool.push_back(builder.Build());
  }
  return pool;
}

std::string Mkdir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) Die(absl::StrCat("mkdir ", path, ": ", strerror(errno)));
  return path;
}

void RemoveTree(const std::string& path) {
  Check(strata::storage::RemoveRecursively(*strata::storage::FileOps::Default(), path), "remove " + path);
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) Die(absl::StrCat("stat ", path, ": ", strerror(errno)));
  return static_cast<uint64_t>(st.st_size);
}

std::unique_ptr<Log> OpenLog(const std::string& dir, int64_t segment_bytes, int64_t recovery_point, bool clean) {
  LogOptions lo;
  lo.dir = dir;
  lo.config.segment_bytes = segment_bytes;
  lo.recovery_point = recovery_point;
  lo.had_clean_shutdown = clean;
  return Check(Log::Open(lo), "open " + dir);
}

struct AppendResult {
  uint64_t bytes = 0;
  SteadyClock::duration time{};
};

// Appends `batches` batches; with flush_every > 0, Flush(log end) each time that many
// bytes were appended since the last flush (and once at the end). on_batch sees the
// bytes appended so far after each batch.
template <typename OnBatch>
AppendResult AppendStrata(Log& log, std::vector<std::string>& pool, int64_t batches, uint64_t flush_every,
                          OnBatch on_batch) {
  AppendResult r;
  uint64_t since_flush = 0;
  auto start = SteadyClock::now();
  for (int64_t i = 0; i < batches; ++i) {
    std::string& batch = pool[static_cast<size_t>(i) % pool.size()];
    Check(log.AppendAsLeader(batch, kLeaderEpoch).status(), "append");
    r.bytes += batch.size();
    since_flush += batch.size();
    if (flush_every > 0 && since_flush >= flush_every) {
      Check(log.Flush(log.log_end_offset()), "flush");
      since_flush = 0;
    }
    on_batch(r.bytes);
  }
  if (flush_every > 0 && since_flush > 0) Check(log.Flush(log.log_end_offset()), "flush");
  r.time = SteadyClock::now() - start;
  return r;
}

AppendResult AppendRaw(const std::string& path, const std::vector<std::string>& pool, int64_t batches,
                       uint64_t sync_every) {
  AppendResult r;
  auto start = SteadyClock::now();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die(absl::StrCat("open ", path, ": ", strerror(errno)));
  uint64_t since_sync = 0;
  for (int64_t i = 0; i < batches; ++i) {
    const std::string& batch = pool[static_cast<size_t>(i) % pool.size()];
    size_t done = 0;
    while (done < batch.size()) {
      ssize_t w = ::write(fd, batch.data() + done, batch.size() - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        Die(absl::StrCat("write ", path, ": ", strerror(errno)));
      }
      done += static_cast<size_t>(w);
    }
    r.bytes += batch.size();
    since_sync += batch.size();
    if (sync_every > 0 && since_sync >= sync_every) {
      if (::fdatasync(fd) != 0) Die(absl::StrCat("fdatasync ", path, ": ", strerror(errno)));
      since_sync = 0;
    }
  }
  if (sync_every > 0 && since_sync > 0 && ::fdatasync(fd) != 0) Die(absl::StrCat("fdatasync: ", strerror(errno)));
  ::close(fd);
  r.time = SteadyClock::now() - start;
  return r;
}

// Reads the whole log in 1 MiB reads; returns the log bytes covered.
uint64_t ReadStrata(const Log& log) {
  uint64_t bytes = 0;
  int64_t offset = log.log_start_offset();
  int64_t end = log.log_end_offset();
  std::string data;
  while (offset < end) {
    auto info = Check(log.Read(offset, kMiB, end, /*min_one_batch=*/true), "read");
    if (absl::Status s = info.records.ReadInto(data); !s.ok()) Die(absl::StrCat("read slice: ", s.ToString()));
    absl::string_view rest = data;
    int64_t next = offset;
    while (rest.size() >= strata::storage::batch_layout::kHeaderSize) {
      RecordBatchHeader h = RecordBatchHeader::Parse(rest.data());
      if (h.size_in_bytes() > static_cast<int64_t>(rest.size())) break;  // cut off: read again
      rest.remove_prefix(h.size_in_bytes());
      bytes += h.size_in_bytes();
      next = h.next_offset();
    }
    if (next == offset) Die(absl::StrCat("no whole batch in a read at offset ", offset));
    offset = next;
  }
  return bytes;
}

// Reads files front to back in 1 MiB preads; with crc, also checksums what it read.
uint64_t ReadRaw(const std::vector<std::string>& paths, bool crc) {
  std::string buf(kMiB, '\0');
  uint64_t bytes = 0;
  uint32_t sum = 0;
  for (const std::string& path : paths) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Die(absl::StrCat("open ", path, ": ", strerror(errno)));
    off_t at = 0;
    while (true) {
      ssize_t n = ::pread(fd, buf.data(), buf.size(), at);
      if (n < 0) {
        if (errno == EINTR) continue;
        Die(absl::StrCat("pread ", path, ": ", strerror(errno)));
      }
      if (n == 0) break;
      if (crc) sum = strata::storage::Crc32cExtend(sum, buf.data(), static_cast<size_t>(n));
      at += n;
      bytes += static_cast<uint64_t>(n);
    }
    ::close(fd);
  }
  if (crc && sum == 0x12345678) std::printf(" ");  // keep the checksum alive
  return bytes;
}

template <typename Fn>
SteadyClock::duration BestOf(int runs, Fn fn) {
  SteadyClock::duration best = SteadyClock::duration::max();
  for (int i = 0; i < runs; ++i) {
    auto start = SteadyClock::now();
    fn();
    best = std::min(best, SteadyClock::now() - start);
  }
  return best;
}

// Runs raw and Strata appends alternately, `rounds` times each, and keeps the best of
// each (the first large write of a process is often slow while the kernel hands out
// page cache, whichever side it falls on). Leaves the last Strata log open in *log.
void CompareAppends(absl::string_view name, const std::string& root, std::vector<std::string>& pool,
                    int64_t batches, uint64_t flush_every, int rounds, std::unique_ptr<Log>* log) {
  std::string raw_path = root + "/raw.log";
  std::string log_dir = root + "/bench-0";
  double best_raw = 0, best_strata = 0;
  for (int round = 0; round < rounds; ++round) {
    if (*log) {
      log->reset();  // abandons; the files go next
      RemoveTree(log_dir);
    }
    ::sync();
    AppendResult raw = AppendRaw(raw_path, pool, batches, flush_every);
    ::unlink(raw_path.c_str());
    best_raw = std::max(best_raw, MBps(raw.bytes, raw.time));
    ::sync();
    *log = OpenLog(log_dir, 1LL << 30, 0, true);
    AppendResult strata = AppendStrata(**log, pool, batches, flush_every, [](uint64_t) {});
    best_strata = std::max(best_strata, MBps(strata.bytes, strata.time));
  }
  PrintRatio(name, best_strata, best_raw, absl::StrCat("(best of ", rounds, ")"));
}

void AppendAndReadPhases(const std::string& root, std::vector<std::string>& pool, int64_t batches) {
  std::string log_dir = root + "/bench-0";
  // Warm-up: a quarter of the volume written and dropped, timed by nobody.
  ::sync();
  AppendRaw(root + "/warmup.log", pool, batches / 4 + 1, 0);
  ::unlink((root + "/warmup.log").c_str());

  // a) append without fsync.
  std::unique_ptr<Log> log;
  CompareAppends("append_nofsync_MBps", root, pool, batches, 0, 2, &log);

  // b) sequential reads of the last of those logs, page-cache warm.
  ::sync();
  std::vector<std::string> files;
  for (int64_t base : log->segment_base_offsets()) {
    files.push_back(strata::storage::SegmentFileName(log_dir, base, strata::storage::kLogSuffix));
  }
  uint64_t strata_bytes = 0, raw_bytes = 0;
  auto strata_read = BestOf(3, [&] { strata_bytes = ReadStrata(*log); });
  auto raw_read = BestOf(3, [&] { raw_bytes = ReadRaw(files, false); });
  if (strata_bytes != raw_bytes) Die(absl::StrCat("read ", strata_bytes, " log bytes of ", raw_bytes));
  PrintRatio("read_MBps", MBps(strata_bytes, strata_read), MBps(raw_bytes, raw_read),
             "(1 MiB reads, page-cache warm, best of 3)");

  // a) again with a flush every 1 MiB.
  CompareAppends("append_flush1MiB_MBps", root, pool, batches, kMiB, 2, &log);
  log.reset();
  RemoveTree(log_dir);
}

void RecoveryPhase(const std::string& root, std::vector<std::string>& pool, int64_t batches) {
  std::string log_dir = root + "/recovery-0";
  const int64_t segment_bytes = 128 * static_cast<int64_t>(kMiB);
  auto log = OpenLog(log_dir, segment_bytes, 0, true);
  uint64_t total = batches * pool.front().size();
  int64_t flushed_offset = -1;
  AppendStrata(*log, pool, batches, 0, [&](uint64_t bytes) {
    if (flushed_offset < 0 && bytes * 10 >= total * 9) flushed_offset = log->log_end_offset();
  });
  int64_t end_offset = log->log_end_offset();
  Check(log->Flush(flushed_offset), "flush to 90%");
  int segments = log->segment_count();
  log.reset();  // no Close(): the files are abandoned as a crash would leave them
  ::sync();     // our own write-back is not recovery's work

  auto start = SteadyClock::now();
  log = OpenLog(log_dir, segment_bytes, flushed_offset, false);
  auto recovery = SteadyClock::now() - start;
  const auto& stats = log->load_stats();
  if (log->log_end_offset() != end_offset) {
    Die(absl::StrCat("recovery ended the log at ", log->log_end_offset(), ", expected ", end_offset));
  }
  std::vector<int64_t> bases = log->segment_base_offsets();
  std::vector<std::string> recovered_files;
  uint64_t recovered_bytes = 0;
  for (size_t i = bases.size() - std::min<size_t>(bases.size(), stats.segments_recovered); i < bases.size(); ++i) {
    recovered_files.push_back(strata::storage::SegmentFileName(log_dir, bases[i], strata::storage::kLogSuffix));
    recovered_bytes += FileSize(recovered_files.back());
  }
  auto raw = BestOf(1, [&] { ReadRaw(recovered_files, false); });
  auto raw_crc = BestOf(1, [&] { ReadRaw(recovered_files, true); });
  std::printf("%-24s strata=%.1f raw_read=%.1f ratio=%.2f raw_read_crc32c=%.1f  (log %.1f MB in %d segments, "
              "recovery point at offset %lld of %lld; segments_loaded=%d segments_recovered=%d bytes_recovered=%llu "
              "indexes_rebuilt=%d bytes_truncated=%lld producer_batches_replayed=%lld; page-cache warm)\n",
              "recovery_ms", Seconds(recovery) * 1e3, Seconds(raw) * 1e3, Seconds(recovery) / Seconds(raw),
              Seconds(raw_crc) * 1e3, static_cast<double>(total) / 1e6, segments,
              static_cast<long long>(flushed_offset), static_cast<long long>(end_offset), stats.segments_loaded,
              stats.segments_recovered, static_cast<unsigned long long>(recovered_bytes), stats.indexes_rebuilt,
              static_cast<long long>(stats.bytes_truncated), static_cast<long long>(stats.producer_batches_replayed));

  // For comparison: the open after a clean shutdown of the same log.
  Check(log->Close(), "close");
  log.reset();
  ::sync();
  start = SteadyClock::now();
  log = OpenLog(log_dir, segment_bytes, end_offset, true);
  auto clean = SteadyClock::now() - start;
  std::printf("%-24s strata=%.1f  (the same log after a clean shutdown: segments_recovered=%d)\n", "open_clean_ms",
              Seconds(clean) * 1e3, log->load_stats().segments_recovered);
  log.reset();
  RemoveTree(log_dir);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"storage_bench: storage::Log append, read and recovery figures against raw POSIX I/O"};
  app.add_option("--dir", o.dir, "Directory to work in (a fresh subdirectory is made and removed; default /tmp)");
  app.add_option("--gib", o.gib, "GiB to append and read (default 1)")->check(CLI::Range(0.001, 1024.0));
  app.add_option("--mib", o.mib, "MiB to append and read; overrides --gib")->check(CLI::Range(1, 1 << 20));
  app.add_option("--recovery-mib", o.recovery_mib, "MiB of log for the recovery figure (default 1024)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--record-bytes", o.record_bytes, "Value bytes per record (default 1024)")->check(CLI::Range(1, 1 << 19));
  app.add_option("--batch-bytes", o.batch_bytes, "Value bytes per batch (default 16384)")->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  uint64_t append_bytes = o.mib > 0 ? static_cast<uint64_t>(o.mib) * kMiB
                                    : static_cast<uint64_t>(o.gib * 1024.0 * static_cast<double>(kMiB));
  uint64_t recovery_bytes = static_cast<uint64_t>(o.recovery_mib) * kMiB;
  std::vector<std::string> pool = BuildPool(o);
  uint64_t batch_size = pool.front().size();
  int64_t append_batches = std::max<int64_t>(1, static_cast<int64_t>(append_bytes / batch_size));
  int64_t recovery_batches = std::max<int64_t>(1, static_cast<int64_t>(recovery_bytes / batch_size));

  std::string root = Mkdir(absl::StrCat(o.dir, "/strata-bench-", ::getpid()));
  std::printf("# storage_bench dir=%s append=%.1f MB (%lld batches of %llu bytes: %d records of %d bytes) "
              "recovery_log=%.1f MB; MB = 10^6 bytes\n",
              root.c_str(), static_cast<double>(append_batches * batch_size) / 1e6,
              static_cast<long long>(append_batches), static_cast<unsigned long long>(batch_size),
              std::max(1, o.batch_bytes / o.record_bytes), o.record_bytes,
              static_cast<double>(recovery_batches * batch_size) / 1e6);
  std::fflush(stdout);
  auto start = SteadyClock::now();
  AppendAndReadPhases(root, pool, append_batches);
  RecoveryPhase(root, pool, recovery_batches);
  RemoveTree(root);
  std::printf("# total %.1f s\n", Seconds(SteadyClock::now() - start));
  return 0;
}
