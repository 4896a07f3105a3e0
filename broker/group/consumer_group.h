#pragma once
// A KIP-848 consumer group (`group.protocol=consumer`) as the coordinator keeps it, and
// its ConsumerGroupHeartbeat rules, with no lock, clock or I/O: the coordinator
// (group_coordinator_impl.h) owns the groups, calls these under its mutex with the time
// and the topics it knows, and writes what changed before it answers.
//
// The group epoch counts changes of what the assignment depends on (members, their
// subscriptions, the subscribed topics' partitions); the target assignment is computed
// by the group's assignor (consumer_assignor.h) whenever the group epoch passes the
// assignment epoch; each member then reconciles toward its part of the target on its own
// heartbeats (consumer_reconciliation.h): revoke first, then take what others released.
// Member epochs: 0 joins, -1 leaves, -2 is a static member's temporary leave (its
// assignment kept until its session ends or its instance id comes back).
// Not thread-safe (values and functions).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/consumer_assignor.h"
#include "broker/group/consumer_reconciliation.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

inline constexpr int32_t kLeaveGroupMemberEpoch = -1;
inline constexpr int32_t kLeaveGroupStaticMemberEpoch = -2;

// The topics the coordinator knows (the broker's metadata image): name -> id and
// partition count.
struct ConsumerTopic {
  std::string id;  // 16 bytes
  int32_t partitions = 0;
};
using ConsumerTopics = std::map<std::string, ConsumerTopic>;

struct ConsumerGroupMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  std::vector<std::string> subscribed_topic_names;  // sorted, without repeats
  std::optional<std::string> subscribed_topic_regex;
  std::optional<std::string> server_assignor;
  MemberAssignment assignment;
  // Not written: when its session ends, and while it must revoke, by when.
  int64_t session_deadline_ms = 0;
  int64_t revocation_deadline_ms = 0;
};

// Kafka's ConsumerGroupDescribe states: "Empty", "Assigning", "Reconciling", "Stable".
enum class ConsumerGroupPhase { kEmpty, kAssigning, kReconciling, kStable };
const char* ConsumerGroupPhaseName(ConsumerGroupPhase phase);

struct ConsumerGroupSettings {
  int32_t session_timeout_ms = 45000;     // group.consumer.session.timeout.ms
  int32_t heartbeat_interval_ms = 5000;   // group.consumer.heartbeat.interval.ms
  int32_t max_size = INT32_MAX;           // group.consumer.max.size
  std::vector<std::string> assignors = {kUniformAssignor, kRangeAssignor};  // group.consumer.assignors
};

struct ConsumerHeartbeatParams {
  std::string group_id;
  std::string member_id;  // v1+: the client's; v0: empty on a first join
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string>> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  std::optional<std::string> server_assignor;
  std::optional<TopicPartitionSet> owned;  // TopicPartitions (by topic id)
  std::string client_id;
  std::string client_host;
  int16_t api_version = 1;
};

struct ConsumerHeartbeatResult {
  proto::kafka::ErrorCode error = proto::kafka::ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<TopicPartitionSet> assignment;  // nullopt: unchanged
};

struct ConsumerGroup {
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor;  // the one the target was computed by
  std::map<std::string, ConsumerGroupMember> members;
  std::map<std::string, std::string> static_members;  // instance id -> member id
  TargetAssignment target;
  // Who holds each partition now (assigned or revoking): the holder's member epoch.
  std::map<std::pair<std::string, int32_t>, int32_t> partition_epochs;
  // The subscribed topics' partition counts the target was computed for (topic id ->
  // count): a change bumps the group epoch.
  std::map<std::string, int32_t> subscribed_partitions;
  // What each member's regular expression (SubscribedTopicRegex) matches among the
  // topics: resolved when a member subscribes with a new one and when the topics
  // change (ResolveConsumerRegexes), not on every heartbeat. Not written: a load
  // resolves them again.
  std::map<std::string, std::set<std::string>> resolved_regexes;

  ConsumerGroupPhase phase() const;
  int32_t PartitionEpoch(const std::string& topic, int32_t partition) const;
};

// What a heartbeat did to the group, for the records the coordinator writes and the
// timers it sets: the members whose state changed (written or, when gone, tombstoned),
// whether the group epoch and the target moved.
struct ConsumerGroupChanges {
  std::vector<std::string> members_changed;
  std::vector<std::string> members_removed;
  bool group_epoch_changed = false;
  bool target_changed = false;
};

// The topic names m subscribes to: its names and what its regular expression matches.
std::set<std::string> SubscribedTopicNames(const ConsumerGroup& g, const ConsumerGroupMember& m);

// Resolves every member's regular expression against `topics` (a full match, as Kafka's
// RE2/J; internal topics, named `__*`, never match) and drops the expressions no
// member uses any more.
void ResolveConsumerRegexes(ConsumerGroup& g, const ConsumerTopics& topics);

// ConsumerGroupHeartbeat on g (a group that exists: the coordinator created it empty for
// a join), at `now`. Answers and records what changed in `changes`.
ConsumerHeartbeatResult ConsumerHeartbeat(ConsumerGroup& g, const ConsumerHeartbeatParams& params,
                                          const ConsumerTopics& topics, const ConsumerGroupSettings& settings,
                                          int64_t now, ConsumerGroupChanges& changes);

// Removes a member (its session ended, or it did not revoke in time): the group epoch
// moves on and the target is computed without it.
void RemoveConsumerMember(ConsumerGroup& g, const std::string& member_id, const ConsumerTopics& topics,
                          const ConsumerGroupSettings& settings, ConsumerGroupChanges& changes);

// The topics changed (created, deleted, partitions added): when a subscribed topic's
// partitions differ from what the target was computed for, the group epoch moves on
// and a new target is computed.
void OnConsumerTopicsChanged(ConsumerGroup& g, const ConsumerTopics& topics, const ConsumerGroupSettings& settings,
                             ConsumerGroupChanges& changes);

}  // namespace strata::broker
