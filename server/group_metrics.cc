#include "server/group_metrics.h"

#include <algorithm>
#include <map>
#include <string>

#include "controller/metric_families.h"

namespace strata::server {

using controller::Add;
using controller::Family;
using prometheus::MetricType;

std::vector<prometheus::MetricFamily> GroupMetrics::Collect() const {
  const broker::CoordinatorStats s = coordinator_.stats();
  std::vector<prometheus::MetricFamily> out;
  auto groups = Family("strata_groups", "Groups this broker coordinates, by state", MetricType::Gauge);
  for (const auto& [state, n] : s.groups_by_state) {
    if (state != broker::GroupState::kDead) Add(groups, static_cast<double>(n), {{"state", broker::GroupStateName(state)}});
  }
  out.push_back(std::move(groups));
  auto by_state = [&](const char* name, const char* help, const std::map<std::string, int64_t>& counts) {
    auto f = Family(name, help, MetricType::Gauge);
    for (const auto& [state, n] : counts) Add(f, static_cast<double>(n), {{"state", state}});
    out.push_back(std::move(f));
  };
  auto one = [&](const char* name, const char* help, MetricType type, double value) {
    auto f = Family(name, help, type);
    Add(f, value);
    out.push_back(std::move(f));
  };
  auto counter = [&](const char* name, const char* help, double value) { one(name, help, MetricType::Counter, value); };
  // KIP-848 consumer groups and KIP-932 share groups (Kafka's group-count by type and
  // state, their members, rebalances).
  by_state("strata_consumer_groups", "KIP-848 consumer groups this broker coordinates, by state",
           s.consumer_groups_by_state);
  one("strata_consumer_group_members", "Members of the KIP-848 consumer groups this broker coordinates",
      MetricType::Gauge, static_cast<double>(s.consumer_group_members));
  by_state("strata_share_groups", "KIP-932 share groups this broker coordinates, by state", s.share_groups_by_state);
  one("strata_share_group_members", "Members of the KIP-932 share groups this broker coordinates", MetricType::Gauge,
      static_cast<double>(s.share_group_members));
  counter("strata_share_group_rebalances_total",
          "Assignments computed for KIP-932 share groups (their group epoch moved)",
          static_cast<double>(s.share_group_rebalances));
  counter("strata_group_rebalances_total", "Group generations completed (rebalances)", static_cast<double>(s.rebalances));
  counter("strata_consumer_group_rebalances_total",
          "Target assignments computed for KIP-848 consumer groups (their rebalances)",
          static_cast<double>(s.consumer_group_rebalances));
  counter("strata_group_offset_commits_total", "Partitions whose offset was committed",
          static_cast<double>(s.offset_commits));
  counter("strata_group_offset_commit_requests_total", "OffsetCommit requests",
          static_cast<double>(s.offset_commit_requests));
  counter("strata_group_offsets_expired_total", "Committed offsets removed by offsets.retention.minutes",
          static_cast<double>(s.offsets_expired));
  counter("strata_group_partitions_loaded_total", "Partitions of __consumer_offsets loaded on becoming their leader",
          static_cast<double>(s.partitions_loaded));
  counter("strata_group_load_seconds_total", "Time spent loading partitions of __consumer_offsets",
          static_cast<double>(s.load_time_ms_total) / 1e3);
  auto last = Family("strata_group_last_load_seconds", "How long the last load of a __consumer_offsets partition took",
                     MetricType::Gauge);
  Add(last, static_cast<double>(s.last_load_time_ms) / 1e3);
  out.push_back(std::move(last));

  auto latency = Family("strata_group_offset_commit_seconds",
                        "How long offset commits took to be written to the ISR (the last 1024)", MetricType::Summary);
  std::vector<int64_t> us = s.commit_latency_us;
  std::sort(us.begin(), us.end());
  prometheus::ClientMetric m;
  m.summary.sample_count = us.size();
  double sum = 0;
  for (int64_t v : us) sum += static_cast<double>(v);
  m.summary.sample_sum = sum / 1e6;
  for (double q : {0.5, 0.99, 1.0}) {
    prometheus::ClientMetric::Quantile quantile;
    quantile.quantile = q;
    quantile.value = us.empty() ? 0 : static_cast<double>(us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))]) / 1e6;
    m.summary.quantile.push_back(quantile);
  }
  latency.metric.push_back(std::move(m));
  out.push_back(std::move(latency));
  return out;
}

}  // namespace strata::server
