#pragma once
// Replica placement for CreateTopics and CreatePartitions: which brokers hold each new
// partition and which of them is its preferred leader, evening out the replicas and
// leaderships the brokers already carry and spreading each partition over racks. Also
// the checks on a replica assignment that a client gives explicitly.
// The rules and the reasons behind them are in controller/PLACEMENT.md.
// Thread-safe (pure functions). Deterministic: the same request gives the same answer.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace strata::controller {

// A broker that may receive new replicas: registered and unfenced.
struct PlacementBroker {
  int32_t id = 0;
  // broker.rack; unset and "" both mean the broker has no rack.
  std::optional<std::string> rack;
};

// What a broker already holds, over all topics.
struct BrokerLoad {
  int64_t replicas = 0;
  int64_t leaders = 0;  // partitions whose preferred leader it is
};

struct PlacementRequest {
  std::vector<PlacementBroker> brokers;  // in any order; ids must be distinct
  int32_t partition_count = 0;           // new partitions to place
  int32_t replication_factor = 0;
  // The id of the first new partition: 0 for CreateTopics, the topic's current partition
  // count for CreatePartitions.
  int32_t first_partition_id = 0;
  // By broker id; a broker missing here holds nothing yet. Loads of brokers that are not
  // in `brokers` are ignored.
  std::map<int32_t, BrokerLoad> existing_load;
};

// Partition id -> broker ids of its replicas; the first replica is the preferred leader.
using ReplicaAssignment = std::map<int32_t, std::vector<int32_t>>;

// Places `partition_count` partitions with ids first_partition_id, first_partition_id + 1,
// ... Each partition gets `replication_factor` distinct brokers. Replicas go to the
// brokers that hold the fewest (existing ones included), preferred leaders to those that
// lead the fewest, so a fresh cluster ends with replica and leader counts that differ by
// at most one between brokers. When every broker has a rack, a partition's replicas go
// to min(replication_factor, racks) distinct racks; that takes precedence over evenness.
// Errors: INVALID_ARGUMENT for a request that is wrong whatever the cluster looks like
// (fewer than 1 partition, replication factor below 1, negative or overflowing partition
// ids, a broker listed twice); FAILED_PRECONDITION when the cluster cannot take it (a
// replication factor larger than the number of brokers, racks on only some brokers).
absl::StatusOr<ReplicaAssignment> PlaceReplicas(const PlacementRequest& request);

// Checks a client's explicit assignment (CreateTopics' assignments, CreatePartitions'
// new assignments): at least one partition; ids consecutive from `first_partition_id`;
// every partition with the same number of replicas, at least one; no broker twice in a
// partition; every broker in `known_broker_ids`. INVALID_ARGUMENT naming the first
// partition and broker at fault (Kafka's INVALID_REPLICA_ASSIGNMENT).
absl::Status ValidateReplicaAssignment(const ReplicaAssignment& assignment,
                                       const std::set<int32_t>& known_broker_ids,
                                       int32_t first_partition_id = 0);

}  // namespace strata::controller
