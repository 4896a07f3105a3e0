#pragma once
// Leader and ISR election for one partition, as pure functions over its state, so the
// rules are in one place and tested one by one:
//  * A replica that is unavailable (its broker fenced or shutting down, or its log dir
//    offline) leaves the ISR, unless it is the last ISR member: the ISR never becomes
//    empty, so the last replica known to hold every committed record stays named.
//  * The leader is the first replica, in replica order, that is available and in the
//    (new) ISR; the current leader keeps leading while it is available.
//  * With no such replica the partition has no leader (-1), unless unclean election is
//    allowed: then the first available replica leads with an ISR of itself (records
//    may be lost; Kafka's unclean.leader.election.enable).
//  * The preferred leader is the first replica; preferred election moves leadership
//    there when it is available and in the ISR.
// Thread-safe (stateless).

#include <functional>
#include <optional>

#include "controller/metadata_image.h"

namespace strata::controller {

// Whether a replica on broker b of this partition can serve.
using AvailabilityFn = std::function<bool(BrokerId broker, int replica_index)>;

// The change that takes unavailable replicas out of the ISR and moves leadership off
// them; nullopt when nothing changes.
std::optional<pb::PartitionChange> ElectAfterUnavailability(const pb::Partition& partition,
                                                            const AvailabilityFn& available, bool unclean);

// The change that makes the preferred replica leader, when it is available and in the
// ISR and does not lead yet; nullopt otherwise.
std::optional<pb::PartitionChange> ElectPreferred(const pb::Partition& partition, const AvailabilityFn& available);

// The change that gives a leaderless partition a leader again once a replica came back
// (clean: only from the ISR); nullopt when it has a leader or none can lead.
std::optional<pb::PartitionChange> ElectOfflinePartition(const pb::Partition& partition,
                                                         const AvailabilityFn& available, bool unclean);

}  // namespace strata::controller
