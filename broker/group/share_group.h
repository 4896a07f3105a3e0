#pragma once
// A KIP-932 share group as the coordinator keeps it, and its ShareGroupHeartbeat rules,
// with no lock, clock or I/O (as consumer_group.h for consumer groups): the coordinator
// owns the groups, calls these under its mutex with the time and the topics it knows.
//
// A share group has no revocation: records, not partitions, are what its members hold
// (acquired on the partition's leader, broker/share/), so a new assignment applies at
// once. The group epoch counts changes of what the assignment depends on (members, their
// subscriptions, the subscribed topics' partitions); the assignment is computed whenever
// it moves, by the `simple` assignor: every subscribed partition goes to at least one
// member subscribed to its topic, and every such member gets at least one partition, so
// that with more members than partitions several members share a partition.
// Member epochs: 0 joins, -1 leaves; otherwise the member's own epoch.
// Not thread-safe (values and functions).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer_assignor.h"
#include "broker/group/consumer_group.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

inline constexpr const char* kSimpleAssignor = "simple";

struct ShareGroupMember {
  std::string member_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;  // sorted, without repeats
  int32_t member_epoch = 0;
  TopicPartitionSet assignment;  // by topic id
  int64_t session_deadline_ms = 0;  // not written: a load starts every session anew
};

// Kafka's ShareGroupDescribe states: "Empty", "Stable" ("Dead" for a group that is gone).
enum class ShareGroupPhase { kEmpty, kStable };
const char* ShareGroupPhaseName(ShareGroupPhase phase);

struct ShareGroupSettings {
  int32_t session_timeout_ms = 45000;    // group.share.session.timeout.ms
  int32_t heartbeat_interval_ms = 5000;  // group.share.heartbeat.interval.ms
  int32_t max_size = 200;                // group.share.max.size
};

struct ShareHeartbeatParams {
  std::string member_id;  // the client's (a UUID): required
  int32_t member_epoch = 0;
  std::optional<std::string> rack_id;
  std::optional<std::vector<std::string>> subscribed_topic_names;  // nullopt: unchanged
  std::string client_id;
  std::string client_host;
};

// Field for field what a ConsumerGroupHeartbeat answers.
using ShareHeartbeatResult = ConsumerHeartbeatResult;

struct ShareGroup {
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::map<std::string, ShareGroupMember> members;
  // The subscribed topics' partition counts the assignment was computed for (topic id ->
  // count): a change moves the group epoch.
  std::map<std::string, int32_t> subscribed_partitions;

  ShareGroupPhase phase() const { return members.empty() ? ShareGroupPhase::kEmpty : ShareGroupPhase::kStable; }
};

// What a call changed, for the records the coordinator writes and the timers it sets.
struct ShareGroupChanges {
  std::vector<std::string> members_changed;
  std::vector<std::string> members_removed;
  bool group_epoch_changed = false;
};

// The `simple` assignor: members (id -> subscribed topic names) over topics, by topic id.
// Deterministic: the same members and topics give the same assignment.
TargetAssignment SimpleShareAssignment(const std::map<std::string, std::vector<std::string>>& subscriptions,
                                       const ConsumerTopics& topics);

// ShareGroupHeartbeat on g at `now`; answers and records what changed in `changes`.
ShareHeartbeatResult ShareHeartbeat(ShareGroup& g, const ShareHeartbeatParams& params, const ConsumerTopics& topics,
                                    const ShareGroupSettings& settings, int64_t now, ShareGroupChanges& changes);

// Removes a member whose session ended; the group epoch moves on and the others get the
// partitions it had.
void RemoveShareMember(ShareGroup& g, const std::string& member_id, const ConsumerTopics& topics,
                       ShareGroupChanges& changes);

// The topics changed: when a subscribed topic's partitions differ from what the
// assignment was computed for, the group epoch moves on and it is computed again.
void OnShareTopicsChanged(ShareGroup& g, const ConsumerTopics& topics, ShareGroupChanges& changes);

}  // namespace strata::broker
