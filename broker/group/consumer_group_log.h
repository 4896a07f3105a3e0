#pragma once
// A KIP-848 consumer group in `__consumer_offsets`: the records that make a change to a
// group (consumer_group.h's ConsumerGroupChanges) durable, in Kafka's order, and the
// replay of those records that rebuilds the group when a coordinator loads the
// partition (consumer_group_record.h has the values' encodings, group_record.h the keys).
// Not thread-safe (values and stateless functions).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "broker/group/consumer_group.h"
#include "broker/group/group_record.h"
#include "broker/group/group_types.h"

namespace strata::broker {

// The records of `changes` to g (group_id): each changed member's metadata, the group's
// metadata when its epoch moved, every member's part of the target and the target's
// metadata when it moved, each changed member's current assignment; tombstones of the
// members removed. Empty when nothing persisted changed.
std::vector<GroupLogRecord> ConsumerRecordsOf(const std::string& group_id, const ConsumerGroup& g,
                                              const ConsumerGroupChanges& changes);

// Tombstones for every record of g: its members', the target's, the group's.
std::vector<GroupLogRecord> ConsumerTombstonesOf(const std::string& group_id, const ConsumerGroup& g);

// Loading: applies one record of a consumer group in log order. g starts empty; a
// tombstone of the group's metadata empties it again (the group was deleted). A value
// this build cannot read is DataLoss (the partition does not load).
absl::Status ApplyConsumerRecord(ConsumerGroup& g, const ConsumerGroupKey& key, const std::optional<std::string>& value);

// Once every record is applied: the state derived from them (static members, who holds
// each partition). DataLoss when two members hold one partition.
absl::Status FinishConsumerGroupLoad(ConsumerGroup& g);

}  // namespace strata::broker
