#pragma once
// The share coordinator's rules for one partition of `__share_group_state` (KIP-932), with
// no lock, clock or I/O: what the state APIs answer and what each must write before it
// is answered. The coordinator (5c, docs/groups-plan.md) calls these under its lock,
// appends `write` (share_state_record.h) acks=all, and applies it with Apply once it is
// committed; a load applies every record read, in order.
//
// Fencing: a request with a leader epoch below the key's is FENCED_LEADER_EPOCH (the
// partition's leadership moved on); a write or initialization with a state epoch below
// the key's is FENCED_STATE_EPOCH (the state was reset meanwhile). A read with a higher
// leader epoch records it, so that the leader that lost the partition can no longer
// write over what its successor read.
// Not thread-safe (values and functions).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker/share/share_state_record.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

using ShareStates = std::map<ShareStateKey, ShareSnapshotValue>;

// A record to append: the key's new snapshot, or a tombstone (nullopt).
struct ShareStateWrite {
  ShareStateKey key;
  std::optional<ShareSnapshotValue> value;
};

struct ShareStateOutcome {
  proto::kafka::ErrorCode error = proto::kafka::ErrorCode::kNone;
  std::string message;
  std::optional<ShareStateWrite> write;  // to append, and Apply once committed
  std::optional<ShareSnapshotValue> state;  // what a read answers (nullopt: never initialized)
};

// InitializeShareGroupState: the key's state starts anew at start_offset with state_epoch
// (which must not be below the key's, if it has one: Kafka's rule).
ShareStateOutcome InitializeShareState(const ShareStates& states, const ShareStateKey& key, int32_t state_epoch,
                                       int64_t start_offset, int64_t now_ms);
// WriteShareGroupState: the partition leader's state, whole (Strata's leaders send the
// whole in-flight state every time).
ShareStateOutcome WriteShareState(const ShareStates& states, const ShareStateKey& key, int32_t state_epoch,
                                  int32_t leader_epoch, const SharePartitionState& state, int64_t now_ms);
// ReadShareGroupState: the key's state as of leader_epoch; INVALID_REQUEST for a key never
// initialized (Kafka's answer).
ShareStateOutcome ReadShareState(const ShareStates& states, const ShareStateKey& key, int32_t leader_epoch,
                                 int64_t now_ms);
// ReadShareGroupStateSummary: the key's state as it stands (nullopt: never initialized),
// writing nothing; a leader epoch below the key's is fenced (-1: any).
ShareStateOutcome ReadShareStateSummary(const ShareStates& states, const ShareStateKey& key, int32_t leader_epoch);
// DeleteShareGroupState: a tombstone when the key has a state.
ShareStateOutcome DeleteShareState(const ShareStates& states, const ShareStateKey& key);

// A committed (or loaded) record.
void ApplyShareStateWrite(ShareStates& states, const ShareStateWrite& write);

}  // namespace strata::broker
