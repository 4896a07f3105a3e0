#pragma once
// The group coordinator's vocabulary (group_coordinator.h): a group's states, what the
// group APIs ask and are answered, where its records go (GroupLog), its settings and
// figures. Its own header, so that the coordinator's parts (group_metadata.h,
// group_group_coordinator_impl.h) include it and not the coordinator.
// Not thread-safe (values).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "broker/group/consumer_group.h"
#include "broker/group/group_record.h"
#include "broker/group/share_group.h"
#include "proto/kafka/error_code.h"
#include "storage/clock.h"
#include "storage/file_names.h"

namespace strata::broker {

using proto::kafka::ErrorCode;

// A record of __consumer_offsets as the coordinator writes and reads it.
struct GroupLogRecord {
  std::string key;
  std::optional<std::string> value;  // nullopt: a tombstone
  // What a read says of the record's batch: the producer of a transactional batch (-1:
  // none; its records count once the producer's COMMIT marker follows), and for a
  // transaction marker (key and value empty) whether it commits.
  int64_t producer_id = -1;
  std::optional<bool> marker_commit;
};

// Where a coordinator's records go: its partitions of __consumer_offsets
// (offsets_topic_log.h over the broker's partitions; a test may keep them in memory).
class GroupLog {
 public:
  virtual ~GroupLog() = default;
  // Appends records to `partition` while this broker leads it in leader_epoch, and calls
  // done exactly once: kNone once they are committed (the high watermark passed them),
  // else the reason (NOT_COORDINATOR when the leadership moved, REQUEST_TIMED_OUT, ...).
  // done may run on any thread, inside Append too.
  virtual void Append(int32_t partition, int32_t leader_epoch, std::vector<GroupLogRecord> records,
                      std::function<void(ErrorCode)> done) = 0;
  // The same, as one transactional batch of producer_id in producer_epoch
  // (TxnOffsetCommit): a coordinator's write for the producer, which the producer's
  // transaction markers later commit or abort.
  virtual void AppendTransactional(int32_t partition, int32_t leader_epoch, int64_t producer_id,
                                   int16_t producer_epoch, std::vector<GroupLogRecord> records,
                                   std::function<void(ErrorCode)> done) = 0;
  // Reads the partition from its start to its end as it stands, in offset order, with
  // the transaction markers.
  virtual absl::Status Read(int32_t partition, int32_t leader_epoch,
                            const std::function<absl::Status(GroupLogRecord)>& each) = 0;
  // Called by the coordinator's thread at least every 100 ms (timeouts).
  virtual void Poll() {}
};

enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };
// Kafka's names: "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead".
const char* GroupStateName(GroupState state);
std::optional<GroupState> ParseGroupState(absl::string_view name);  // case-insensitive

// KIP-848's group types (ListGroups v5's GroupType): a group of the classic protocol
// (JoinGroup, SyncGroup), a consumer group (ConsumerGroupHeartbeat) or a KIP-932 share
// group (ShareGroupHeartbeat). One group id is one group, of one type at a time.
enum class GroupType { kClassic, kConsumer, kShare };
const char* GroupTypeName(GroupType type);  // "classic", "consumer", "share"

struct GroupCoordinatorOptions {
  int32_t offsets_topic_partitions = 50;          // offsets.topic.num.partitions
  int32_t group_min_session_timeout_ms = 6000;    // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000; // group.max.session.timeout.ms
  int32_t group_initial_rebalance_delay_ms = 3000;  // group.initial.rebalance.delay.ms
  int32_t group_max_size = INT32_MAX;             // group.max.size
  int32_t offset_metadata_max_bytes = 4096;       // offset.metadata.max.bytes
  int64_t offsets_retention_ms = int64_t{7} * 24 * 3600 * 1000;  // offsets.retention.minutes
  int64_t offsets_retention_check_interval_ms = 600000;         // offsets.retention.check.interval.ms
  ConsumerGroupSettings consumer;  // group.consumer.*
  ShareGroupSettings share;        // group.share.*
  storage::Clock* clock = storage::Clock::System();
  bool start_thread = true;  // false: the caller runs RunDueTimers (tests)
};

struct JoinProtocol {
  std::string name;
  std::string metadata;
};

struct JoinGroupParams {
  std::string group_id;
  std::string member_id;  // empty: a new member
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<JoinProtocol> protocols;
  bool require_known_member_id = false;  // JoinGroup v4+ (KIP-394)
};

