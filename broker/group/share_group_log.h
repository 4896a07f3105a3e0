#pragma once
// A KIP-932 share group in `__consumer_offsets` (Strata's format,
// docs/consumer-offsets-format.md): the records that make a change to a share group
// (share_group.h's ShareGroupChanges) durable, and their replay when a coordinator loads
// the partition, so that a failover keeps the group epoch, every member, its epoch and
// its partitions. The values are the consumer groups' encodings (consumer_group_record.h):
//   key type 8   group          -> ConsumerGroupMetadataValue (group epoch, the subscribed
//                                  topics' partition counts; the assignment epoch is the
//                                  group epoch: a share group's assignment is computed
//                                  whenever the epoch moves)
//   key type 9   group, member  -> ConsumerMemberMetadataValue (rack, client, subscribed
//                                  topic names; the other fields unused)
//   key type 10  group, member  -> MemberAssignment (member epoch and partitions; no
//                                  revocation)
// A member's records are written when it changes, the group's when its epoch moves; a
// member that leaves gets tombstones for 9 and 10, a deleted group for all of them.
// Not thread-safe (values and stateless functions).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "broker/group/group_record.h"
#include "broker/group/group_types.h"
#include "broker/group/share_group.h"

namespace strata::broker {

std::vector<GroupLogRecord> ShareRecordsOf(const std::string& group_id, const ShareGroup& g,
                                           const ShareGroupChanges& changes);
std::vector<GroupLogRecord> ShareTombstonesOf(const std::string& group_id, const ShareGroup& g);

// Loading: applies one share group record (key types 8-10) in log order; a tombstone of
// the group's metadata empties it (the group was deleted). DataLoss for a value this
// build cannot read, or a member's assignment before its metadata.
absl::Status ApplyShareRecord(ShareGroup& g, const ConsumerGroupKey& key, const std::optional<std::string>& value);

}  // namespace strata::broker
