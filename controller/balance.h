#pragma once
// Balancing a running cluster (`strata cluster balance`): the fewest replica moves that
// leave every broker with an even share of the replicas and preferred leaderships, each
// partition as rack-diverse as before. A broker added to a running cluster gets its
// share of the existing partitions this way. Rules in controller/PLACEMENT.md
// ("Balancing"). Thread-safe (pure functions), deterministic.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "controller/placement.h"

namespace strata::controller {

// A partition by (topic, partition id) -> its replicas, preferred leader first.
using PartitionKeyOf = std::pair<std::string, int32_t>;
using ClusterAssignment = std::map<PartitionKeyOf, std::vector<int32_t>>;

// The assignment after balancing `current` over `brokers` (the usable ones; replicas on
// other brokers count for no broker and are moved to usable ones first):
//  1. replicas move, one at a time, from the broker holding most to the one holding
//     fewest, on a partition where the move keeps (or raises) the number of racks the
//     partition spans — until replica counts differ by at most one or no move is left;
//     a moved replica takes the position of the one it replaces;
//  2. preferred leaderships even out by reordering replicas (no data moves): the broker
//     that is first in most partitions swaps places with the replica of one of them
//     that is first in fewest, until those counts differ by at most one.
// Only partitions whose replica list changed are in the answer.
ClusterAssignment PlanBalance(const std::vector<PlacementBroker>& brokers, const ClusterAssignment& current);

}  // namespace strata::controller