struct JoinGroupResult {
  ErrorCode error = ErrorCode::kNone;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::string leader_id;
  bool skip_assignment = false;
  std::string member_id;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string metadata;
  };
  std::vector<Member> members;  // the leader's answer only
};

struct SyncGroupParams {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::optional<std::string> protocol_type;  // v5+
  std::optional<std::string> protocol_name;  // v5+
  std::vector<std::pair<std::string, std::string>> assignments;  // the leader's: member id, assignment
};

struct SyncGroupResult {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::string assignment;
};

struct MemberIdentity {
  std::string member_id;  // empty with a group_instance_id: whichever id it has
  std::optional<std::string> group_instance_id;
};

struct PartitionOffsetCommit {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::optional<std::string> metadata;
};

struct OffsetCommitParams {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  int64_t retention_time_ms = -1;  // v2-v4; -1: the broker's
  std::vector<PartitionOffsetCommit> partitions;
};

// TxnOffsetCommit: offsets written in a producer's transaction.
struct TxnOffsetCommitParams {
  std::string group_id;
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t generation_id = -1;  // v3+; -1: not checked
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<PartitionOffsetCommit> partitions;
};

struct PartitionError {
  std::string topic;
  int32_t partition = 0;
  ErrorCode error = ErrorCode::kNone;
};

struct FetchedOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = -1;  // -1: none committed
  int32_t leader_epoch = -1;
  std::string metadata;
  ErrorCode error = ErrorCode::kNone;
};

// Who fetches offsets (OffsetFetch v9+): a consumer group's member by id and epoch, or
// nobody in particular (no member id: admin tools, older clients).
struct OffsetFetchMember {
  std::optional<std::string> member_id;
  int32_t member_epoch = -1;
};

struct OffsetFetchResult {
  ErrorCode error = ErrorCode::kNone;  // for the whole group
  std::vector<FetchedOffset> partitions;
};

struct GroupOverview {
  std::string group_id;
  std::string protocol_type;
  GroupState state = GroupState::kEmpty;  // a classic group's
  GroupType type = GroupType::kClassic;
  std::string state_name;  // Kafka's name of either type's state
};

// A consumer group as ConsumerGroupDescribe shows it: assignments by topic id with the
// topics' names (empty for a topic the coordinator no longer knows).
struct ConsumerGroupDescription {
  struct Topic {
    std::string topic_id;
    std::string topic_name;
    std::vector<int32_t> partitions;
  };
  struct Member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::vector<Topic> assignment;
    std::vector<Topic> target_assignment;
  };
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> error_message;
  std::string group_id;
  std::string state;  // Kafka's: Empty, Assigning, Reconciling, Stable; Dead when unknown
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor;
  std::vector<Member> members;
};

// A share group as ShareGroupDescribe shows it: the consumer group's description, with
// the `simple` assignor, no instance ids, regular expressions or target assignments.
using ShareGroupDescription = ConsumerGroupDescription;

struct GroupDescription {
  ErrorCode error = ErrorCode::kNone;
  std::string group_id;
  GroupState state = GroupState::kDead;
  std::string protocol_type;
  std::string protocol_name;  // Stable only, as Kafka
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    std::string metadata;    // Stable only
    std::string assignment;  // Stable only
  };
  std::vector<Member> members;
};

struct CoordinatorStats {
  std::map<GroupState, int64_t> groups_by_state;
  int64_t rebalances = 0;          // generations completed
  int64_t offset_commits = 0;      // partitions committed
  int64_t offset_commit_requests = 0;
  int64_t offsets_expired = 0;
  int64_t partitions_loaded = 0;
  int64_t load_time_ms_total = 0;
  int64_t last_load_time_ms = 0;
  std::vector<int64_t> commit_latency_us;  // the last 1024 commits' write latency
  // KIP-848 consumer groups: how many in each state (Kafka's names), their members, and
  // the target assignments computed (Kafka's consumer group rebalances).
  std::map<std::string, int64_t> consumer_groups_by_state;
  int64_t consumer_group_members = 0;
  int64_t consumer_group_rebalances = 0;
  // KIP-932 share groups: how many in each state (Empty, Stable), their members, and the
  // assignments computed.
  std::map<std::string, int64_t> share_groups_by_state;
  int64_t share_group_members = 0;
  int64_t share_group_rebalances = 0;
};

// LeaveGroup's answer: one error per member, in order; the group's own error
// (NOT_COORDINATOR, ...) instead when the group cannot be reached.
struct LeaveGroupResult {
  ErrorCode error = ErrorCode::kNone;
  std::vector<ErrorCode> members;
};

}  // namespace strata::broker
