#pragma once
// Partition reassignment (KIP-455, as KRaft's controller keeps it): the decisions of
// AlterPartitionReassignments, and the rule that completes a reassignment.
//  * A reassignment to target T of a partition with replicas R records
//    replicas = T then R − T (in R's order), adding = T − R, removing = R − T; the ISR and
//    the leader stay. The adding replicas' brokers open the partition and follow its
//    leader; the leader admits them to the ISR once they caught up (AlterPartition).
//  * It completes in the change that puts the last adding replica in the ISR: replicas
//    become T, the removing replicas leave the ISR, and a leader being removed hands
//    leadership to the first replica of T that is available and in the ISR. Brokers no
//    longer named delete the partition. One whose adding replicas are in the ISR already
//    (only replicas removed, or the order changed) completes in the same change.
//  * A reassignment of a partition being reassigned starts from its current replicas (so
//    replicas still being added and not in the new target are removed).
//  * Cancelling (target null) goes back to R − adding, the ISR without the adding
//    replicas; the leader, if it was being added, moves to the first such replica that
//    is available and in the ISR.
// Refused with Kafka's errors, nothing written: INVALID_REPLICA_ASSIGNMENT for an empty
// target, a broker named twice, an unregistered broker, a new replica on a fenced or
// shutting-down broker or one with no online log dir, a cancel that would leave no in-sync
// replica; INVALID_REPLICATION_FACTOR when the factor would change and the request does
// not allow it (KIP-860); NO_REASSIGNMENT_IN_PROGRESS to cancel none.
// Thread-safe (stateless).

#include <optional>
#include <vector>

#include "controller/metadata_image.h"
#include "controller/plan.h"

namespace strata::controller {

// Whether a reassignment of p is in progress.
bool Reassigning(const pb::Partition& p);

// AlterPartitionReassignments for one partition of `topic`: to `target`, or nullopt to
// cancel. No records when the partition already has the target and none is in progress.
Plan PlanReassignment(const MetadataImage& image, const TopicState& topic, const pb::Partition& p,
                      const std::optional<std::vector<BrokerId>>& target, bool allow_replication_factor_change);

// `next` is partition p as a change about to be written leaves it (its ISR moved): when
// that completes p's reassignment, next becomes the completed partition and the change
// that carries it all is returned; else nullopt (next unchanged).
std::optional<pb::PartitionChange> CompleteReassignment(const MetadataImage& image, const pb::Partition& p,
                                                        pb::Partition& next);

// The change that turns partition `from` into `to` (same topic and partition): every
// field that differs.
pb::PartitionChange ChangeBetween(const pb::Partition& from, const pb::Partition& to);

}  // namespace strata::controller
