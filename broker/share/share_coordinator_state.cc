#include "broker/share/share_coordinator_state.h"

#include "absl/strings/str_cat.h"

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;

ShareStateOutcome Refuse(ErrorCode error, std::string message) {
  ShareStateOutcome out;
  out.error = error;
  out.message = std::move(message);
  return out;
}

const ShareSnapshotValue* Find(const ShareStates& states, const ShareStateKey& key) {
  auto it = states.find(key);
  return it == states.end() ? nullptr : &it->second;
}

ShareStateOutcome FencedLeader(const ShareSnapshotValue& current, int32_t leader_epoch) {
  return Refuse(ErrorCode::kFencedLeaderEpoch,
                absl::StrCat("leader epoch ", leader_epoch, " is below the state's ", current.leader_epoch));
}

// The key's next snapshot: its epochs and creation time carried over, or new.
ShareSnapshotValue Next(const ShareSnapshotValue* current, int64_t now_ms) {
  ShareSnapshotValue v;
  if (current != nullptr) {
    v = *current;
    v.snapshot_epoch = current->snapshot_epoch + 1;
  } else {
    v.create_timestamp_ms = now_ms;
  }
  v.write_timestamp_ms = now_ms;
  return v;
}

}  // namespace

ShareStateOutcome InitializeShareState(const ShareStates& states, const ShareStateKey& key, int32_t state_epoch,
                                       int64_t start_offset, int64_t now_ms) {
  const ShareSnapshotValue* current = Find(states, key);
  if (current != nullptr && state_epoch < current->state_epoch) {
    return Refuse(ErrorCode::kFencedStateEpoch,
                  absl::StrCat("state epoch ", state_epoch, " is below the state's ", current->state_epoch));
  }
  if (start_offset < 0) return Refuse(ErrorCode::kInvalidRequest, absl::StrCat("start offset ", start_offset));
  ShareSnapshotValue v = Next(current, now_ms);
  v.state_epoch = state_epoch;
  v.state = SharePartitionState{start_offset, {}};
  ShareStateOutcome out;
  out.write = ShareStateWrite{key, v};
  return out;
}

ShareStateOutcome WriteShareState(const ShareStates& states, const ShareStateKey& key, int32_t state_epoch,
                                  int32_t leader_epoch, const SharePartitionState& state, int64_t now_ms) {
  const ShareSnapshotValue* current = Find(states, key);
  if (current != nullptr && leader_epoch < current->leader_epoch) return FencedLeader(*current, leader_epoch);
  if (current != nullptr && state_epoch < current->state_epoch) {
    return Refuse(ErrorCode::kFencedStateEpoch,
                  absl::StrCat("state epoch ", state_epoch, " is below the state's ", current->state_epoch));
  }
  if (absl::Status s = CheckShareState(state); !s.ok()) {
    return Refuse(ErrorCode::kInvalidRequest, std::string(s.message()));
  }
  ShareSnapshotValue v = Next(current, now_ms);
  v.state_epoch = state_epoch;
  v.leader_epoch = leader_epoch;
  v.state = state;
  ShareStateOutcome out;
  out.write = ShareStateWrite{key, v};
  return out;
}

ShareStateOutcome ReadShareState(const ShareStates& states, const ShareStateKey& key, int32_t leader_epoch,
                                 int64_t now_ms) {
  const ShareSnapshotValue* current = Find(states, key);
  ShareStateOutcome out;
  if (current == nullptr) {  // never initialized: the partition's leader initializes it first (as Kafka)
    return Refuse(ErrorCode::kInvalidRequest, absl::StrCat("read of uninitialized share partition ",
                                                           ShareCoordinatorKey(key)));
  }
  if (leader_epoch < current->leader_epoch) return FencedLeader(*current, leader_epoch);
  out.state = *current;
  if (leader_epoch > current->leader_epoch) {  // recorded before it is answered: fences the old leader
    ShareSnapshotValue v = Next(current, now_ms);
    v.leader_epoch = leader_epoch;
    out.write = ShareStateWrite{key, v};
    out.state = v;
  }
  return out;
}

ShareStateOutcome ReadShareStateSummary(const ShareStates& states, const ShareStateKey& key, int32_t leader_epoch) {
  const ShareSnapshotValue* current = Find(states, key);
  ShareStateOutcome out;
  if (current == nullptr) return out;
  if (leader_epoch >= 0 && leader_epoch < current->leader_epoch) return FencedLeader(*current, leader_epoch);
  out.state = *current;
  return out;
}

ShareStateOutcome DeleteShareState(const ShareStates& states, const ShareStateKey& key) {
  ShareStateOutcome out;
  if (Find(states, key) != nullptr) out.write = ShareStateWrite{key, std::nullopt};
  return out;
}

void ApplyShareStateWrite(ShareStates& states, const ShareStateWrite& write) {
  if (write.value) {
    states[write.key] = *write.value;
  } else {
    states.erase(write.key);
  }
}

}  // namespace strata::broker
