#pragma once
// GroupCoordinatorImpl, inside group/ only: the groups of the __consumer_offsets
// partitions this broker leads, under one mutex. Its methods live by concern:
//   group_coordinator_impl.cc  construction, shutdown, ListGroups, DescribeGroups, stats;
//   coordinator_membership.cc  the state machine: JoinGroup, SyncGroup, Heartbeat,
//                           LeaveGroup and the rebalance they drive;
//   coordinator_offsets.cc  OffsetCommit, OffsetFetch, OffsetDelete, DeleteGroups and
//                           offsets retention;
//   coordinator_loading.cc  leadership of a partition: loading its groups, dropping them;
//   coordinator_consumer.cc KIP-848 consumer groups: ConsumerGroupHeartbeat, their timers,
//                           the topics they subscribe to;
//   coordinator_share.cc    KIP-932 share groups: ShareGroupHeartbeat, ShareGroupDescribe,
//                           their members' sessions, the topics they subscribe to;
//   coordinator_runtime.cc  the thread, the timers, and the writes to the partitions.
// What one group is and what follows from it alone: group_metadata.h.
// Thread-safe: every method not named *Locked takes mu_; answers are given outside it
// (Deferred).

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "broker/group/group_types.h"
#include "broker/group/group_metadata.h"

namespace strata::broker {

// The longest the coordinator's thread sleeps (GroupLog::Poll's period).
inline constexpr int64_t kPollMs = 100;
// A partition whose load failed is read again after that long.
inline constexpr int64_t kLoadRetryMs = 1000;
// The offset commit latencies kept for the metrics.
inline constexpr size_t kLatencySamples = 1024;

// Answers collected under the lock and given after it is released (a responder may send
// on a socket; none runs under the coordinator's mutex). Declare it before the lock.
class Deferred {
 public:
  Deferred() = default;
  Deferred(const Deferred&) = delete;
  Deferred& operator=(const Deferred&) = delete;
  ~Deferred() {
    for (auto& f : fns_) f();
  }
  void Add(std::function<void()> f) { fns_.push_back(std::move(f)); }

 private:
  std::vector<std::function<void()>> fns_;
};

// What a failed write means for the client, as Kafka's coordinator maps it (commit: an
// OffsetCommit's write, whose too-large records are INVALID_COMMIT_OFFSET_SIZE).
ErrorCode ClientErrorOfWrite(ErrorCode e, bool commit);

// A new member id: the client id and a UUID v4, as Kafka's read.
std::string NewMemberId(const std::string& client_id);

// Whether a transactional offset of tp whose record was written at `written` (log order)
// becomes the group's on its COMMIT marker: over no offset, or one written before it.
bool TxnOffsetWins(const std::map<storage::TopicPartition, OffsetValue>& offsets,
                   const std::map<storage::TopicPartition, uint64_t>& offset_order, const storage::TopicPartition& tp,
                   uint64_t written);

class GroupCoordinatorImpl {
  // Written completions and wake-ups, shared with the writes in flight: a write that
  // completes after the coordinator is gone finds the inbox closed.
  struct Inbox {
    absl::Mutex mu;
    std::deque<std::function<void()>> completions ABSL_GUARDED_BY(mu);
    bool poked ABSL_GUARDED_BY(mu) = false;
    bool stopping ABSL_GUARDED_BY(mu) = false;
    bool closed ABSL_GUARDED_BY(mu) = false;
  };

 public:
  GroupCoordinatorImpl(GroupCoordinatorOptions options, GroupLog* log);

  ~GroupCoordinatorImpl();

  int32_t partitions() const { return partitions_.load(); }

  // --- partitions -------------------------------------------------------------------

  void OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions);
  void OnTopicsDeleted(const std::set<std::string>& topics);

  bool IsLoaded(int32_t p) const;

  // --- JoinGroup ----------------------------------------------------------------------

  void JoinGroup(JoinGroupParams params, std::function<void(JoinGroupResult)> respond);

  // --- SyncGroup ----------------------------------------------------------------------

