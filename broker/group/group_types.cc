#include "broker/group/group_types.h"

#include "absl/strings/match.h"

namespace strata::broker {

const char* GroupStateName(GroupState state) {
  switch (state) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Unknown";
}

const char* GroupTypeName(GroupType type) {
  switch (type) {
    case GroupType::kClassic: return "classic";
    case GroupType::kConsumer: return "consumer";
    case GroupType::kShare: return "share";
  }
  return "unknown";
}

std::optional<GroupState> ParseGroupState(absl::string_view name) {
  for (GroupState s : {GroupState::kEmpty, GroupState::kPreparingRebalance, GroupState::kCompletingRebalance,
                       GroupState::kStable, GroupState::kDead}) {
    if (absl::EqualsIgnoreCase(name, GroupStateName(s))) return s;
  }
  return std::nullopt;
}

}  // namespace strata::broker
