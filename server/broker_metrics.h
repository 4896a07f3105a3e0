#pragma once
// BrokerMetrics: a broker's requests, partitions and replication for Prometheus, read at
// every scrape (strata-server registers it on metrics.listener for brokers). Names
// follow Kafka's (kafka.network RequestMetrics, kafka.server BrokerTopicMetrics and
// ReplicaManager, the replica fetcher's lag):
// Requests (broker/network/request_metrics.h), labels api ("Produce", ...), version, error:
//   strata_kafka_requests_total{api,version}
//   strata_kafka_request_errors_total{api,error}   every error code the responses carried
//                                                  (Kafka's names; CONNECTION_CLOSED: the
//                                                  request closed its connection instead)
//   strata_kafka_request_queue_seconds{api}        histogram: read until a handler took it
//   strata_kafka_response_queue_seconds{api}       histogram: answered until sending began
//   strata_kafka_request_seconds{api}              histogram: read until the response was sent
//   strata_kafka_connections{listener}             connections open now
//   strata_purgatory_size{operation="Fetch"|"Produce"}  requests waiting in a purgatory
//   strata_fetch_sessions, strata_fetch_session_partitions   incremental fetch sessions
//   strata_fetch_session_evictions_total, strata_fetch_session_reads_skipped_total
//   strata_fetch_session_partitions_taken_total{why="changed"|"full_read"}
// Partitions this broker hosts:
//   strata_partitions, strata_leader_partitions
//   strata_under_replicated_partitions   led here, ISR smaller than the replicas
//   strata_under_min_isr_partitions      led here, ISR below min.insync.replicas
//   strata_at_min_isr_partitions         led here, ISR exactly min.insync.replicas
//   strata_isr_shrinks_total, strata_isr_expands_total   ISR changes of partitions led here
//   strata_replica_fetcher_lag{topic,partition,leader}   offsets behind the leader's high
//                                                        watermark, per followed partition
//   strata_replica_fetcher_max_lag
//   strata_topic_bytes_in_total{topic}, strata_topic_records_in_total{topic}
//                                        producers' appends led here (records: offsets taken)
//   strata_topic_bytes_out_total{topic}  record bytes sent to consumers
//   strata_topic_replication_bytes_in_total{topic}, strata_topic_replication_bytes_out_total{topic}
//   strata_log_size_bytes{topic,partition,dir}, strata_log_segments{topic,partition},
//   strata_log_start_offset{topic,partition}, strata_log_end_offset{topic,partition}
//   strata_log_dir_size_bytes{dir}       the logs' bytes per log dir
// Offline partitions (no leader) are the image's: strata_metadata_offline_partitions
// (controller/metrics.h), on every node.
// Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "broker/replication/replica_manager.h"
#include "broker/network/request_metrics.h"
#include "server/broker_role.h"

namespace strata::server {

// The request families of one RequestMetrics (tests read them alone).
void AppendRequestFamilies(const broker::RequestMetrics& metrics, std::vector<prometheus::MetricFamily>& out);
// The partition, topic, log and replication families of one ReplicaManager.
void AppendPartitionFamilies(const broker::ReplicaManager& replicas, std::vector<prometheus::MetricFamily>& out);

class BrokerMetrics final : public prometheus::Collectable {
 public:
  explicit BrokerMetrics(const BrokerRole& broker) : broker_(broker) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const BrokerRole& broker_;
};

}  // namespace strata::server