  void SyncGroup(SyncGroupParams params, std::function<void(SyncGroupResult)> respond);

  // --- Heartbeat, LeaveGroup ------------------------------------------------------------

  ErrorCode Heartbeat(const std::string& group_id, const std::string& member_id,
                      const std::optional<std::string>& instance_id, int32_t generation_id);

  LeaveGroupResult LeaveGroup(const std::string& group_id, const std::vector<MemberIdentity>& members);

  // --- offsets --------------------------------------------------------------------------

  void CommitOffsets(OffsetCommitParams params, std::function<void(std::vector<PartitionError>)> respond);

  OffsetFetchResult FetchOffsets(const std::string& group_id,
                                 const std::optional<std::vector<storage::TopicPartition>>& partitions,
                                 bool require_stable, const OffsetFetchMember& member);

  // --- transactional offsets (coordinator_txn_offsets.cc) ------------------------------

  void CommitTransactionalOffsets(TxnOffsetCommitParams params,
                                  std::function<void(std::vector<PartitionError>)> respond);
  void OnTransactionCompleted(int32_t partition, int64_t producer_id, bool commit);

  // What an offset commit of g writes: each partition's answer before the write
  // (OFFSET_METADATA_TOO_LARGE past offset.metadata.max.bytes), the records, and the
  // offsets they hold. expire_timestamp_ms: -1, or OffsetCommit v2-v4's retention.
  struct OffsetWrites {
    std::vector<PartitionError> answers;
    std::vector<GroupLogRecord> records;
    std::vector<std::pair<storage::TopicPartition, OffsetValue>> values;
  };
  OffsetWrites OffsetWritesOf(const GroupMetadata& g, const std::vector<PartitionOffsetCommit>& partitions,
                              int64_t now, int64_t expire_timestamp_ms) const;

  // --- ListGroups, DescribeGroups, DeleteGroups, OffsetDelete -------------------------

  std::pair<ErrorCode, std::vector<GroupOverview>> ListGroups() const;

  GroupDescription DescribeGroup(const std::string& group_id) const;

  void DeleteGroups(std::vector<std::string> group_ids,
                    std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond);

  void DeleteOffsets(std::string group_id, std::vector<storage::TopicPartition> partitions,
                     std::function<void(ErrorCode, std::vector<PartitionError>)> respond);

  // --- KIP-848 consumer groups (coordinator_consumer.cc) -------------------------------

  void ConsumerGroupHeartbeat(ConsumerHeartbeatParams params, std::function<void(ConsumerHeartbeatResult)> respond);

  ConsumerGroupDescription DescribeConsumerGroup(const std::string& group_id) const;

  // The topics of the metadata image: every one (full), or those created or changed and
  // those deleted since the last call.
  void OnTopicsChanged(const ConsumerTopics& topics, const std::set<std::string>& deleted, bool full);

  // --- KIP-932 share groups (coordinator_share.cc) -----------------------------------

  void ShareGroupHeartbeat(std::string group_id, ShareHeartbeatParams params,
                           std::function<void(ShareHeartbeatResult)> respond);

  ShareGroupDescription DescribeShareGroup(const std::string& group_id) const;

  // --- time ----------------------------------------------------------------------------

  void RunDueTimers();

  CoordinatorStats stats() const;

 private:
  using WriteDone = std::function<void(ErrorCode, Deferred&)>;

  struct Timer {
    enum Kind {
      kHeartbeat,
      kPendingMember,
      kJoin,
      kSync,
      kRetention,
      kLoadRetry,
      kConsumerSession,     // a consumer group member's session deadline
      kConsumerRevocation,  // the deadline of a consumer group member that must revoke
      kShareSession,        // a share group member's session deadline
    } kind;
    std::string group_id;
    std::string member_id;
    uint64_t seq = 0;  // kJoin: the group's join_timer; kSync: the generation; kLoadRetry: the epoch
  };

  struct Owned {
    int32_t epoch = -1;
    bool loaded = false;
    int64_t since_ms = 0;
  };

  int64_t Now() const { return options_.clock->NowMs(); }

