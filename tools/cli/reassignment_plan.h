#pragma once
// A reassignment plan as kafka-reassign-partitions.sh reads and writes it:
//   {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3],
//                               "log_dirs":["any","any","any"]}, ...]}
// log_dirs is optional and may only say "any" (moving a replica to another dir of its
// broker is AlterReplicaLogDirs' work, not a reassignment's).
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "admin.pb.h"

namespace strata::cli {

struct PlannedPartition {
  std::string topic;
  int32_t partition = 0;
  std::vector<int32_t> replicas;
  bool operator==(const PlannedPartition&) const = default;
};

// INVALID_ARGUMENT naming what is wrong: not JSON, another version, a partition without
// topic, partition or replicas, a partition twice, a log dir other than "any".
absl::StatusOr<std::vector<PlannedPartition>> ParsePlan(const std::string& text);
absl::StatusOr<std::vector<PlannedPartition>> ReadPlan(const std::string& path);
std::string PlanJson(const std::vector<PlannedPartition>& plan);

// The plan's partitions as they are now (DescribeTopics' replicas, without those a
// reassignment in progress adds): the plan to roll back with. Partitions the description
// lacks are left out.
std::vector<PlannedPartition> CurrentAssignment(const std::vector<PlannedPartition>& plan,
                                                const admin::v1::DescribeTopicsResponse& topics);

}  // namespace strata::cli
