#pragma once
// GroupCoordinator: Kafka's classic consumer-group protocol for the groups whose
// partition of `__consumer_offsets` this broker leads (group_record.h says which). It
// keeps each group's members and rebalance state in memory, and writes what must
// survive a failover — a completed rebalance's assignment, a group that became empty,
// committed offsets, deletions — to that partition, answering only once the write is
// committed (acks=all, GroupLog). A broker that becomes leader of a partition loads it
// (COORDINATOR_LOAD_IN_PROGRESS until then); one that stops leading it drops its groups
// (NOT_COORDINATOR); a group of a partition it does not lead is NOT_COORDINATOR too.
//
// A group moves through Kafka's states:
//   Empty --join--> PreparingRebalance --every member joined, or the rebalance
//   timeout--> CompletingRebalance --the leader's SyncGroup written--> Stable
//   Stable / CompletingRebalance --a join with new metadata, a leave, a session
//   expiry--> PreparingRebalance;  a rebalance that ends with no member --> Empty;
//   deleted, or its offsets expired --> Dead (forgotten).
// The first rebalance of an empty group waits group.initial.rebalance.delay.ms (more
// while members keep joining, never past the rebalance timeout), so that a group's
// members starting together share one generation. Member ids are given out by the
// coordinator; a join without one is answered MEMBER_ID_REQUIRED with a new id (KIP-394,
// JoinGroup v4+) and the member is pending until it joins with it. Static members
// (group.instance.id, KIP-345) keep their assignment across restarts: a join with a
// known instance id replaces the old member id without a rebalance when the group is
// Stable and its protocol would not change; the old id is then fenced
// (FENCED_INSTANCE_ID). Incremental cooperative rebalancing (KIP-429) needs nothing more
// of the coordinator: members of the current generation may commit while a rebalance is
// prepared, and the clients' assignors move partitions over two rebalances.
// The new protocol (KIP-848, ConsumerGroupHeartbeat) has groups of a second type, the
// consumer groups (consumer_group.h): the broker assigns their partitions and each member
// reconciles toward its part on its own heartbeats. A group id is one group of one type;
// an empty group takes the type of the protocol a member joins it with. Offsets are
// either type's, checked against a generation (classic) or a member epoch (consumer).
//
// Time: timers (session expiry, rebalance and initial-delay deadlines, pending members,
// offsets retention) run on the coordinator's thread from the options' clock; tests with
// a ManualClock and no thread call RunDueTimers. Completions of writes run there too.
// Thread-safe: one mutex over every group; answers are given outside it.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "broker/group/group_types.h"

namespace strata::broker {

class GroupCoordinatorImpl;  // group_group_coordinator_impl.h

class GroupCoordinator {
 public:
  GroupCoordinator(GroupCoordinatorOptions options, GroupLog* log);
  ~GroupCoordinator();  // stops the thread; waiting requests are answered NOT_COORDINATOR
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // The partition of __consumer_offsets that holds group_id: of the topic's partition
  // count once it exists, else offsets.topic.num.partitions.
  int32_t PartitionFor(absl::string_view group_id) const;
  int32_t offsets_topic_partitions() const;

  // Leadership of the __consumer_offsets partitions, from the broker's partitions after
  // every metadata image: partition -> leader epoch for the ones this broker leads, and
  // the topic's partition count (0: no such topic yet). A newly led partition (or a new
  // epoch) is loaded; one no longer led is dropped.
  void OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions);
  // Topics deleted from the metadata (by name): their committed offsets are removed
  // from every group of the loaded partitions, with tombstones, as Kafka's
  // onPartitionsDeleted does; an empty group left with no offsets is deleted.
  void OnTopicsDeleted(const std::set<std::string>& topics);
  // Whether partition is loaded and served (tests).
  bool IsLoaded(int32_t partition) const;

