// txn_fetch_bench: the cost of READ_COMMITTED on the broker's fetch path, against
// READ_UNCOMMITTED of the same log in the same run. A log is filled with transactions of
// 1 KiB records from 16 producers (a share of them aborted, their markers and
// aborted-index entries as the coordinator leaves them), then read from start to end in
// fetches of max_bytes, as Partition::ReadRecords does:
//   uncommitted   Log::Read up to the high watermark + the bytes read (FileSlice::ReadAll)
//   committed     Log::Read up to the last stable offset + the bytes + CollectAbortedTxns
//                 over the records read (FetchDataInfo::upper_bound_offset, as the broker)
// and prints, per share of aborted transactions, fetches/s of each, the aborted
// transactions returned per fetch and the lookup's cost per fetch (µs). Best of 3 runs
// each; the data is in the page cache. Not a ctest test: run it by hand.
//
//   txn_fetch_bench [--dir /tmp] [--transactions 20000] [--records 10] [--fetch-bytes 1048576]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "storage/control_record.h"
#include "storage/log.h"
#include "storage/record_batch.h"

namespace {

using strata::storage::AppendOrigin;
using strata::storage::Log;
using strata::storage::LogOptions;
using SteadyClock = std::chrono::steady_clock;

constexpr int kProducers = 16;

[[noreturn]] void Die(absl::string_view what) {
  std::fprintf(stderr, "txn_fetch_bench: %.*s\n", static_cast<int>(what.size()), what.data());
  std::exit(1);
}

template <typename T>
T Check(absl::StatusOr<T> value, absl::string_view what) {
  if (!value.ok()) Die(absl::StrCat(what, ": ", value.status().ToString()));
  return *std::move(value);
}

struct Options {
  std::string dir = "/tmp";
  int64_t transactions = 20000;
  int records = 10;
  uint64_t fetch_bytes = 1 << 20;
};

// A log of `transactions` transactions, every `abort_every`-th aborted (0: none).
std::unique_ptr<Log> BuildLog(const Options& o, const std::string& dir, int abort_every) {
  LogOptions lo;
  lo.dir = dir;
  auto log = Check(Log::Open(lo), "open");
  std::vector<int32_t> sequence(kProducers, 0);
  const std::string value(1024, 'v');
  for (int64_t t = 0; t < o.transactions; ++t) {
    const int p = static_cast<int>(t % kProducers);
    strata::storage::RecordBatchBuilder builder;
    builder.set_producer(1000 + p, 0, sequence[p]).set_transactional(true);
    for (int r = 0; r < o.records; ++r) builder.Add(absl::StrCat("k", r), value, 1700000000000 + t);
    sequence[p] += o.records;
    std::string batch = builder.Build();
    Check(log->AppendAsLeader(batch, 0), "append");
    const bool abort = abort_every > 0 && t % abort_every == 0;
    std::string marker = strata::storage::BuildEndTxnMarkerBatch(
        1000 + p, 0,
        strata::storage::EndTxnMarker{abort ? strata::storage::ControlRecordType::kAbort
                                            : strata::storage::ControlRecordType::kCommit,
                                      0},
        1700000000000 + t);
    Check(log->AppendAsLeader(marker, 0, AppendOrigin::kCoordinator), "marker");
  }
  log->UpdateHighWatermark(log->log_end_offset());
  return log;
}

struct Pass {
  SteadyClock::duration elapsed{};
  SteadyClock::duration lookup{};
  int64_t fetches = 0;
  int64_t aborted_returned = 0;
  uint64_t bytes = 0;
};

// Reads the log from its start to bound in fetches, as a consumer would.
Pass ReadThrough(const Log& log, uint64_t fetch_bytes, bool committed) {
  Pass pass;
  const int64_t bound = committed ? log.last_stable_offset() : log.high_watermark();
  int64_t offset = log.log_start_offset();
  const auto start = SteadyClock::now();
  while (offset < bound) {
    auto info = Check(log.Read(offset, fetch_bytes, bound, true), "read");
    std::string bytes = Check(info.records.ReadAll(), "read bytes");
    if (bytes.empty()) Die("an empty read below the bound");
    if (committed) {
      const auto before = SteadyClock::now();
      auto aborted = Check(log.CollectAbortedTxns(offset, std::min(bound, info.upper_bound_offset)), "aborted");
      pass.lookup += SteadyClock::now() - before;
      pass.aborted_returned += static_cast<int64_t>(aborted.size());
    }
    pass.bytes += bytes.size();
    ++pass.fetches;
    // The next fetch starts after the last whole batch.
    strata::storage::BatchSplitter splitter(bytes);
    while (true) {
      auto batch = splitter.Next();
      if (!batch.ok() || !*batch) break;
      offset = strata::storage::RecordBatchHeader::Parse((*batch)->data()).next_offset();
    }
  }
  pass.elapsed = SteadyClock::now() - start;
  return pass;
}

Pass BestOf(const Log& log, uint64_t fetch_bytes, bool committed) {
  Pass best;
  for (int run = 0; run < 3; ++run) {
    Pass p = ReadThrough(log, fetch_bytes, committed);
    if (run == 0 || p.elapsed < best.elapsed) best = p;
  }
  return best;
}

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"READ_COMMITTED against READ_UNCOMMITTED on the fetch path"};
  app.add_option("--dir", o.dir, "where the logs go (removed after)");
  app.add_option("--transactions", o.transactions, "transactions per log");
  app.add_option("--records", o.records, "1 KiB records per transaction");
  app.add_option("--fetch-bytes", o.fetch_bytes, "max bytes per fetch");
  CLI11_PARSE(app, argc, argv);
  const std::string root = absl::StrCat(o.dir, "/txn-fetch-bench-", getpid());
  for (int abort_every : {0, 10, 2, 1}) {
    const std::string dir = absl::StrCat(root, "/abort-every-", abort_every, "/txn-fetch-bench-0");
    std::filesystem::create_directories(dir);
    std::unique_ptr<Log> log = BuildLog(o, dir, abort_every);
    const Pass uncommitted = BestOf(*log, o.fetch_bytes, false);
    const Pass committed = BestOf(*log, o.fetch_bytes, true);
    const double aborted_share = abort_every == 0 ? 0.0 : 1.0 / abort_every;
    std::printf(
        "RESULT txn_fetch {\"aborted_share\":%.2f,\"fetch_bytes\":%llu,\"fetches\":%lld,"
        "\"uncommitted_fetches_per_s\":%.0f,\"committed_fetches_per_s\":%.0f,\"committed_vs_uncommitted\":%.3f,"
        "\"aborted_per_fetch\":%.1f,\"lookup_us_per_fetch\":%.2f}\n",
        aborted_share, static_cast<unsigned long long>(o.fetch_bytes), static_cast<long long>(committed.fetches),
        static_cast<double>(uncommitted.fetches) / Seconds(uncommitted.elapsed),
        static_cast<double>(committed.fetches) / Seconds(committed.elapsed),
        Seconds(uncommitted.elapsed) / Seconds(committed.elapsed) * static_cast<double>(committed.fetches) /
            static_cast<double>(uncommitted.fetches),
        static_cast<double>(committed.aborted_returned) / static_cast<double>(committed.fetches),
        Seconds(committed.lookup) * 1e6 / static_cast<double>(committed.fetches));
    (void)log->Close();
    log.reset();
  }
  std::filesystem::remove_all(root);
  return 0;
}