  // The coordinator for group_id is here and loaded: NONE, else why not.
  ErrorCode ReachLocked(const std::string& group_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  GroupMetadata* FindLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const GroupMetadata* FindLocked(const std::string& id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  GroupMetadata& CreateGroupLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void ForgetGroupLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { groups_.erase(id); }

  // The group an offset commit (plain or transactional) goes to, with `created` set when
  // it is new: a group nobody joined is created for offsets without group management
  // (generation -1; Kafka does the same), else ILLEGAL_GENERATION; a Dead group is
  // COORDINATOR_NOT_AVAILABLE; a partition not led or loaded, ReachLocked's error.
  std::pair<GroupMetadata*, ErrorCode> GroupForCommitLocked(const std::string& group_id, int32_t generation_id,
                                                            bool* created = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A known member of g under the identity given (static members: their current id).
  ErrorCode CheckMemberLocked(const GroupMetadata& g, const std::string& member_id,
                              const std::optional<std::string>& instance_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  static void AnswerJoin(MemberMetadata& m, ErrorCode e, Deferred& d);

  static void AnswerSync(MemberMetadata& m, ErrorCode e, Deferred& d);

  void TransitionLocked(GroupMetadata& g, GroupState to) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void RenewHeartbeatLocked(GroupMetadata& g, MemberMetadata& m) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void UpdateMemberLocked(MemberMetadata& m, JoinGroupParams& params, std::function<void(JoinGroupResult)> respond,
                          Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void JoinUnknownMemberLocked(GroupMetadata& g, JoinGroupParams params, std::function<void(JoinGroupResult)> respond,
                               Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void JoinKnownMemberLocked(GroupMetadata& g, JoinGroupParams params, std::function<void(JoinGroupResult)> respond,
                             Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void AddMemberAndRebalanceLocked(GroupMetadata& g, const std::string& id, JoinGroupParams params,
                                   std::function<void(JoinGroupResult)> respond, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // KIP-345: a static member restarted (a join with its instance id and no member id).
  // old_id by value: the caller's is the static_members entry this replaces (taken by
  // reference it read as the new id once replaced, and a returning leader stayed the
  // group's leader under its fenced id: the table-driven test found it).
  void ReplaceStaticMemberLocked(GroupMetadata& g, std::string old_id, const std::string& new_id,
                                 JoinGroupParams params, std::function<void(JoinGroupResult)> respond, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void PrepareRebalanceLocked(GroupMetadata& g, const std::string& reason, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void MaybeCompleteJoinLocked(GroupMetadata& g, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void OnJoinDeadlineLocked(GroupMetadata& g, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void CompleteJoinLocked(GroupMetadata& g, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Removes a member without changing the group's state.
  void EraseMemberLocked(GroupMetadata& g, const std::string& id, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A member leaves (LeaveGroup, session expiry): the others rebalance.
  void RemoveMemberLocked(GroupMetadata& g, const std::string& id, const std::string& reason, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void FireLocked(const Timer& t, int64_t now, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A consumer group member's session or revocation deadline passed (t says which): it
  // is removed if the deadline still stands.
  void FireConsumerTimerLocked(const Timer& t, GroupMetadata& g, int64_t now, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A share group member's session deadline passed: it is removed if it still stands.
  void FireShareTimerLocked(const Timer& t, GroupMetadata& g, int64_t now, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Writes what `changes` did to share group g; on_done as WriteLocked's, at once with
  // kNone when there is nothing to write.
  void WriteShareChangesLocked(GroupMetadata& g, const ShareGroupChanges& changes, WriteDone on_done, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The share groups whose subscribed topics' partitions changed get a new assignment
  // (OnTopicsChanged, after topics_ moved).
  void OnShareTopicsChangedLocked(Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // group_id's group of `type` for a describe (ConsumerGroupDescribe, ShareGroupDescribe),
  // or null with out's error set (NOT_COORDINATOR..., GROUP_ID_NOT_FOUND).
  const GroupMetadata* DescribedLocked(const std::string& group_id, GroupType type, ConsumerGroupDescription& out) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A described assignment: by topic id, with the topics' names (empty for one the
  // coordinator no longer knows).
  std::vector<ConsumerGroupDescription::Topic> DescribedTopicsLocked(const TopicPartitionSet& set) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The timers of member_id of consumer group g, after its deadlines moved.
  void ArmConsumerTimersLocked(const GroupMetadata& g, const std::string& member_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Writes what `changes` did to consumer group g (after `first`, e.g. the tombstones of
  // the group's other type); on_done as WriteLocked's, at once with kNone when there is
  // nothing to write.
  void WriteConsumerChangesLocked(GroupMetadata& g, const ConsumerGroupChanges& changes,
                                  std::vector<GroupLogRecord> first, WriteDone on_done, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A group's type changes (an empty group's members use the other protocol): the old
  // type's records to tombstone.
  std::vector<GroupLogRecord> ConvertEmptyGroupLocked(GroupMetadata& g, GroupType to) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A consumer group offsets are committed to or fetched for by member_id in
  // member_epoch (Kafka's validateOffsetCommit / validateOffsetFetch): NONE, or
  // UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH (an older epoch), FENCED_MEMBER_EPOCH (newer).
  ErrorCode CheckConsumerMemberEpochLocked(const GroupMetadata& g, const std::string& member_id,
                                           int32_t member_epoch) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // offsets.retention.minutes: the offsets of a group nobody is a member of expire
  // once it has been empty that long; offsets committed without group management expire
  // that long after their commit (or at the retention their commit asked for).
  void ExpireOffsetsLocked(int64_t now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes the offsets of g that `drop` selects and writes their tombstones, with the
  // group's own when an empty group is left with no offsets (it is then forgotten:
  // true). `why` is logged.
  bool DropOffsetsLocked(GroupMetadata& g, const std::string& id,
                         absl::FunctionRef<bool(const storage::TopicPartition&, const OffsetValue&)> drop,
                         absl::string_view why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Writes records to g's partition; on_done runs under mu_ once they are committed or
  // failed (NOT_COORDINATOR when the partition was dropped or reloaded meanwhile).
  void WriteLocked(const GroupMetadata& g, std::vector<GroupLogRecord> records, WriteDone on_done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  static void PushCompletion(Inbox& inbox, std::function<void()> f);

  void Poke();

  void AddTimerLocked(int64_t at, Timer::Kind kind, const std::string& group_id, const std::string& member_id,
                      uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void RunCompletions();

  void RunLoads();

  // Reads partition p (led in epoch) and serves its groups.
  void Load(int32_t p, int32_t epoch);

  void UnloadLocked(int32_t p, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void Run();

  const GroupCoordinatorOptions options_;
  GroupLog* const log_;
  std::atomic<int32_t> partitions_;
  std::atomic<int64_t> planned_wake_ms_{0};

  mutable absl::Mutex mu_;
  std::map<std::string, GroupMetadata> groups_ ABSL_GUARDED_BY(mu_);
  ConsumerTopics topics_ ABSL_GUARDED_BY(mu_);  // the metadata image's (OnTopicsChanged)
  bool topics_known_ ABSL_GUARDED_BY(mu_) = false;  // a full OnTopicsChanged came
  int64_t consumer_rebalances_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t share_rebalances_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int32_t, Owned> owned_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<int32_t, int32_t>> loads_ ABSL_GUARDED_BY(mu_);  // (partition, epoch) to load
  std::multimap<int64_t, Timer> timers_ ABSL_GUARDED_BY(mu_);
  uint64_t timer_seq_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t join_order_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t log_order_ ABSL_GUARDED_BY(mu_) = 0;  // GroupMetadata::offset_order's clock
  int64_t rebalances_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t commits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t commit_requests_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t offsets_expired_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t partitions_loaded_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t load_time_ms_total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_load_time_ms_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<int64_t> commit_latency_us_ ABSL_GUARDED_BY(mu_);

  // Taken after mu_, or alone.
  const std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::thread thread_;
};

}  // namespace strata::broker
