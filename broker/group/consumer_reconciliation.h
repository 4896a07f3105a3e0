#pragma once
// Reconciliation of a KIP-848 consumer group member (Kafka's CurrentAssignmentBuilder):
// from what the member holds now and its part of the target assignment, the member's
// next state. Revoke before assign: a member that must give partitions up keeps its
// epoch and is told only the partitions it keeps (UnrevokedPartitions) until a heartbeat
// shows that it no longer owns the revoked ones; then it moves to the target's epoch and
// is given the partitions of its target that nobody else holds. Partitions another
// member has not released yet are given later (UnreleasedPartitions), so that no
// partition is ever held by two members at once.
// Thread-safe (values and stateless functions).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "broker/group/consumer_assignor.h"

namespace strata::broker {

// Kafka's MemberState names: "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS".
// The numbers are written in __consumer_offsets (consumer_group_record.h).
enum class ConsumerMemberState : int8_t { kStable = 0, kUnrevokedPartitions = 1, kUnreleasedPartitions = 2 };
const char* ConsumerMemberStateName(ConsumerMemberState state);

struct MemberAssignment {
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  ConsumerMemberState state = ConsumerMemberState::kStable;
  TopicPartitionSet assigned;            // what the member may use
  TopicPartitionSet pending_revocation;  // what it must give up
  bool operator==(const MemberAssignment&) const = default;

  // Moves the member to `epoch` (the previous epoch then is its current one).
  void SetEpoch(int32_t epoch) {
    if (epoch != member_epoch) previous_member_epoch = member_epoch;
    member_epoch = epoch;
  }
};

// The epoch of the member that holds (topic, partition) now, assigned or pending its
// revocation; -1 when nobody does.
using PartitionEpochFn = absl::FunctionRef<int32_t(const std::string& topic, int32_t partition)>;

// The member's next state toward `target` (its part of the target assignment of
// `target_epoch`). owned: the partitions its heartbeat says it owns (nullopt: the
// heartbeat did not say, so it is taken to own what it was given).
MemberAssignment Reconcile(const MemberAssignment& member, int32_t target_epoch, const TopicPartitionSet& target,
                           const std::optional<TopicPartitionSet>& owned, PartitionEpochFn partition_epoch);

}  // namespace strata::broker
