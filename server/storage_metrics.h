#pragma once
// StorageMetrics: a broker's log dirs and logs for Prometheus, read at every scrape
// (strata-server registers it on metrics.listener for brokers):
//   strata_log_dirs{state="online"|"offline"}            log dirs by state
//   strata_log_dir_offline{dir="..."}                     1 for each offline dir, 0 else
//   strata_transfer_failures_total{outcome="socket"|"file"|"inconclusive"}
//                                                         failed zero-copy sends, by what their
//                                                         re-read found (seed 000)
//   strata_log_flushes_total, strata_log_flush_seconds    flushes and their latency (histogram)
//   strata_log_recovery_bytes, strata_log_recovery_segments
//                                                         what loading the logs at start
//                                                         recovered (the unflushed tail)
//   strata_list_offsets_deferred_total{reason="hole"|"range_moved"}
//                                                         timestamp lookups deferred (seed KC-761)
// Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "storage/log_manager.h"

namespace strata::server {

class StorageMetrics final : public prometheus::Collectable {
 public:
  explicit StorageMetrics(const storage::LogManager& logs) : logs_(logs) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const storage::LogManager& logs_;
};

}  // namespace strata::server
