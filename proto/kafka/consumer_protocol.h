#pragma once
// The consumer protocol: what Kafka's consumers put in the opaque bytes of a classic
// group whose protocol type is "consumer" — a JoinGroup protocol's metadata (and
// DescribeGroups' member_metadata) is a ConsumerProtocolSubscription, a SyncGroup
// assignment (and DescribeGroups' member_assignment) a ConsumerProtocolAssignment. Both
// use the classic (non-flexible) encoding, with an int16 version first.
// Subscription v0-v3: topics, user_data (nullable bytes); owned_partitions v1+ (per topic
// the partitions, for cooperative rebalancing); generation_id v2+ (-1 when absent);
// rack_id v3+ (nullable). Assignment v0-v3 (all the same fields): assigned_partitions
// (per topic the partitions), user_data (nullable bytes).
// A reader accepts a version newer than it knows, as Kafka's do: it reads the fields it
// knows and ignores the bytes after them (in any version). A negative version is refused.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::proto::kafka {

inline constexpr absl::string_view kConsumerProtocolType = "consumer";
// The newest subscription and assignment versions these codecs know.
inline constexpr int16_t kConsumerSubscriptionMaxVersion = 3;
inline constexpr int16_t kConsumerAssignmentMaxVersion = 3;

// A topic and some of its partitions (the schemas' TopicPartition).
struct ConsumerTopicPartitions {
  std::string topic;
  std::vector<int32_t> partitions;
  bool operator==(const ConsumerTopicPartitions&) const = default;
};

struct ConsumerSubscription {
  using TopicPartition = ConsumerTopicPartitions;
  std::vector<std::string> topics;
  std::optional<std::string> user_data;
  std::vector<TopicPartition> owned_partitions;  // v1+
  int32_t generation_id = -1;                    // v2+
  std::optional<std::string> rack_id;            // v3+
  bool operator==(const ConsumerSubscription&) const = default;
};

struct ConsumerAssignment {
  using TopicPartition = ConsumerTopicPartitions;
  std::vector<TopicPartition> assigned_partitions;
  std::optional<std::string> user_data;
  bool operator==(const ConsumerAssignment&) const = default;
};

absl::StatusOr<ConsumerSubscription> ReadConsumerSubscription(absl::string_view bytes);
// REQUIRES: 0 <= version <= kConsumerSubscriptionMaxVersion.
std::string WriteConsumerSubscription(const ConsumerSubscription& subscription, int16_t version);
absl::StatusOr<ConsumerAssignment> ReadConsumerAssignment(absl::string_view bytes);
// REQUIRES: 0 <= version <= kConsumerAssignmentMaxVersion.
std::string WriteConsumerAssignment(const ConsumerAssignment& assignment, int16_t version);

}  // namespace strata::proto::kafka
