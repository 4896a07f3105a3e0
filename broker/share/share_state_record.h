#pragma once
// The records of `__share_group_state` (Strata's format, docs/share-group-state-format.md):
// one share partition's persisted state, keyed by (group, topic id, partition).
//   key    int16 type (0: share snapshot), group id (string), topic id (16 bytes),
//          partition (int32)
//   value  int16 version (0), snapshot epoch, state epoch, leader epoch (int32 each),
//          start offset, create and write timestamps (int64 each), state batches
//          (int32 count; first and last offset int64, delivery state int8, delivery
//          count int16)
// Every write is a whole snapshot (Kafka's ShareSnapshot; Strata writes no ShareUpdate
// deltas): the state is bounded by the in-flight window, and the topic is compacted, so
// the latest snapshot of a key is all a loading coordinator reads. A deleted share
// partition's key gets a tombstone (null value).
// Thread-safe (values and stateless functions).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "broker/share/share_partition.h"

namespace strata::broker {

inline constexpr char kShareGroupStateTopic[] = "__share_group_state";

struct ShareStateKey {
  std::string group_id;
  std::string topic_id;  // 16 bytes
  int32_t partition = 0;
  auto operator<=>(const ShareStateKey&) const = default;
};

struct ShareSnapshotValue {
  int32_t snapshot_epoch = 0;  // counts the snapshots of the key
  int32_t state_epoch = 0;     // bumps when the state is reset or initialized again
  int32_t leader_epoch = -1;   // of the partition, when its leader wrote this
  int64_t create_timestamp_ms = 0;
  int64_t write_timestamp_ms = 0;
  SharePartitionState state;
  bool operator==(const ShareSnapshotValue&) const = default;
};

std::string EncodeShareStateKey(const ShareStateKey& key);
absl::StatusOr<ShareStateKey> DecodeShareStateKey(absl::string_view bytes);
// The share coordinator's key of a share partition, as FindCoordinator (key type 2) names
// it and Kafka hashes it to its partition of `__share_group_state` (Kafka's placement:
// Utils.abs of the key's Java String.hashCode, modulo the partition count):
// "group:topicId:partition", the topic id in Kafka's text (URL-safe base64, no padding).
std::string ShareCoordinatorKey(const ShareStateKey& key);
// INVALID_ARGUMENT unless it has that form (the group may itself hold ':').
absl::StatusOr<ShareStateKey> ParseShareCoordinatorKey(absl::string_view text);
int32_t ShareCoordinatorPartitionFor(absl::string_view coordinator_key, int32_t partitions);
int32_t ShareStatePartitionFor(const ShareStateKey& key, int32_t partitions);

std::string EncodeShareSnapshotValue(const ShareSnapshotValue& value);
// Refuses a value of another version, trailing bytes, offsets out of order or
// overlapping, a batch before the start offset, and delivery states Kafka does not define.
absl::StatusOr<ShareSnapshotValue> DecodeShareSnapshotValue(absl::string_view bytes);

}  // namespace strata::broker
