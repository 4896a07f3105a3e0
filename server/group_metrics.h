#pragma once
// GroupMetrics: a broker's group coordinator for Prometheus, read at every scrape
// (strata-server registers it on metrics.listener for brokers):
//   strata_groups{state="Empty"|"PreparingRebalance"|"CompletingRebalance"|"Stable"}
//                                                groups this broker coordinates, by state
//   strata_group_rebalances_total                generations completed (rebalances)
//   strata_group_offset_commits_total            partitions committed
//   strata_group_offset_commit_requests_total    OffsetCommit requests
//   strata_group_offset_commit_seconds           write latency of the last 1024 commits
//                                                (summary: 0.5, 0.99, 1 quantiles)
//   strata_group_offsets_expired_total           offsets removed by offsets.retention.minutes
//   strata_group_partitions_loaded_total         __consumer_offsets partitions loaded
//   strata_group_load_seconds_total, strata_group_last_load_seconds
//                                                time spent loading them (the coordinator
//                                                answers COORDINATOR_LOAD_IN_PROGRESS meanwhile)
// Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "broker/group/group_coordinator.h"

namespace strata::server {

class GroupMetrics final : public prometheus::Collectable {
 public:
  explicit GroupMetrics(const broker::GroupCoordinator& coordinator) : coordinator_(coordinator) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const broker::GroupCoordinator& coordinator_;
};

}  // namespace strata::server
