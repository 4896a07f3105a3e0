#pragma once
// GroupMetadata and MemberMetadata (Kafka's names): what the group coordinator keeps of
// one classic group in memory, and what follows from it alone — the protocol the
// members elect, the answers a JoinGroup and a SyncGroup get, the records that make the
// group survive a failover (group_record.h). Nothing here takes a lock or keeps time;
// group_coordinator_impl.h owns the groups and calls these under its mutex.
// Not thread-safe (values).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/group/group_types.h"
#include "broker/group/group_record.h"
#include "storage/file_names.h"

namespace strata::broker {

// A member that joined and waits for the rebalance to complete is kept that long at
// most without a heartbeat (Kafka's new member join timeout).
inline constexpr int64_t kNewMemberJoinTimeoutMs = 5 * 60 * 1000;

struct MemberMetadata {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::vector<JoinProtocol> protocols;
  std::string assignment;
  int64_t heartbeat_deadline_ms = 0;
  int64_t joined_ms = 0;
  uint64_t join_order = 0;
  bool is_new = false;
  // The JoinGroup and SyncGroup waiting for the rebalance, answered exactly once.
  std::function<void(JoinGroupResult)> awaiting_join;
  std::function<void(SyncGroupResult)> awaiting_sync;
};

struct GroupMetadata {
  std::string group_id;
  int32_t partition = 0;  // of __consumer_offsets
  // A consumer group (KIP-848) keeps its members in `consumer`; the classic fields
  // below the offsets are then unused (state stays Empty). Offsets are either type's.
  GroupType type = GroupType::kClassic;
  ConsumerGroup consumer;
  // A share group (KIP-932) keeps its members in `share` (no offsets; state follows
  // whether it has members, Empty or Stable, for DeleteGroups).
  ShareGroup share;
  GroupState state = GroupState::kEmpty;
  int64_t state_timestamp_ms = 0;
  int32_t generation_id = 0;
  std::string protocol_type;  // empty until a member joins (offsets-only groups)
  std::optional<std::string> protocol_name;
  std::optional<std::string> leader_id;
  std::map<std::string, MemberMetadata> members;
  std::set<std::string> pending_members;              // KIP-394: ids given, not yet joined with
  std::map<std::string, std::string> static_members;  // group.instance.id -> member id
  std::map<storage::TopicPartition, OffsetValue> offsets;
  // TxnOffsetCommit: producer id -> the offsets its open transaction wrote, made
  // visible by its COMMIT marker, dropped by its ABORT.
  std::map<int64_t, std::map<storage::TopicPartition, OffsetValue>> pending_txn_offsets;
  // Where each offset's record lies in the group's partition of __consumer_offsets
  // (GroupCoordinatorImpl's log order: writes complete and loads read in log order). A
  // COMMIT marker makes a transactional offset the group's only over an offset written
  // before it (Kafka: the later record wins), not over a plain commit written since.
  std::map<storage::TopicPartition, uint64_t> offset_order;
  std::map<int64_t, std::map<storage::TopicPartition, uint64_t>> pending_txn_order;
  // The rebalance being prepared: its deadline's timer, and the initial delay's state.
  uint64_t join_timer = 0;
  bool initial_delay = false;
  bool new_member_added = false;
  int64_t initial_delay_remaining_ms = 0;
  bool assignment_write_pending = false;
};

// Whether a member joining with protocol type `type` and `protocols` fits g: the type is
// the group's and one of the protocols is supported by every member.
bool SupportsProtocols(const GroupMetadata& g, const std::string& type, const std::vector<JoinProtocol>& protocols);

std::vector<const MemberMetadata*> MembersInJoinOrder(const GroupMetadata& g);

// The protocol every member supports that most members prefer (Kafka's vote: each
// member votes for the first of its protocols that all support); ties go to the
// protocol of the member that joined first. REQUIRES: members.
std::string SelectProtocol(const GroupMetadata& g);

// m's metadata for `protocol` ("" when it has none).
std::string MetadataFor(const MemberMetadata& m, const std::string& protocol);

// What m's JoinGroup is answered with once the join completes (the leader gets every
// member's metadata), and its SyncGroup once the assignment is written.
JoinGroupResult JoinResultOf(const GroupMetadata& g, const MemberMetadata& m);
SyncGroupResult SyncResultOf(const GroupMetadata& g, const MemberMetadata& m);

// Whether a member past its heartbeat deadline stays: it waits in a join (a new member
// at most kNewMemberJoinTimeoutMs) or in a sync (whose own deadline decides).
bool ShouldKeepAlive(const MemberMetadata& m, int64_t now);

// The group's record: its members with their metadata for the selected protocol and
// their assignment (assignment: instead of the members' current ones).
GroupLogRecord GroupRecordOf(const GroupMetadata& g, const std::map<std::string, std::string>* assignment);

// Tombstones for the group's own records, not its offsets: the classic group's record,
// or every record of a consumer group.
std::vector<GroupLogRecord> GroupTombstonesOf(const GroupMetadata& g);
// Tombstones for the group and every offset it committed.
std::vector<GroupLogRecord> TombstonesOf(const GroupMetadata& g);

// The topics g's consumer members subscribe to (their ConsumerProtocol subscriptions, or
// a consumer group's members' subscribed topic names).
std::set<std::string> SubscribedTopics(const GroupMetadata& g);

}  // namespace strata::broker
