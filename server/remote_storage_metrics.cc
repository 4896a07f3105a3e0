#include "server/remote_storage_metrics.h"

#include "controller/metric_families.h"

namespace strata::server {

using controller::Add;
using controller::Family;
using prometheus::MetricType;

std::vector<prometheus::MetricFamily> RemoteStorageMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  auto one = [&](const char* name, const char* help, MetricType type, double value) {
    controller::AddSingle(out, name, help, type, value);
  };
  broker::RemoteLogManager::CopyLag lag = manager_.copy_lag();
  one("strata_remote_copy_lag_segments",
      "Rolled segments due to be copied to the remote tier (remote.copy.lag.*) and not copied yet", MetricType::Gauge,
      static_cast<double>(lag.segments));
  one("strata_remote_copy_lag_bytes", "Bytes of rolled segments due to be copied and not copied yet",
      MetricType::Gauge, static_cast<double>(lag.bytes));
  broker::RemoteLogManagerStats m = manager_.stats();
  one("strata_remote_copies_total", "Segments copied to the remote tier (COPY_SEGMENT_FINISHED)", MetricType::Counter,
      static_cast<double>(m.copies));
  one("strata_remote_copy_bytes_total", "Bytes of segments copied to the remote tier", MetricType::Counter,
      static_cast<double>(m.copy_bytes));
  one("strata_remote_copy_errors_total", "Failed copy attempts (each is retried)", MetricType::Counter,
      static_cast<double>(m.copy_errors));
  one("strata_remote_deletes_total", "Remote copies deleted (DELETE_SEGMENT_FINISHED)", MetricType::Counter,
      static_cast<double>(m.deletes));
  one("strata_remote_delete_errors_total", "Failed remote deletes (each is retried)", MetricType::Counter,
      static_cast<double>(m.delete_errors));
  one("strata_remote_copy_throttle_seconds_total",
      "Time copies waited for the copy quota (remote.log.manager.copy.max.bytes.per.second)", MetricType::Counter,
      static_cast<double>(m.copy_throttle_ms) / 1000.0);
  broker::RemoteLogReaderStats r = reader_.stats();
  one("strata_remote_reads_total", "Reads of the remote tier (fetches and timestamp lookups)", MetricType::Counter,
      static_cast<double>(r.reads));
  one("strata_remote_read_bytes_total", "Bytes read from the remote tier", MetricType::Counter,
      static_cast<double>(r.read_bytes));
  one("strata_remote_read_errors_total", "Failed remote reads (missing object, I/O error, checksum mismatch)",
      MetricType::Counter, static_cast<double>(r.read_errors));
  one("strata_remote_fetch_throttled_total",
      "Partition fetches that read nothing remote: the fetch quota (remote.log.manager.fetch.max.bytes.per.second) "
      "was exceeded",
      MetricType::Counter, static_cast<double>(r.fetch_throttled));
  one("strata_remote_prefetches_total", "Blocks of remote segments fetched ahead of a consumer reading on",
      MetricType::Counter, static_cast<double>(r.prefetches));
  const broker::RemoteChunkCacheStats& c = r.chunk_cache;
  one("strata_remote_chunk_cache_hits_total", "Blocks of remote segments read from the chunk cache",
      MetricType::Counter, static_cast<double>(c.hits));
  one("strata_remote_chunk_cache_misses_total", "Blocks of remote segments fetched from the store into the chunk cache",
      MetricType::Counter, static_cast<double>(c.misses));
  one("strata_remote_chunk_cache_evictions_total", "Blocks the chunk cache dropped to stay within its size",
      MetricType::Counter, static_cast<double>(c.evictions));
  one("strata_remote_chunk_cache_write_errors_total",
      "Blocks the chunk cache could not write (served from memory; a full or failing disk)", MetricType::Counter,
      static_cast<double>(c.write_errors));
  one("strata_remote_chunk_cache_bytes", "Bytes in the chunk cache (rsm.config.fetch.chunk.cache.size at most)",
      MetricType::Gauge, static_cast<double>(c.bytes));
  if (std::optional<storage::RemoteStorageManager::Requests> q = store_.requests()) {
    one("strata_remote_store_requests_total", "Calls to the object store (each with its retries)",
        MetricType::Counter, static_cast<double>(q->calls));
    one("strata_remote_store_retries_total", "Object store calls retried (5xx, SlowDown, resets, timeouts)",
        MetricType::Counter, static_cast<double>(q->retries));
    one("strata_remote_store_request_errors_total", "Object store calls that ended in an error",
        MetricType::Counter, static_cast<double>(q->failures));
    auto bytes = Family("strata_remote_store_bytes_total", "Bytes sent to and received from the object store",
                        MetricType::Counter);
    Add(bytes, static_cast<double>(q->bytes_sent), {{"direction", "sent"}});
    Add(bytes, static_cast<double>(q->bytes_received), {{"direction", "received"}});
    out.push_back(std::move(bytes));
  }
  broker::TierStateMachineStats t = tier_state_machine_.stats();
  auto builds = Family("strata_remote_aux_state_builds_total",
                       "Followers restarted below the leader's local log start, by how their state was built",
                       MetricType::Counter);
  Add(builds, static_cast<double>(t.builds), {{"outcome", "remote"}});
  Add(builds, static_cast<double>(t.empty_ranges), {{"outcome", "empty_range"}});
  Add(builds, static_cast<double>(t.errors), {{"outcome", "error"}});
  out.push_back(std::move(builds));
  one("strata_remote_aux_state_failing", "Partitions whose state could not be built from the remote tier (retried)",
      MetricType::Gauge, static_cast<double>(t.failing));
  broker::RemoteSweeperStats w = sweeper_.stats();
  one("strata_remote_orphans_deleted_total", "Remote objects no copy in the metadata named, deleted by the sweep",
      MetricType::Counter, static_cast<double>(w.orphans_deleted));
  one("strata_remote_deleted_topic_objects_total", "Remote objects of deleted topics deleted", MetricType::Counter,
      static_cast<double>(w.topic_objects_deleted));
  one("strata_remote_sweep_errors_total", "Failed sweeps and deleted-topic deletes (each retried)",
      MetricType::Counter, static_cast<double>(w.errors));
  one("strata_remote_deleted_topics_pending", "Deleted topics whose remote objects are not all deleted yet",
      MetricType::Gauge, static_cast<double>(w.topics_pending));
  return out;
}

}  // namespace strata::server