  void JoinGroup(JoinGroupParams params, std::function<void(JoinGroupResult)> respond);
  void SyncGroup(SyncGroupParams params, std::function<void(SyncGroupResult)> respond);
  ErrorCode Heartbeat(const std::string& group_id, const std::string& member_id,
                      const std::optional<std::string>& group_instance_id, int32_t generation_id);
  using LeaveResult = LeaveGroupResult;
  LeaveResult LeaveGroup(const std::string& group_id, const std::vector<MemberIdentity>& members);
  void CommitOffsets(OffsetCommitParams params, std::function<void(std::vector<PartitionError>)> respond);
  // TxnOffsetCommit: the offsets are written as a transactional batch of the producer
  // and count once its COMMIT marker is written here (OnTransactionCompleted).
  void CommitTransactionalOffsets(TxnOffsetCommitParams params,
                                  std::function<void(std::vector<PartitionError>)> respond);
  // A transaction marker of producer_id was written (committed) to partition of
  // __consumer_offsets (WriteTxnMarkers): its pending offsets there commit or go.
  void OnTransactionCompleted(int32_t partition, int64_t producer_id, bool commit);
  // partitions nullopt: every committed offset of the group. require_stable (OffsetFetch
  // v7+): a partition with an offset pending in an open transaction answers
  // UNSTABLE_OFFSET_COMMIT.
  // member: OffsetFetch v9's member id and epoch, checked against a consumer group's
  // (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH, FENCED_MEMBER_EPOCH for the whole group).
  OffsetFetchResult FetchOffsets(const std::string& group_id,
                                 const std::optional<std::vector<storage::TopicPartition>>& partitions,
                                 bool require_stable = false, const OffsetFetchMember& member = {});
  // Groups of the loaded partitions; error COORDINATOR_LOAD_IN_PROGRESS while one loads.
  std::pair<ErrorCode, std::vector<GroupOverview>> ListGroups() const;
  GroupDescription DescribeGroup(const std::string& group_id) const;
  void DeleteGroups(std::vector<std::string> group_ids,
                    std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond);
  // OffsetDelete: (the group's error, per partition errors).
  void DeleteOffsets(std::string group_id, std::vector<storage::TopicPartition> partitions,
                     std::function<void(ErrorCode, std::vector<PartitionError>)> respond);

  // KIP-848 (docs/consumer-groups.md): a consumer group member's heartbeat — join
  // (epoch 0), heartbeat, leave (-1, -2 for a static member's temporary leave). What it
  // changed is written before it is answered; a member whose session ends, or that does
  // not revoke within its rebalance timeout, is removed.
  void ConsumerGroupHeartbeat(ConsumerHeartbeatParams params, std::function<void(ConsumerHeartbeatResult)> respond);
  ConsumerGroupDescription DescribeConsumerGroup(const std::string& group_id) const;
  // The metadata image's topics after an image was applied: every one (full), else the
  // ones created or changed and the names of those deleted. A consumer group whose
  // subscribed topics' partitions changed gets a new target assignment.
  void OnTopicsChanged(const ConsumerTopics& topics, const std::set<std::string>& deleted, bool full);

  // KIP-932 (docs/groups-plan.md step 5): a share group member's heartbeat — join (epoch
  // 0), heartbeat, leave (-1); what it changed is written before it is answered, and a
  // member whose session ends is removed. Share groups have no offsets: the records'
  // delivery state lives in __share_group_state (broker/share/).
  void ShareGroupHeartbeat(std::string group_id, ShareHeartbeatParams params,
                           std::function<void(ShareHeartbeatResult)> respond);
  ShareGroupDescription DescribeShareGroup(const std::string& group_id) const;

  // Runs the timers due at the clock's now and the writes completed since (the thread
  // does; tests without it call this).
  void RunDueTimers();
  CoordinatorStats stats() const;

 private:
  std::unique_ptr<GroupCoordinatorImpl> impl_;
};

}  // namespace strata::broker
