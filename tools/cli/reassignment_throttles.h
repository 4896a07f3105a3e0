#pragma once
// Replication throttles for a reassignment, as kafka-reassign-partitions.sh sets them
// (`strata partitions reassign execute --throttle`, `strata cluster balance --throttle`)
// and clears them (`verify`, once every partition of the plan completed):
//  * each broker of the plan (old and new replicas) gets leader.replication.throttled.rate
//    and follower.replication.throttled.rate = the throttle in bytes per second;
//  * each topic gets leader.replication.throttled.replicas = its moving partitions'
//    current replicas and follower.replication.throttled.replicas = the replicas they
//    gain (partition:broker,...).
// Replicas in the ISR are never throttled (broker/replication/replication_quota.h).
// Not thread-safe: one command runs, on main's thread.

#include <cstdint>
#include <string>
#include <vector>

#include "tools/cli/command.h"
#include "tools/cli/reassignment_plan.h"

namespace strata::cli {

// The AlterConfigs request that sets the throttles of `plan` (topics: where the
// partitions are now).
av1::AlterConfigsRequest ThrottleRequest(const std::vector<PlannedPartition>& plan,
                                         const av1::DescribeTopicsResponse& topics, int64_t bytes_per_second);
// The AlterConfigs request that removes them: the rates from every broker, the
// throttled replicas from the plan's topics.
av1::AlterConfigsRequest ClearThrottlesRequest(const std::vector<PlannedPartition>& plan,
                                               const av1::DescribeClusterResponse& cluster);

// Sends one of them; false with *error when a resource was refused.
bool AlterThrottles(const av1::AlterConfigsRequest& request, const Context& ctx, std::string* error);

}  // namespace strata::cli
