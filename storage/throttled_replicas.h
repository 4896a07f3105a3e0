#pragma once
// The throttled-replicas topic settings (leader.replication.throttled.replicas,
// follower.replication.throttled.replicas; KIP-73): "*" for every replica of the topic,
// or a comma-separated list of partition:broker. Empty: none.
// Thread-safe (functions).

#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace strata::storage {

struct ThrottledReplicas {
  bool all = false;
  std::set<std::pair<int32_t, int32_t>> replicas;  // (partition, broker)
  // The partitions this names for broker_id.
  std::set<int32_t> PartitionsOf(int32_t broker_id) const;
  bool operator==(const ThrottledReplicas&) const = default;
};

// INVALID_ARGUMENT naming the first entry that is neither "*" nor partition:broker.
absl::StatusOr<ThrottledReplicas> ParseThrottledReplicas(const std::string& value);

}  // namespace strata::storage
