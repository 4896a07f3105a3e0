// strata-storage smoke: the storage engine's end-to-end job. Through a LogManager it
// appends records to smoke-0, flushes, reads everything back and checks every record,
// shuts down cleanly, reopens (which must load without recovery) and reads back again.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "storage/clock.h"
#include "storage/errc.h"
#include "storage/log_manager.h"
#include "storage/record_batch.h"
#include "storage/scheduler.h"
#include "tools/storage/storage_tool.h"

namespace strata::tools {
namespace {

using storage::Log;
using storage::RecordBatchHeader;
using SteadyClock = std::chrono::steady_clock;

constexpr int32_t kLeaderEpoch = 0;
constexpr absl::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz";

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }
double MB(uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

absl::Status Mismatch(absl::string_view what) { return storage::MakeError(storage::Errc::kInconsistentLog, what); }

// The content of every record is a function of its offset, so a read can check it.
class RecordContent {
 public:
  RecordContent(size_t value_bytes, int32_t records_per_batch, int64_t base_timestamp)
      : value_bytes_(value_bytes), records_per_batch_(records_per_batch), base_timestamp_(base_timestamp) {
    while (pattern_.size() < value_bytes + kAlphabet.size()) pattern_.append(kAlphabet.data(), kAlphabet.size());
  }

  std::string Key(int64_t offset) const { return absl::StrCat("key-", offset); }
  int64_t Timestamp(int64_t offset) const { return base_timestamp_ + offset / records_per_batch_; }
  std::string Value(int64_t offset) const {
    std::string value = absl::StrFormat("%020d|", offset);
    if (value.size() >= value_bytes_) {
      value.resize(value_bytes_);
      return value;
    }
    size_t skew = static_cast<size_t>(offset % static_cast<int64_t>(kAlphabet.size()));
    value.append(pattern_, skew, value_bytes_ - value.size());
    return value;
  }

 private:
  const size_t value_bytes_;
  const int32_t records_per_batch_;
  const int64_t base_timestamp_;
  std::string pattern_;
};

struct ReadFigures {
  int64_t records = 0;
  uint64_t bytes = 0;
  SteadyClock::duration read_time{};   // Log::Read + FileSlice::ReadAll
  SteadyClock::duration total_time{};  // including decoding and checking
};

// Reads [log start, log end) back in 1 MiB reads and checks every record.
absl::StatusOr<ReadFigures> ReadBack(const Log& log, const RecordContent& content, int64_t expected_records) {
  ReadFigures figures;
  auto start = SteadyClock::now();
  int64_t end = log.log_end_offset();
  if (log.log_start_offset() != 0 || end != expected_records) {
    return Mismatch(absl::StrCat("log holds offsets [", log.log_start_offset(), ", ", end, "), expected [0, ",
                                 expected_records, ")"));
  }
  int64_t offset = 0;
  while (offset < end) {
    auto t0 = SteadyClock::now();
    STRATA_ASSIGN_OR_RETURN(storage::FetchDataInfo info, log.Read(offset, 1 << 20, end, /*min_one_batch=*/true));
    STRATA_ASSIGN_OR_RETURN(std::string bytes, info.records.ReadAll());
    figures.read_time += SteadyClock::now() - t0;
    absl::string_view rest = bytes;
    bool progressed = false;
    while (rest.size() >= storage::batch_layout::kHeaderSize) {
      RecordBatchHeader h = RecordBatchHeader::Parse(rest.data());
      if (h.size_in_bytes() > static_cast<int64_t>(rest.size())) break;  // cut by max_bytes: read again
      absl::string_view batch = rest.substr(0, h.size_in_bytes());
      rest.remove_prefix(batch.size());
      std::string where = absl::StrCat("batch at offset ", h.base_offset);
      STRATA_RETURN_IF_ERROR(storage::ValidateStoredBatch(batch, where));
      if (h.base_offset != offset) {
        return Mismatch(absl::StrCat(where, ": expected the next batch at offset ", offset));
      }
      if (h.partition_leader_epoch != kLeaderEpoch) {
        return Mismatch(absl::StrCat(where, ": leader epoch ", h.partition_leader_epoch, ", appended with ",
                                     kLeaderEpoch));
      }
      STRATA_ASSIGN_OR_RETURN(auto records, storage::DecodeRecords(batch));
      for (const storage::Record& r : records) {
        int64_t o = h.base_offset + r.offset_delta;
        if (o != offset) return Mismatch(absl::StrCat(where, ": record at offset ", o, ", expected ", offset));
        if (!r.value || *r.value != content.Value(o)) {
          return Mismatch(absl::StrCat("record at offset ", o, ": the value differs from what was appended"));
        }
        if (!r.key || *r.key != content.Key(o)) {
          return Mismatch(absl::StrCat("record at offset ", o, ": the key differs from what was appended"));
        }
        if (h.base_timestamp + r.timestamp_delta != content.Timestamp(o)) {
          return Mismatch(absl::StrCat("record at offset ", o, ": timestamp ", h.base_timestamp + r.timestamp_delta,
                                       ", appended with ", content.Timestamp(o)));
        }
        ++offset;
        ++figures.records;
      }
      if (offset != h.next_offset()) {
        return Mismatch(absl::StrCat(where, ": records end at ", offset, " but the batch's last offset is ",
                                     h.last_offset()));
      }
      figures.bytes += batch.size();
      progressed = true;
    }
    if (!progressed) {
      return Mismatch(absl::StrCat("a read at offset ", offset, " returned ", bytes.size(),
                                   " bytes holding no whole batch"));
    }
  }
  figures.total_time = SteadyClock::now() - start;
  return figures;
}

std::string ReadLine(absl::string_view name, const ReadFigures& f) {
  return absl::StrFormat("%s: %.1f MB in %.3f s = %.1f MB/s (with decoding and checking every record: %.3f s)\n",
                         name, MB(f.bytes), Seconds(f.read_time), MB(f.bytes) / std::max(Seconds(f.read_time), 1e-9),
                         Seconds(f.total_time));
}

class Smoke {
 public:
  Smoke(const SmokeOptions& options, std::ostream& out)
      : options_(options),
        out_(out),
        records_per_batch_(std::max<int32_t>(1, options.batch_bytes / std::max<int32_t>(1, options.record_bytes))),
        content_(static_cast<size_t>(options.record_bytes), records_per_batch_, storage::Clock::System()->NowMs()) {}

  absl::Status Run() {
    if (options_.dir.empty()) return storage::MakeError(storage::Errc::kInvalidArgument, "--dir is required");
    if (options_.records <= 0 || options_.record_bytes <= 0 || options_.batch_bytes <= 0) {
      return storage::MakeError(storage::Errc::kInvalidArgument,
                                "--records, --record-bytes and --batch-bytes must be positive");
    }
    manager_options_.log_dirs = {options_.dir};
    manager_options_.cluster_id = "strata-smoke";
    manager_options_.node_id = 1;
    manager_options_.scheduler = &scheduler_;
    if (options_.segment_bytes > 0) manager_options_.default_config.segment_bytes = options_.segment_bytes;
    // Room for a batch of records_per_batch_ records, each with its varints and key.
    int64_t batch_bound = int64_t{records_per_batch_} * (int64_t{options_.record_bytes} + 64) + 128;
    int32_t& max_message_bytes = manager_options_.default_config.max_message_bytes;
    max_message_bytes = static_cast<int32_t>(std::min<int64_t>(INT32_MAX, std::max<int64_t>(max_message_bytes, batch_bound)));

    out_ << absl::StrFormat("smoke: dir=%s records=%d record_bytes=%d records_per_batch=%d segment_bytes=%d\n",
                            options_.dir, options_.records, options_.record_bytes, records_per_batch_,
                            manager_options_.default_config.segment_bytes);

    // 1. Open, append, flush.
    STRATA_ASSIGN_OR_RETURN(manager_, storage::LogManager::Open(manager_options_));
    STRATA_ASSIGN_OR_RETURN(Log * log, manager_->GetOrCreateLog(tp_));
    if (log->log_end_offset() != 0 || log->log_start_offset() != 0) {
      out_ << "emptying the existing " << tp_.DirName() << " (offsets [" << log->log_start_offset() << ", "
           << log->log_end_offset() << "))\n";
      STRATA_RETURN_IF_ERROR(log->TruncateFullyAndStartAt(0));
    }
    STRATA_RETURN_IF_ERROR(Append(*log));
    auto t0 = SteadyClock::now();
    STRATA_RETURN_IF_ERROR(log->FlushAll());
    auto flush_time = SteadyClock::now() - t0;
    log->UpdateHighWatermark(log->log_end_offset());
    out_ << absl::StrFormat("flush: %.1f ms, %d segments\n", Seconds(flush_time) * 1e3, log->segment_count());

    // 2. Read everything back.
    STRATA_ASSIGN_OR_RETURN(ReadFigures first, ReadBack(*log, content_, options_.records));
    out_ << ReadLine("read", first);

    // 3. Clean shutdown, then a reopen that must not recover anything.
    t0 = SteadyClock::now();
    STRATA_RETURN_IF_ERROR(manager_->Shutdown());
    manager_.reset();
    auto shutdown_time = SteadyClock::now() - t0;
    t0 = SteadyClock::now();
    STRATA_ASSIGN_OR_RETURN(manager_, storage::LogManager::Open(manager_options_));
    auto reopen_time = SteadyClock::now() - t0;
    log = manager_->GetLog(tp_);
    if (log == nullptr) return Mismatch(absl::StrCat("after reopening, ", tp_.DirName(), " is gone"));
    const storage::LoadStats& stats = log->load_stats();
    out_ << absl::StrFormat(
        "reopen: %.1f ms (shutdown %.1f ms): %d segments loaded, %d recovered, %d indexes rebuilt, %d bytes "
        "truncated, %d producer batches replayed\n",
        Seconds(reopen_time) * 1e3, Seconds(shutdown_time) * 1e3, stats.segments_loaded, stats.segments_recovered,
        stats.indexes_rebuilt, stats.bytes_truncated, stats.producer_batches_replayed);
    if (stats.segments_recovered != 0 || stats.indexes_rebuilt != 0 || stats.bytes_truncated != 0 ||
        stats.swaps_completed != 0) {
      return Mismatch("the reopen after a clean shutdown was not a clean load");
    }
    if (log->recovery_point() != log->log_end_offset() || log->high_watermark() != log->log_end_offset()) {
      return Mismatch(absl::StrCat("after reopening: recovery point ", log->recovery_point(), ", high watermark ",
                                   log->high_watermark(), ", log end ", log->log_end_offset()));
    }

    // 4. Read everything back again.
    STRATA_ASSIGN_OR_RETURN(ReadFigures second, ReadBack(*log, content_, options_.records));
    out_ << ReadLine("read after reopen", second);
    STRATA_RETURN_IF_ERROR(manager_->Shutdown());
    manager_.reset();
    scheduler_.Shutdown();

    out_ << absl::StrFormat("records verified: %d (%d records, read twice)\n", first.records + second.records,
                            options_.records);
    out_ << "OK\n";
    return absl::OkStatus();
  }

 private:
  absl::Status Append(Log& log) {
    SteadyClock::duration append_time{};
    uint64_t bytes = 0;
    int64_t batches = 0;
    int64_t next = 0;
    while (next < options_.records) {
      storage::RecordBatchBuilder builder;
      int64_t end = std::min<int64_t>(options_.records, next + records_per_batch_);
      for (int64_t o = next; o < end; ++o) builder.Add(content_.Key(o), content_.Value(o), content_.Timestamp(o));
      std::string batch = builder.Build();
      auto t0 = SteadyClock::now();
      STRATA_ASSIGN_OR_RETURN(storage::LogAppendInfo info, log.AppendAsLeader(batch, kLeaderEpoch));
      append_time += SteadyClock::now() - t0;
      if (info.first_offset != next || info.last_offset != end - 1 || info.duplicate) {
        return Mismatch(absl::StrCat("appending offsets [", next, ", ", end, ") got [", info.first_offset, ", ",
                                     info.last_offset, "]", info.duplicate ? " as a duplicate" : ""));
      }
      bytes += batch.size();
      ++batches;
      next = end;
    }
    out_ << absl::StrFormat("append: %.1f MB in %.3f s = %.1f MB/s (%d batches of ~%d bytes, no fsync)\n", MB(bytes),
                            Seconds(append_time), MB(bytes) / std::max(Seconds(append_time), 1e-9), batches,
                            bytes / static_cast<uint64_t>(batches));
    return absl::OkStatus();
  }

  const SmokeOptions& options_;
  std::ostream& out_;
  const int32_t records_per_batch_;
  const RecordContent content_;
  const storage::TopicPartition tp_{"smoke", 0};
  storage::LogManagerOptions manager_options_;
  // Declared before the scheduler so that, on an early return, the scheduler stops
  // (dropping tasks that point into the manager) before the manager goes away.
  std::unique_ptr<storage::LogManager> manager_;
  storage::Scheduler scheduler_{1};
};

}  // namespace

int RunSmoke(const SmokeOptions& options, std::ostream& out) {
  absl::Status status = Smoke(options, out).Run();
  if (status.ok()) return kExitOk;
  out << "FAIL: " << status.message() << "\n";
  return storage::ErrcOf(status) == storage::Errc::kInvalidArgument ? kExitUsage : kExitProblem;
}

}  // namespace strata::tools
