#pragma once
// The records of a KIP-848 consumer group in `__consumer_offsets` (Strata's format,
// docs/consumer-offsets-format.md; the keys' layout is group_record.h's): what a
// coordinator that loads the partition needs to go on where the last one stopped, every
// member keeping its epoch and partitions.
//   key type 3  group                  -> ConsumerGroupMetadataValue (group epoch, the
//                                          subscribed topics' partition counts)
//   key type 4  group, member          -> ConsumerMemberMetadataValue (subscription,
//                                          instance and rack ids, client, timeouts)
//   key type 5  group                  -> ConsumerTargetMetadataValue (assignment epoch,
//                                          assignor)
//   key type 6  group, member          -> the member's part of the target assignment
//   key type 7  group, member          -> ConsumerCurrentAssignmentValue (epochs, state,
//                                          assigned, pending revocation)
// Values start with an int16 version (0). Written in Kafka's order (member metadata,
// group metadata, target, current assignment) in one batch per change; a member that
// leaves gets tombstones for keys 4, 6 and 7, a deleted group for all of them.
// Thread-safe (values and stateless functions).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "broker/group/consumer_assignor.h"
#include "broker/group/consumer_reconciliation.h"

namespace strata::broker {

struct ConsumerGroupMetadataValue {
  int32_t group_epoch = 0;
  std::map<std::string, int32_t> subscribed_partitions;  // topic id -> partition count
  bool operator==(const ConsumerGroupMetadataValue&) const = default;
};

struct ConsumerMemberMetadataValue {
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  std::vector<std::string> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  std::optional<std::string> server_assignor;
  bool operator==(const ConsumerMemberMetadataValue&) const = default;
};

struct ConsumerTargetMetadataValue {
  int32_t assignment_epoch = 0;
  std::string assignor;
  bool operator==(const ConsumerTargetMetadataValue&) const = default;
};

std::string EncodeConsumerGroupMetadataValue(const ConsumerGroupMetadataValue& v);
std::string EncodeConsumerMemberMetadataValue(const ConsumerMemberMetadataValue& v);
std::string EncodeConsumerTargetMetadataValue(const ConsumerTargetMetadataValue& v);
std::string EncodeConsumerTargetMemberValue(const TopicPartitionSet& partitions);
std::string EncodeConsumerCurrentAssignmentValue(const MemberAssignment& v);

absl::StatusOr<ConsumerGroupMetadataValue> DecodeConsumerGroupMetadataValue(absl::string_view bytes);
absl::StatusOr<ConsumerMemberMetadataValue> DecodeConsumerMemberMetadataValue(absl::string_view bytes);
absl::StatusOr<ConsumerTargetMetadataValue> DecodeConsumerTargetMetadataValue(absl::string_view bytes);
absl::StatusOr<TopicPartitionSet> DecodeConsumerTargetMemberValue(absl::string_view bytes);
absl::StatusOr<MemberAssignment> DecodeConsumerCurrentAssignmentValue(absl::string_view bytes);

}  // namespace strata::broker
