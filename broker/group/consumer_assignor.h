#pragma once
// The server-side assignors of KIP-848 consumer groups (`group.consumer.assignors`):
// functions from the members' subscriptions, the subscribed topics' partition counts and
// the current target assignment to the next target assignment.
//   uniform: each member gets partitions of the topics it subscribes to only, balanced
//     to within one partition where the subscriptions allow it; a partition stays with
//     its member of the current target unless balance needs it elsewhere (sticky), so
//     that a member joining or leaving moves only the partitions that must move.
//   range: per topic, its subscribers in member-id order take contiguous ranges (the
//     first `partitions % subscribers` one more), so that topics with the same
//     subscribers and partition counts (co-partitioned topics) are split alike.
// Racks are not used (Kafka's assignors use them only when replicas carry racks).
// Thread-safe (values and stateless functions).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace strata::broker {

// Partitions by topic id (16 bytes, as the metadata image keys topics).
using TopicPartitionSet = std::map<std::string, std::set<int32_t>>;
// member id -> its partitions.
using TargetAssignment = std::map<std::string, TopicPartitionSet>;

struct AssignorMember {
  std::string member_id;
  std::set<std::string> topics;  // the ids of the existing topics it subscribes to
};

struct AssignmentInput {
  std::vector<AssignorMember> members;
  std::map<std::string, int32_t> partitions;  // topic id -> partition count
  TargetAssignment current;                   // the current target (stickiness)
};

TargetAssignment AssignUniform(const AssignmentInput& input);
TargetAssignment AssignRange(const AssignmentInput& input);

using AssignorFn = TargetAssignment (*)(const AssignmentInput&);
inline constexpr char kUniformAssignor[] = "uniform";
inline constexpr char kRangeAssignor[] = "range";
// The assignor of that name; nullptr for a name Strata does not have.
AssignorFn FindAssignor(absl::string_view name);

// Number of partitions in a set.
int64_t PartitionCount(const TopicPartitionSet& partitions);

}  // namespace strata::broker
