#pragma once
// RemoteStorageMetrics: a broker's tiered storage for Prometheus, read at every scrape
// (registered with the broker's metrics when remote.log.storage.system.enable is on):
//   strata_remote_copy_lag_segments, strata_remote_copy_lag_bytes
//                     rolled segments of the partitions led here that are due to be
//                     copied (remote.copy.lag.*) and not copied yet: Kafka's
//                     RemoteCopyLagSegments / RemoteCopyLagBytes (docs/metrics.md)
//   strata_remote_copies_total, strata_remote_copy_bytes_total, strata_remote_copy_errors_total
//   strata_remote_deletes_total, strata_remote_delete_errors_total
//   strata_remote_copy_throttle_seconds_total   time copies waited for the copy quota
//   strata_remote_fetch_throttled_total         partition fetches that read nothing remote
//                     because the fetch quota was exceeded
//   strata_remote_reads_total, strata_remote_read_bytes_total, strata_remote_read_errors_total
//                     reads of the remote tier for fetches and ListOffsets (a checksum
//                     mismatch counts as an error)
//   strata_remote_prefetches_total   blocks fetched ahead of consumers reading on
//   strata_remote_chunk_cache_hits_total, _misses_total, _evictions_total, _write_errors_total,
//   strata_remote_chunk_cache_bytes
//                     the chunk cache of remote blocks on local disk (a write error: a
//                     block served from memory because the disk did not take it)
//   strata_remote_store_requests_total, strata_remote_store_retries_total,
//   strata_remote_store_request_errors_total, strata_remote_store_bytes_total{direction}
//                     an object store's HTTP calls (none with the filesystem store): calls,
//                     their retries, those that failed, bytes sent and received
//   strata_remote_aux_state_builds_total{outcome="remote"|"empty_range"|"error"}
//                     followers restarted below the leader's local log start (tier state
//                     machine): state read from the remote tier, none needed, failed
//   strata_remote_aux_state_failing   partitions whose last such build failed
//   strata_remote_orphans_deleted_total, strata_remote_deleted_topic_objects_total,
//   strata_remote_sweep_errors_total, strata_remote_deleted_topics_pending
//                     the sweeper (broker/tiered/remote_sweeper.h): objects no copy names
//                     and deleted topics' objects it deleted, its failures (retried), and
//                     the deleted topics whose objects are not all gone yet
// Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "broker/tiered/remote_log_manager.h"
#include "broker/tiered/remote_log_reader.h"
#include "broker/tiered/remote_sweeper.h"
#include "server/broker_role.h"
#include "broker/replication/tier_state_machine.h"

namespace strata::server {

class RemoteStorageMetrics final : public prometheus::Collectable {
 public:
  // REQUIRES: the broker has tiered storage on (remote.log.storage.system.enable).
  explicit RemoteStorageMetrics(const BrokerRole& broker)
      : manager_(*broker.remote_log_manager()),
        reader_(*broker.remote_reader()),
        tier_state_machine_(*broker.tier_state_machine()),
        sweeper_(*broker.remote_sweeper()),
        store_(*broker.remote_storage()) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const broker::RemoteLogManager& manager_;
  const broker::RemoteLogReader& reader_;
  const broker::TierStateMachine& tier_state_machine_;
  const broker::RemoteSweeper& sweeper_;
  const storage::RemoteStorageManager& store_;
};

}  // namespace strata::server
