#pragma once
// KIP-392, Kafka's RackAwareReplicaSelector: a consumer that says its rack (client.rack,
// Fetch v11+ rack_id) is sent to a replica in that rack. The leader answers the first
// fetch with preferred_read_replica and no records; the consumer then fetches from that
// follower, which serves it up to its own high watermark. Enabled by
// replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector.
// Thread-safe.

#include <cstdint>
#include <string>

#include "broker/handlers/request_context.h"
#include "broker/replication/partition.h"

namespace strata::broker {

inline constexpr char kRackAwareReplicaSelector[] = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

// The replica a consumer in client_rack should read from: -1 for the leader itself
// (it shares the rack, the rack is empty, or no in-sync, unfenced follower is there),
// else the first such follower in replica order.
int32_t PreferredReadReplica(const KafkaApisContext& context, const PartitionState& state,
                             const std::string& client_rack);

}  // namespace strata::broker
