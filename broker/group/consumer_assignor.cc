#include "broker/group/consumer_assignor.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace strata::broker {
namespace {

// The members in member-id order: every assignor's choices are deterministic, so that a
// coordinator that computes the target again after a failover computes the same one.
std::vector<const AssignorMember*> InIdOrder(const AssignmentInput& input) {
  std::vector<const AssignorMember*> members;
  members.reserve(input.members.size());
  for (const AssignorMember& m : input.members) members.push_back(&m);
  std::sort(members.begin(), members.end(),
            [](const AssignorMember* a, const AssignorMember* b) { return a->member_id < b->member_id; });
  return members;
}

TargetAssignment EmptyTarget(const std::vector<const AssignorMember*>& members) {
  TargetAssignment target;
  for (const AssignorMember* m : members) target[m->member_id];
  return target;
}

// The uniform assignor's working state: who holds what, and how much.
class UniformBuilder {
 public:
  UniformBuilder(const AssignmentInput& input, std::vector<const AssignorMember*> members)
      : input_(input), members_(std::move(members)), target_(EmptyTarget(members_)) {
    for (const AssignorMember* m : members_) count_[m->member_id] = 0;  // the sort below only reads
  }

  TargetAssignment Build() && {
    KeepCurrent();
    AssignUnowned();
    while (MoveOne()) {
    }
    return std::move(target_);
  }

 private:
  bool Valid(const AssignorMember& m, const std::string& topic, int32_t partition) const {
    auto n = input_.partitions.find(topic);
    return n != input_.partitions.end() && partition >= 0 && partition < n->second && m.topics.count(topic) > 0;
  }

  void Give(const AssignorMember& m, const std::string& topic, int32_t partition) {
    target_[m.member_id][topic].insert(partition);
    ++count_[m.member_id];
  }

  // What each member has in the current target and may keep: a partition of a topic it
  // still subscribes to that still exists, and nobody else kept.
  void KeepCurrent() {
    for (const AssignorMember* m : members_) {
      auto current = input_.current.find(m->member_id);
      if (current == input_.current.end()) continue;
      for (const auto& [topic, partitions] : current->second) {
        for (int32_t p : partitions) {
          if (Valid(*m, topic, p) && owned_.insert({topic, p}).second) Give(*m, topic, p);
        }
      }
    }
  }

  // Every partition nobody holds goes to the subscriber that holds the fewest.
  void AssignUnowned() {
    for (const auto& [topic, n] : input_.partitions) {
      for (int32_t p = 0; p < n; ++p) {
        if (owned_.count({topic, p}) > 0) continue;
        const AssignorMember* fewest = nullptr;
        for (const AssignorMember* m : members_) {
          if (m->topics.count(topic) == 0) continue;
          if (fewest == nullptr || count_[m->member_id] < count_[fewest->member_id]) fewest = m;
        }
        if (fewest == nullptr) break;  // nobody subscribes to this topic
        owned_.insert({topic, p});
        Give(*fewest, topic, p);
      }
    }
  }

  // Moves one partition from a member to one that subscribes to its topic and holds at
  // least two fewer: the most loaded gives first, the least loaded takes first. False
  // once no such move is left (balanced to within one where subscriptions allow).
  bool MoveOne() {
    std::vector<const AssignorMember*> order = members_;
    std::stable_sort(order.begin(), order.end(), [&](const AssignorMember* a, const AssignorMember* b) {
      return count_.at(a->member_id) > count_.at(b->member_id);
    });
    for (const AssignorMember* from : order) {
      for (auto to = order.rbegin(); to != order.rend() && count_[(*to)->member_id] + 2 <= count_[from->member_id];
           ++to) {
        TopicPartitionSet& held = target_[from->member_id];
        for (auto topic = held.rbegin(); topic != held.rend(); ++topic) {
          if (topic->second.empty() || (*to)->topics.count(topic->first) == 0) continue;
          int32_t p = *topic->second.rbegin();
          std::string topic_id = topic->first;
          topic->second.erase(p);
          if (topic->second.empty()) held.erase(topic_id);
          --count_[from->member_id];
          Give(**to, topic_id, p);
          return true;
        }
      }
    }
    return false;
  }

  const AssignmentInput& input_;
  const std::vector<const AssignorMember*> members_;
  TargetAssignment target_;
  std::map<std::string, int64_t> count_;
  std::set<std::pair<std::string, int32_t>> owned_;
};

}  // namespace

TargetAssignment AssignUniform(const AssignmentInput& input) {
  return UniformBuilder(input, InIdOrder(input)).Build();
}

TargetAssignment AssignRange(const AssignmentInput& input) {
  std::vector<const AssignorMember*> members = InIdOrder(input);
  TargetAssignment target = EmptyTarget(members);
  for (const auto& [topic, n] : input.partitions) {
    std::vector<const AssignorMember*> subscribers;
    for (const AssignorMember* m : members) {
      if (m->topics.count(topic) > 0) subscribers.push_back(m);
    }
    if (subscribers.empty()) continue;
    const int32_t k = static_cast<int32_t>(subscribers.size());
    int32_t next = 0;
    for (int32_t i = 0; i < k; ++i) {
      int32_t take = n / k + (i < n % k ? 1 : 0);
      for (int32_t p = next; p < next + take; ++p) target[subscribers[i]->member_id][topic].insert(p);
      next += take;
    }
    ABSL_CHECK_EQ(next, n) << "range split every partition of the topic";
  }
  return target;
}

AssignorFn FindAssignor(absl::string_view name) {
  if (name == kUniformAssignor) return &AssignUniform;
  if (name == kRangeAssignor) return &AssignRange;
  return nullptr;
}

int64_t PartitionCount(const TopicPartitionSet& partitions) {
  int64_t n = 0;
  for (const auto& [topic, ps] : partitions) n += static_cast<int64_t>(ps.size());
  return n;
}

}  // namespace strata::broker
