#include "server/storage_metrics.h"

#include "broker/handlers/list_offsets_handler.h"
#include "controller/metric_families.h"

namespace strata::server {

using controller::Add;
using controller::AddHistogram;
using controller::Family;
using prometheus::MetricType;

std::vector<prometheus::MetricFamily> StorageMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  const storage::LogDirFailureChannel& channel = logs_.failure_channel();
  auto dirs = Family("strata_log_dirs", "Log dirs by state", MetricType::Gauge);
  auto offline = Family("strata_log_dir_offline", "1 for a log dir that failed (it stays offline until a restart)",
                        MetricType::Gauge);
  int online_count = 0, offline_count = 0;
  for (const std::string& dir : channel.Dirs()) {
    bool is_offline = channel.IsOffline(dir);
    (is_offline ? offline_count : online_count)++;
    Add(offline, is_offline ? 1 : 0, {{"dir", dir}});
  }
  Add(dirs, online_count, {{"state", "online"}});
  Add(dirs, offline_count, {{"state", "offline"}});
  out.push_back(std::move(dirs));
  out.push_back(std::move(offline));

  const storage::TransferFailureChecker& checker = logs_.transfer_checker();
  auto transfers = Family("strata_transfer_failures_total",
                          "Failed zero-copy sends, by what re-reading the region found: the socket failed, the "
                          "file failed (its dir went offline), or neither could be told",
                          MetricType::Counter);
  Add(transfers, static_cast<double>(checker.socket_side()), {{"outcome", "socket"}});
  Add(transfers, static_cast<double>(checker.file_side()), {{"outcome", "file"}});
  Add(transfers, static_cast<double>(checker.inconclusive()), {{"outcome", "inconclusive"}});
  out.push_back(std::move(transfers));

  const storage::FlushStats& flushes = logs_.flush_stats();
  auto count = Family("strata_log_flushes_total", "Log flushes (fsync of segments below an offset)", MetricType::Counter);
  Add(count, static_cast<double>(flushes.flushes()));
  out.push_back(std::move(count));
  auto latency = Family("strata_log_flush_seconds", "How long log flushes took", MetricType::Histogram);
  AddHistogram(latency, flushes);
  out.push_back(std::move(latency));

  storage::LoadStats recovered = logs_.startup_recovery();
  auto bytes = Family("strata_log_recovery_bytes", "Bytes recovery read when the logs were loaded at start (the "
                      "unflushed tail after an unclean stop)", MetricType::Gauge);
  Add(bytes, static_cast<double>(recovered.bytes_recovered));
  out.push_back(std::move(bytes));
  auto segments = Family("strata_log_recovery_segments", "Segments recovered when the logs were loaded at start",
                         MetricType::Gauge);
  Add(segments, recovered.segments_recovered);
  out.push_back(std::move(segments));
  auto rebuilds = Family("strata_log_producer_state_rebuilds",
                         "Logs whose producer state was rebuilt from the log start when loaded at start (no usable "
                         "snapshot); an interrupted compaction swap or a rebuilt index never causes one",
                         MetricType::Gauge);
  Add(rebuilds, recovered.producer_state_rebuilds);
  out.push_back(std::move(rebuilds));
  auto swaps = Family("strata_log_recovery_swaps_completed",
                      "Interrupted compaction swaps completed when the logs were loaded at start", MetricType::Gauge);
  Add(swaps, recovered.swaps_completed);
  out.push_back(std::move(swaps));

  if (const storage::LogCleaner* cleaner = logs_.cleaner()) {
    storage::CleanerStats stats = cleaner->stats();
    auto cleanings = Family("strata_log_cleaner_cleanings_total", "Log cleanings (compactions) finished",
                            MetricType::Counter);
    Add(cleanings, static_cast<double>(stats.cleanings));
    out.push_back(std::move(cleanings));
    auto failures = Family("strata_log_cleaner_failures_total",
                           "Log cleanings that stopped: the log changed or was deleted, its dir failed, or its data "
                           "does not decode",
                           MetricType::Counter);
    Add(failures, static_cast<double>(stats.failures));
    out.push_back(std::move(failures));
    auto cleaner_bytes = Family("strata_log_cleaner_bytes_total", "Bytes the log cleaner read and wrote",
                                MetricType::Counter);
    Add(cleaner_bytes, static_cast<double>(stats.bytes_read), {{"direction", "read"}});
    Add(cleaner_bytes, static_cast<double>(stats.bytes_written), {{"direction", "written"}});
    out.push_back(std::move(cleaner_bytes));
    auto removed = Family("strata_log_cleaner_records_removed_total",
                          "Records compaction removed (superseded, expired tombstones, no key)", MetricType::Counter);
    Add(removed, static_cast<double>(stats.records_removed));
    out.push_back(std::move(removed));
    auto ratio = Family("strata_log_cleaner_max_dirty_ratio",
                        "The largest share of a compacted log not yet cleaned, at the cleaner's last pick",
                        MetricType::Gauge);
    Add(ratio, stats.max_dirty_ratio);
    out.push_back(std::move(ratio));
    auto threads = Family("strata_log_cleaner_threads",
                          "Log cleaner threads running (log.cleaner.threads, static or dynamic)", MetricType::Gauge);
    Add(threads, stats.threads);
    out.push_back(std::move(threads));
    auto last = Family("strata_log_cleaner_last_cleaning_seconds", "How long the last cleaning took",
                       MetricType::Gauge);
    Add(last, static_cast<double>(stats.last_cleaning_ms) / 1000.0);
    out.push_back(std::move(last));
  }

  broker::ListOffsetsDeferrals deferred = broker::DeferredListOffsets();
  auto lookups = Family("strata_list_offsets_deferred_total",
                        "Timestamp ListOffsets lookups answered OFFSET_NOT_AVAILABLE rather than an offset that could "
                        "skip stored records: a hole between the remote tier and the local log, or a range that moved "
                        "during the lookup",
                        MetricType::Counter);
  Add(lookups, static_cast<double>(deferred.hole), {{"reason", "hole"}});
  Add(lookups, static_cast<double>(deferred.range_moved), {{"reason", "range_moved"}});
  out.push_back(std::move(lookups));
  return out;
}

}  // namespace strata::server
