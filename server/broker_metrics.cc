#include "server/broker_metrics.h"

#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "controller/metric_families.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"

namespace strata::server {

using controller::Add;
using controller::AddHistogram;
using controller::AddSingle;
using controller::Family;
using prometheus::MetricType;

namespace {

std::string ApiLabel(int16_t api_key) { return std::string(proto::kafka::ApiName(api_key)); }

std::string ErrorLabel(int16_t code) {
  if (code == broker::RequestMetrics::kConnectionClosed) return "CONNECTION_CLOSED";
  return std::string(proto::kafka::ErrorName(static_cast<proto::kafka::ErrorCode>(code)));
}

}  // namespace

void AppendRequestFamilies(const broker::RequestMetrics& metrics, std::vector<prometheus::MetricFamily>& out) {
  auto requests = Family("strata_kafka_requests_total", "Kafka requests received, by API and version",
                         MetricType::Counter);
  auto request_queue = Family("strata_kafka_request_queue_seconds",
                              "Time from reading a request until a handler thread took it", MetricType::Histogram);
  auto response_queue = Family("strata_kafka_response_queue_seconds",
                               "Time from a handler's answer until a network thread began sending it",
                               MetricType::Histogram);
  auto total = Family("strata_kafka_request_seconds",
                      "Time from reading a request until its response was sent (or, with none, answered)",
                      MetricType::Histogram);
  for (int16_t api : metrics.apis_seen()) {
    std::string name = ApiLabel(api);
    for (int v = 0; v < broker::RequestMetrics::kVersions; ++v) {
      int64_t n = metrics.requests(api, static_cast<int16_t>(v));
      if (n > 0) Add(requests, static_cast<double>(n), {{"api", name}, {"version", absl::StrCat(v)}});
    }
    AddHistogram(request_queue, metrics.request_queue(api), {{"api", name}});
    AddHistogram(response_queue, metrics.response_queue(api), {{"api", name}});
    AddHistogram(total, metrics.total(api), {{"api", name}});
  }
  auto errors = Family("strata_kafka_request_errors_total",
                       "Error codes in Kafka responses (each one counted, as Kafka's ErrorsPerSec), by API; "
                       "CONNECTION_CLOSED: the request closed its connection instead of being answered",
                       MetricType::Counter);
  for (const auto& [key, n] : metrics.errors()) {
    Add(errors, static_cast<double>(n), {{"api", ApiLabel(key.first)}, {"error", ErrorLabel(key.second)}});
  }
  out.push_back(std::move(requests));
  out.push_back(std::move(errors));
  out.push_back(std::move(request_queue));
  out.push_back(std::move(response_queue));
  out.push_back(std::move(total));
}

void AppendPartitionFamilies(const broker::ReplicaManager& replicas, std::vector<prometheus::MetricFamily>& out) {
  struct TopicTraffic {
    int64_t bytes_in = 0, records_in = 0, bytes_out = 0, replication_in = 0, replication_out = 0;
  };
  std::map<std::string, TopicTraffic> topics;
  std::map<std::string, int64_t> dir_bytes;
  int64_t hosted = 0, leaders = 0, under_replicated = 0, under_min_isr = 0, at_min_isr = 0;
  auto size = Family("strata_log_size_bytes", "Bytes of a partition's local log", MetricType::Gauge);
  auto segments = Family("strata_log_segments", "Segments of a partition's local log", MetricType::Gauge);
  auto start = Family("strata_log_start_offset", "The first offset of a partition's local log", MetricType::Gauge);
  auto end = Family("strata_log_end_offset", "The log end offset of a partition (next offset to write)",
                    MetricType::Gauge);
  auto lso_lag = Family("strata_log_last_stable_offset_lag",
                        "The high watermark minus the last stable offset of a partition (records held back from "
                        "READ_COMMITTED consumers by open transactions)",
                        MetricType::Gauge);
  for (const broker::ReplicaManager::HostedPartition& h : replicas.HostedPartitions()) {
    const broker::Partition& partition = *h.partition;
    const storage::TopicPartition& tp = partition.topic_partition();
    ++hosted;
    const broker::PartitionTraffic& traffic = partition.traffic();
    TopicTraffic& t = topics[tp.topic];
    t.bytes_in += traffic.bytes_in.load(std::memory_order_relaxed);
    t.records_in += traffic.records_in.load(std::memory_order_relaxed);
    t.bytes_out += traffic.bytes_out.load(std::memory_order_relaxed);
    t.replication_in += traffic.replication_bytes_in.load(std::memory_order_relaxed);
    t.replication_out += traffic.replication_bytes_out.load(std::memory_order_relaxed);
    const storage::Log& log = *partition.log();
    if (log.offline()) continue;  // its dir failed: neither led nor followed here
    if (partition.is_leader()) {
      ++leaders;
      broker::PartitionState state = partition.state();
      auto isr = static_cast<int64_t>(state.isr.size());
      if (isr < static_cast<int64_t>(state.replicas.size())) ++under_replicated;
      if (isr < h.min_insync_replicas) ++under_min_isr;
      if (isr == h.min_insync_replicas) ++at_min_isr;
    }
    std::string partition_label = absl::StrCat(tp.partition);
    std::string dir = log.log_dir();
    int64_t bytes = log.size_in_bytes();
    dir_bytes[dir] += bytes;
    Add(size, static_cast<double>(bytes), {{"topic", tp.topic}, {"partition", partition_label}, {"dir", dir}});
    Add(segments, log.segment_count(), {{"topic", tp.topic}, {"partition", partition_label}});
    const storage::Log::Offsets offsets = log.offsets();  // one lock for the four
    Add(start, static_cast<double>(offsets.log_start_offset), {{"topic", tp.topic}, {"partition", partition_label}});
    Add(end, static_cast<double>(offsets.log_end_offset), {{"topic", tp.topic}, {"partition", partition_label}});
    Add(lso_lag, static_cast<double>(offsets.high_watermark - offsets.last_stable_offset),
        {{"topic", tp.topic}, {"partition", partition_label}});
  }
  AddSingle(out, "strata_partitions", "Partitions this broker hosts", MetricType::Gauge, static_cast<double>(hosted));
  AddSingle(out, "strata_leader_partitions", "Partitions this broker leads", MetricType::Gauge,
            static_cast<double>(leaders));
  AddSingle(out, "strata_under_replicated_partitions",
            "Partitions led here whose ISR is smaller than their replica set", MetricType::Gauge,
            static_cast<double>(under_replicated));
  AddSingle(out, "strata_under_min_isr_partitions",
            "Partitions led here whose ISR is below min.insync.replicas (acks=all produces fail)", MetricType::Gauge,
            static_cast<double>(under_min_isr));
  AddSingle(out, "strata_at_min_isr_partitions", "Partitions led here whose ISR is exactly min.insync.replicas",
            MetricType::Gauge, static_cast<double>(at_min_isr));
  AddSingle(out, "strata_isr_shrinks_total", "ISR shrinks of partitions led here (asked by this leader or made by the controller)",
            MetricType::Counter, static_cast<double>(replicas.isr_shrinks()));
  AddSingle(out, "strata_isr_expands_total",
            "ISR expansions of partitions led here", MetricType::Counter,
            static_cast<double>(replicas.isr_expands()));
  AddSingle(out, "strata_metadata_image_applies_total",
            "Metadata images applied to the hosted partitions (one per metadata entry)", MetricType::Counter,
            static_cast<double>(replicas.image_applies()));
  AddSingle(out, "strata_metadata_image_apply_seconds_total",
            "Time spent applying metadata images to the hosted partitions", MetricType::Counter,
            static_cast<double>(replicas.image_apply_micros()) / 1e6);
  AddSingle(out, "strata_metadata_image_full_applies_total",
            "Metadata images applied to every hosted partition (the others only to what their entry named)",
            MetricType::Counter, static_cast<double>(replicas.image_full_applies()));
  AddSingle(out, "strata_metadata_image_apply_partitions_total",
            "Hosted partitions brought in line with the metadata image, over all applies", MetricType::Counter,
            static_cast<double>(replicas.image_apply_partitions()));

  auto lag = Family("strata_replica_fetcher_lag",
                    "Offsets a followed partition is behind its leader's high watermark (as of the last fetch)",
                    MetricType::Gauge);
  int64_t max_lag = 0;
  if (const broker::ReplicaFetcherManager* fetchers = replicas.fetchers()) {
    for (const auto& l : fetchers->Lags()) {
      max_lag = std::max(max_lag, l.lag);
      Add(lag, static_cast<double>(l.lag),
          {{"topic", l.tp.topic}, {"partition", absl::StrCat(l.tp.partition)}, {"leader", absl::StrCat(l.leader_id)}});
    }
  }
  out.push_back(std::move(lag));
  AddSingle(out, "strata_replica_fetcher_max_lag", "The largest strata_replica_fetcher_lag", MetricType::Gauge,
            static_cast<double>(max_lag));

  auto bytes_in = Family("strata_topic_bytes_in_total", "Record bytes producers appended to partitions led here",
                         MetricType::Counter);
  auto records_in = Family("strata_topic_records_in_total",
                           "Records (offsets) producers appended to partitions led here", MetricType::Counter);
  auto bytes_out = Family("strata_topic_bytes_out_total", "Record bytes sent to consumers", MetricType::Counter);
  auto replication_in = Family("strata_topic_replication_bytes_in_total", "Record bytes fetched from leaders",
                               MetricType::Counter);
  auto replication_out = Family("strata_topic_replication_bytes_out_total", "Record bytes sent to followers",
                                MetricType::Counter);
  for (const auto& [topic, t] : topics) {
    Add(bytes_in, static_cast<double>(t.bytes_in), {{"topic", topic}});
    Add(records_in, static_cast<double>(t.records_in), {{"topic", topic}});
    Add(bytes_out, static_cast<double>(t.bytes_out), {{"topic", topic}});
    Add(replication_in, static_cast<double>(t.replication_in), {{"topic", topic}});
    Add(replication_out, static_cast<double>(t.replication_out), {{"topic", topic}});
  }
  out.push_back(std::move(bytes_in));
  out.push_back(std::move(records_in));
  out.push_back(std::move(bytes_out));
  out.push_back(std::move(replication_in));
  out.push_back(std::move(replication_out));
  out.push_back(std::move(size));
  out.push_back(std::move(segments));
  out.push_back(std::move(start));
  out.push_back(std::move(end));
  out.push_back(std::move(lso_lag));
  auto dirs = Family("strata_log_dir_size_bytes", "Bytes of the partitions' local logs in a log dir",
                     MetricType::Gauge);
  for (const auto& [dir, bytes] : dir_bytes) Add(dirs, static_cast<double>(bytes), {{"dir", dir}});
  out.push_back(std::move(dirs));
}

namespace {

// Kafka's per-entity quota metrics (type=Produce/Fetch/Request, user, client-id): the
// measured byte rate or request time, the quota, and the throttling, for each entity a
// client quota applies to.
void AppendClientQuotaFamilies(broker::ClientQuotaManager& quotas, std::vector<prometheus::MetricFamily>& out) {
  std::vector<broker::ClientQuotaManager::EntityStats> stats = quotas.Stats(std::chrono::steady_clock::now());
  if (stats.empty()) return;
  auto rate = Family("strata_client_quota_byte_rate",
                     "Bytes per second a quota entity produced or fetched, as its quota measures them (Kafka's "
                     "byte-rate per user and client-id)",
                     MetricType::Gauge);
  auto bound = Family("strata_client_quota_bytes_per_second", "The quota of the entity (producer_byte_rate or "
                      "consumer_byte_rate)", MetricType::Gauge);
  auto bytes = Family("strata_client_quota_bytes_total", "Bytes the entity produced or fetched under its quota",
                      MetricType::Counter);
  auto throttled = Family("strata_client_quota_throttled_total", "Responses to the entity that carried a throttle time",
                          MetricType::Counter);
  auto throttle = Family("strata_client_quota_throttle_seconds_total",
                         "The throttle times of the entity's responses, added up (Kafka's throttle-time)",
                         MetricType::Counter);
  auto request_time = Family("strata_client_quota_request_time_percent",
                             "Request-handler time of a quota entity in percent of one thread, as its "
                             "request_percentage quota measures it (Kafka's request-time)",
                             MetricType::Gauge);
  auto request_bound = Family("strata_client_quota_request_percentage", "The request_percentage quota of the entity",
                              MetricType::Gauge);
  for (const auto& s : stats) {
    const char* type = s.kind == broker::QuotaKind::kProduce ? "Produce"
                       : s.kind == broker::QuotaKind::kFetch ? "Fetch"
                                                              : "Request";
    const std::vector<prometheus::ClientMetric::Label> labels = {
        {"type", type}, {"user", s.user}, {"client_id", s.client_id}};
    if (s.kind == broker::QuotaKind::kRequest) {
      Add(request_time, s.rate, labels);
      Add(request_bound, s.quota, labels);
    } else {
      Add(rate, s.rate, labels);
      Add(bound, s.quota, labels);
      Add(bytes, s.amount, labels);
    }
    Add(throttled, static_cast<double>(s.throttled), labels);
    Add(throttle, static_cast<double>(s.throttle_ms) / 1000.0, labels);
  }
  for (auto* f : {&rate, &bound, &bytes, &throttled, &throttle, &request_time, &request_bound}) {
    if (!f->metric.empty()) out.push_back(std::move(*f));
  }
}

}  // namespace

std::vector<prometheus::MetricFamily> BrokerMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  AppendRequestFamilies(broker_.request_metrics(), out);
  auto connections = Family("strata_kafka_connections", "Kafka connections open now, by listener", MetricType::Gauge);
  for (const auto& [listener, n] : broker_.ListenerConnections()) {
    Add(connections, static_cast<double>(n), {{"listener", listener}});
  }
  out.push_back(std::move(connections));
  if (!broker_.sasl_metrics().empty()) {
    auto authentications =
        Family("strata_kafka_authentications_total",
               "SASL authentications on the Kafka listeners, by listener and result (Kafka's successful-, failed- "
               "and successful-reauthentication-total)",
               MetricType::Counter);
    for (const auto& [listener, m] : broker_.sasl_metrics()) {
      Add(authentications, static_cast<double>(m->successful.load()), {{"listener", listener}, {"result", "success"}});
      Add(authentications, static_cast<double>(m->failed.load()), {{"listener", listener}, {"result", "failure"}});
      Add(authentications, static_cast<double>(m->reauthenticated.load()),
          {{"listener", listener}, {"result", "reauthentication"}});
    }
    out.push_back(std::move(authentications));
  }
  if (const security::StandardAuthorizer* authorizer = broker_.authorizer()) {
    auto decisions = Family("strata_authorizer_decisions_total",
                            "The authorizer's decisions on Kafka requests, by result", MetricType::Counter);
    Add(decisions, static_cast<double>(authorizer->allowed_total()), {{"result", "allowed"}});
    Add(decisions, static_cast<double>(authorizer->denied_total()), {{"result", "denied"}});
    out.push_back(std::move(decisions));
    AddSingle(out, "strata_authorizer_acls", "ACL bindings the authorizer holds", MetricType::Gauge,
              static_cast<double>(authorizer->acl_count()));
  }
  AppendClientQuotaFamilies(broker_.client_quotas(), out);
  auto purgatory = Family("strata_purgatory_size", "Requests waiting in a purgatory (Fetch: for fetch.min.bytes; "
                          "Produce: acks=all for the high watermark)", MetricType::Gauge);
  Add(purgatory, static_cast<double>(broker_.FetchesWaiting()), {{"operation", "Fetch"}});
  Add(purgatory, static_cast<double>(broker_.ProducesWaiting()), {{"operation", "Produce"}});
  out.push_back(std::move(purgatory));
  if (const broker::FetchSessionCache* sessions = broker_.fetch_sessions()) {
    AddSingle(out, "strata_fetch_sessions", "Incremental fetch sessions (KIP-227) the broker holds",
              MetricType::Gauge, static_cast<double>(sessions->size()));
    AddSingle(out, "strata_fetch_session_partitions", "Partitions held by all incremental fetch sessions",
              MetricType::Gauge, static_cast<double>(sessions->cached_partitions()));
    AddSingle(out, "strata_fetch_session_evictions_total", "Fetch sessions that lost their slot to a new one",
              MetricType::Counter, static_cast<double>(sessions->evictions()));
    AddSingle(out, "strata_fetch_session_reads_skipped_total",
              "Partition reads an incremental fetch skipped because nothing changed in the partition",
              MetricType::Counter, static_cast<double>(sessions->reads_skipped()));
    auto taken = Family("strata_fetch_session_partitions_taken_total",
                        "Partitions incremental fetches took to read: changed (dirty) ones, or every partition "
                        "of the session in a full read",
                        MetricType::Counter);
    const int64_t swept = sessions->partitions_swept();
    Add(taken, static_cast<double>(sessions->partitions_taken() - swept), {{"why", "changed"}});
    Add(taken, static_cast<double>(swept), {{"why", "full_read"}});
    out.push_back(std::move(taken));
  }
  AppendPartitionFamilies(broker_.replicas(), out);
  return out;
}

}  // namespace strata::server
