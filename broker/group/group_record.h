#pragma once
// The records a group coordinator keeps in its partition of `__consumer_offsets`:
// Strata's own format (docs/consumer-offsets-format.md has the byte layout), one key per
// committed offset and one per group, so that compaction keeps the latest of each and a
// tombstone (null value) removes it.
//   key:   int16 key type (1 offset, 2 group, 3-7 a consumer group's, 8-10 a share
//          group's) | string group | (offset) string topic, int32 partition |
//          (4, 6, 7, 9, 10) string member
//   value: int16 version (0) | the fields of OffsetValue or GroupValue
// Strings are int16-length-prefixed, bytes int32-length-prefixed, big-endian throughout.
// A reader refuses a key type or value version it does not know (the partition does not
// load: nothing is served from a state it cannot read).
// Thread-safe (values and stateless functions).

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/kafka/wire.h"

namespace strata::broker {

inline constexpr char kOffsetsTopic[] = "__consumer_offsets";

struct OffsetKey {
  std::string group_id;
  std::string topic;
  int32_t partition = 0;
  bool operator==(const OffsetKey&) const = default;
};

struct GroupKey {
  std::string group_id;
  bool operator==(const GroupKey&) const = default;
};

// The keys of a KIP-848 consumer group's records (consumer_group_record.h has their
// values): the group's metadata (3) and target metadata (5) name the group, a member's
// metadata (4), target (6) and current assignment (7) the member too. A KIP-932 share
// group's (share_group_log.h) the same way: the group's metadata (8), a member's
// metadata (9) and assignment (10).
enum class ConsumerRecordType : int16_t {
  kGroupMetadata = 3,
  kMemberMetadata = 4,
  kTargetMetadata = 5,
  kTargetMember = 6,
  kCurrentAssignment = 7,
  kShareGroupMetadata = 8,
  kShareMemberMetadata = 9,
  kShareMemberAssignment = 10,
};
// Whether a key of this type is a share group's (8-10).
inline bool IsShareRecordType(ConsumerRecordType type) {
  return type >= ConsumerRecordType::kShareGroupMetadata && type <= ConsumerRecordType::kShareMemberAssignment;
}
struct ConsumerGroupKey {
  ConsumerRecordType type = ConsumerRecordType::kGroupMetadata;
  std::string group_id;
  std::string member_id;  // empty for types 3 and 5
  bool operator==(const ConsumerGroupKey&) const = default;
};

using GroupRecordKey = std::variant<OffsetKey, GroupKey, ConsumerGroupKey>;

// A committed offset.
struct OffsetValue {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp_ms = 0;
  int64_t expire_timestamp_ms = -1;  // OffsetCommit v2-v4's retention_time_ms; -1: the broker's retention
  bool operator==(const OffsetValue&) const = default;
};

// A group as of its last completed rebalance (or becoming empty).
struct GroupValue {
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t rebalance_timeout_ms = 0;
    int32_t session_timeout_ms = 0;
    std::string subscription;  // the member's metadata for the selected protocol
    std::string assignment;
    bool operator==(const Member&) const = default;
  };
  std::string protocol_type;  // empty: offsets only (no group management)
  int32_t generation_id = 0;
  std::optional<std::string> protocol_name;
  std::optional<std::string> leader_id;
  int64_t state_timestamp_ms = 0;  // when the group reached this state
  std::vector<Member> members;
  bool operator==(const GroupValue&) const = default;
};

std::string EncodeGroupRecordKey(const GroupRecordKey& key);
std::string EncodeOffsetValue(const OffsetValue& value);
std::string EncodeGroupValue(const GroupValue& value);

absl::StatusOr<GroupRecordKey> DecodeGroupRecordKey(absl::string_view bytes);

// For the values' decoders: the leading int16 version must be `version`; nothing may
// follow the last field.
absl::Status ReadRecordVersion(proto::kafka::Reader& r, int16_t version, absl::string_view what);
absl::Status RecordFullyRead(const proto::kafka::Reader& r, absl::string_view what);
absl::StatusOr<OffsetValue> DecodeOffsetValue(absl::string_view bytes);
absl::StatusOr<GroupValue> DecodeGroupValue(absl::string_view bytes);

// Java's String.hashCode of text read as UTF-8 (over its UTF-16 code units; an invalid
// byte counts as U+FFFD, as Java decodes it): what Kafka hashes coordinator keys with.
int32_t JavaStringHashCode(absl::string_view text);

// The partition of __consumer_offsets that holds group_id (and of __transaction_state
// that holds a transactional id): the Java hashCode of the id with its sign bit cleared,
// modulo the partition count. Kafka takes Utils.abs(hashCode) instead: the same partition
// for a non-negative hash, another one for a negative hash. Strata's placement stays as
// it is, because a change would leave existing groups' records in partitions whose
// coordinator no longer serves them (docs/consumer-offsets-format.md); placements new
// since (the share coordinator's, share_state_record.h) are Kafka's.
int32_t OffsetsPartitionFor(absl::string_view group_id, int32_t partitions);

}  // namespace strata::broker
