#include "broker/group/consumer_reconciliation.h"

#include <set>

namespace strata::broker {
namespace {

// Whether the member still owns one of `revoking`: always when its heartbeat did not
// say what it owns.
bool OwnsAnyOf(const std::optional<TopicPartitionSet>& owned, const TopicPartitionSet& revoking) {
  if (!owned) return true;
  for (const auto& [topic, partitions] : *owned) {
    auto it = revoking.find(topic);
    if (it == revoking.end()) continue;
    for (int32_t p : partitions) {
      if (it->second.count(p) > 0) return true;
    }
  }
  return false;
}

MemberAssignment NextAssignment(const MemberAssignment& member, int32_t target_epoch, const TopicPartitionSet& target,
                                const std::optional<TopicPartitionSet>& owned, PartitionEpochFn partition_epoch) {
  TopicPartitionSet kept, revoking, adding;
  bool unreleased = false;
  std::set<std::string> topics;
  for (const auto& [topic, ps] : target) topics.insert(topic);
  for (const auto& [topic, ps] : member.assigned) topics.insert(topic);
  static const std::set<int32_t> kNone;
  for (const std::string& topic : topics) {
    auto t = target.find(topic);
    auto a = member.assigned.find(topic);
    const std::set<int32_t>& wanted = t == target.end() ? kNone : t->second;
    const std::set<int32_t>& held = a == member.assigned.end() ? kNone : a->second;
    for (int32_t p : held) (wanted.count(p) > 0 ? kept : revoking)[topic].insert(p);
    for (int32_t p : wanted) {
      if (held.count(p) > 0) continue;
      if (partition_epoch(topic, p) == -1) {
        adding[topic].insert(p);
      } else {
        unreleased = true;  // another member (or this one's revocation) still holds it
      }
    }
  }
  MemberAssignment next = member;
  if (!revoking.empty() && OwnsAnyOf(owned, revoking)) {
    // Revoke first: the epoch stays until the member shows it gave them up.
    next.state = ConsumerMemberState::kUnrevokedPartitions;
    next.assigned = std::move(kept);
    next.pending_revocation = std::move(revoking);
    return next;
  }
  for (auto& [topic, ps] : adding) kept[topic].insert(ps.begin(), ps.end());
  next.SetEpoch(target_epoch);
  next.state = unreleased ? ConsumerMemberState::kUnreleasedPartitions : ConsumerMemberState::kStable;
  next.assigned = std::move(kept);
  next.pending_revocation.clear();
  return next;
}

}  // namespace

const char* ConsumerMemberStateName(ConsumerMemberState state) {
  switch (state) {
    case ConsumerMemberState::kStable:
      return "STABLE";
    case ConsumerMemberState::kUnrevokedPartitions:
      return "UNREVOKED_PARTITIONS";
    case ConsumerMemberState::kUnreleasedPartitions:
      return "UNRELEASED_PARTITIONS";
  }
  return "UNKNOWN";
}

MemberAssignment Reconcile(const MemberAssignment& member, int32_t target_epoch, const TopicPartitionSet& target,
                           const std::optional<TopicPartitionSet>& owned, PartitionEpochFn partition_epoch) {
  switch (member.state) {
    case ConsumerMemberState::kStable:
      if (member.member_epoch == target_epoch) return member;
      return NextAssignment(member, target_epoch, target, owned, partition_epoch);
    case ConsumerMemberState::kUnrevokedPartitions:
      // Waits until its heartbeat no longer lists a partition it must give up.
      if (OwnsAnyOf(owned, member.pending_revocation)) return member;
      return NextAssignment(member, target_epoch, target, owned, partition_epoch);
    case ConsumerMemberState::kUnreleasedPartitions:
      // Tries again: another member may have released what it waits for.
      return NextAssignment(member, target_epoch, target, owned, partition_epoch);
  }
  return member;
}

}  // namespace strata::broker
