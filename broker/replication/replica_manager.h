#pragma once
// ReplicaManager: the partitions this broker hosts, kept in line with the metadata
// image. For every partition that lists this broker as a replica it opens (or creates)
// the log — in the log dir the controller placed it in, with the topic's configs over
// the broker's log.* defaults — and hands the partition its leader, epochs and ISR
// (partition.h decides what becoming leader or follower means). A partition whose
// topic was deleted, or that no longer lists this broker, is dropped and its log
// deleted. Each log dir records its topic's id in the partition's
// `partition.metadata` (as Kafka), so a log left by a deleted topic is never served
// for a new topic of the same name.
// Appends go through here so that a moved high watermark wakes the fetches waiting
// in the purgatory (on_high_watermark).
// Replication: a partition this broker follows is fetched from its leader by the
// ReplicaFetcherManager; for a partition it leads, the ISR thread asks the controller
// (AlterPartition, with the partition epoch) to drop followers that have not caught up
// for replica.lag.time.max.ms and to add those that caught up; a refused or stale
// change is dropped and asked again from the newest state.
// A metadata entry is applied incrementally: only the topics and partitions it names
// (MetadataDelta), unless it may change every partition (see metadata_delta.h).
// Thread-safe: ApplyImage runs on the metadata thread, lookups and appends on request
// threads.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/replication/follower_partitions.h"
#include "broker/replication/log_dir_mover.h"
#include "broker/replication/metadata_delta.h"
#include "broker/replication/partition.h"
#include "broker/replication/produce_refusals.h"
#include "broker/replication/replica_fetcher_manager.h"
#include "broker/replication/replication_quota.h"
#include "controller/metadata_image.h"
#include "storage/log_manager.h"

namespace strata::broker {

struct ReplicaManagerOptions {
  int32_t broker_id = 0;
  storage::LogManager* logs = nullptr;  // required
  storage::FileOps* ops = storage::FileOps::Default();
  storage::LogConfig default_config;    // the broker's log.* settings
  // Replication. Without a controller no ISR change is asked for; without
  // fetchers (tests) followers do not fetch.
  ControllerChannel* controller = nullptr;
  std::function<int64_t()> broker_epoch;  // the registration AlterPartition names
  bool fetch_from_leaders = true;
  // The leaders' listener the fetchers connect to (inter.broker.listener.name; empty:
  // the first listener the leader registered), of any protocol (fetchers.fetcher.security).
  std::string inter_broker_listener;
  ReplicaFetcherManagerOptions fetchers;
  int64_t replica_lag_time_max_ms = 30000;  // replica.lag.time.max.ms
  int32_t default_min_insync_replicas = 1;  // min.insync.replicas (a topic's own overrides it)
  // Leader lease: how long ago the controller last accepted a heartbeat (nullptr: never
  // stranded). A leader that has reached neither the controller nor any other ISR
  // member for leader_lease_ms is stranded (Stranded()).
  std::function<std::chrono::milliseconds()> since_controller_contact;
  int64_t leader_lease_ms = 7000;  // broker.session.timeout.ms - broker.heartbeat.interval.ms
  // For this long after a partition's leader epoch began here, a gap in an idempotent
  // producer's first batch of the epoch is answered NOT_LEADER_OR_FOLLOWER (the missing
  // batch may still come back from the previous leader): Kafka clients' default
  // request.timeout.ms, within which the previous leader's answer comes or the request
  // is given up. Later it is OUT_OF_ORDER_SEQUENCE_NUMBER, as Kafka answers.
  int64_t new_leader_gap_retriable_ms = 30000;
  storage::Clock* clock = storage::Clock::System();
  // AlterReplicaLogDirs' copy (log_dir_mover.h): bytes per step, and
  // replica.alter.log.dirs.io.max.bytes.per.second (0: unpaced).
  uint64_t log_dir_move_step_bytes = 1 << 20;
  double log_dir_move_max_bytes_per_second = 0;
};

// The finished copies of a partition in the remote tier, summed up (segments: null for none).
// log_start_bound: the partition's log start as DeleteRecords moved it in the quorum
// (Partition.log_start_offset): the tier's log start is never below it, and copies that
// end below it serve nothing (counted until the remote log manager deletes them).
RemoteTierState RemoteTierOf(const controller::RemoteLogSegments* segments, bool enabled,
                             int64_t log_start_bound = 0);

// The log settings of topic on broker broker_id, in Kafka's order: defaults (the broker's
// static log.* settings), the image's dynamic broker-level ones — the cluster-wide
// default (resource ""), then the broker's own — and the topic's configs on top, each
// checked against storage::TopicSettings() (a broker layer by the settings' broker-level
// names, log.retention.ms...). A value the log refuses (one an older controller took)
// keeps what the layers below gave it and is added to refused (if not null); the other
// settings still apply.
storage::LogConfig TopicLogConfig(const controller::MetadataImage& image, const std::string& topic,
                                  int32_t broker_id, const storage::LogConfig& defaults,
                                  std::vector<absl::Status>* refused);

class ReplicaManager final : public FollowerPartitions {
 public:
  explicit ReplicaManager(ReplicaManagerOptions options);
  ~ReplicaManager();

  // Brings every hosted partition in line with image (idempotent). A partition whose log
  // cannot be opened is skipped (its log dir is reported offline by the storage layer)
  // and retried at the next apply.
  void ApplyImage(const controller::MetadataImage& image);
  // The same for only what delta names, after the entry it came from was applied to
  // image: the partitions it names (and the logs not opened yet), every partition of a
  // topic it created, deleted or configured; everything when delta.full.
  // REQUIRES: delta.full, or every earlier entry reached ApplyImage (an incremental apply
  // builds on a full one).
  void ApplyImage(const controller::MetadataImage& image, const MetadataDelta& delta);
  // Whether ApplyImage ran: before that the broker had not caught up with the metadata
  // log (see server/broker_role.h) and hosts nothing yet.
  bool following_image() const { return following_image_.load(); }

  // nullptr when this broker does not host tp.
  std::shared_ptr<Partition> GetPartition(const storage::TopicPartition& tp) const;
  // Replication throttles (replication_quota.h), from the image at each apply: the
  // leader's quota (leader.replication.throttled.rate and .replicas) counts what this
  // broker sends to throttled followers out of the ISR, the follower's what its
  // fetchers append for throttled partitions while it is out of the ISR.
  ReplicationQuota& leader_quota() { return leader_quota_; }
  ReplicationQuota& follower_quota() { return follower_quota_; }
  // Whether a read of `partition` for follower `replica` counts against the leader's
  // quota: the partition is leader-throttled here and the follower is not in the ISR.
  bool LeaderThrottles(const Partition& partition, int32_t replica) const;
  // The same for the ReplicaFetchers (all they see of the ReplicaManager).
  std::shared_ptr<FollowerPartition> GetFollowerPartition(const storage::TopicPartition& tp) const override {
    return GetPartition(tp);
  }
  void FollowerHighWatermarkMoved(const storage::TopicPartition& tp) override { NotifyHighWatermark(tp); }
  std::vector<storage::TopicPartition> partitions() const;

  // A partition this broker leads is stranded when for leader_lease_ms no heartbeat
  // reached the controller and no other ISR member fetched: the broker is cut off, the
  // controller has fenced it (its session timeout is longer by a heartbeat interval) and
  // may have elected another leader, and nothing appended here can be acknowledged
  // (acks=all: the ISR cannot shrink without the controller). A stranded partition
  // refuses produce (NOT_LEADER_OR_FOLLOWER) and Metadata from this broker names no
  // leader for it (LEADER_NOT_AVAILABLE), so that clients look for the new leader
  // elsewhere instead of going back and forth between two brokers that both say they
  // lead. A broker that only lost the controller (the quorum is down) but whose
  // followers still fetch keeps leading, as Kafka's does; so does the only ISR member.
  bool Stranded(const Partition& partition) const;
  int64_t leader_lease_ms() const { return options_.leader_lease_ms; }
  // The broker's logs (DescribeLogDirs).
  const storage::LogManager& logs() const { return *options_.logs; }
  std::set<storage::TopicPartition> StrandedPartitions() const;
  // Whether the latest image names another leader (or none) for tp, which this broker
  // led: also for a partition whose log dir is offline, whose own state is no longer
  // updated. A produce answered KAFKA_STORAGE_ERROR is held until then, so that the
  // client's metadata refresh right after finds the new leader (produce_handler.cc).
  bool LeadershipLeft(const storage::TopicPartition& tp) const;
  // Waits until the image names another leader for every partition in an offline log
  // dir that this broker led (a broker whose every dir failed answers the produces it
  // holds before it stops); false at the timeout.
  bool WaitOfflineLeadershipsMoved(std::chrono::milliseconds timeout) const;

  // Appends a producer's records to the partition this broker leads, then wakes
  // waiting fetches when the high watermark moved. A gap in an idempotent producer's
  // sequence that a retry will fill is answered with a retriable error, not
  // OUT_OF_ORDER_SEQUENCE_NUMBER: a gap behind a batch refused here for a passing
  // reason (with that refusal's error, produce_refusals.h), and a gap in the producer's
  // first batch of this leader epoch (NOT_LEADER_OR_FOLLOWER: the missing batch went
  // to the previous leader). docs/idempotence.md says why.
  // origin: kCoordinator for the transaction coordinator's markers (WriteTxnMarkers).
  // verification: KIP-890 part 1's guard (StartTxnVerification).
  absl::StatusOr<storage::LogAppendInfo> AppendRecords(const storage::TopicPartition& tp, std::string& records,
                                                       storage::AppendOrigin origin = storage::AppendOrigin::kClient,
                                                       const storage::TxnVerification& verification = {});
  // The guard a producer's batch that opens a transaction on tp is appended with once
  // the coordinator verified it (storage::Log::StartTxnVerification); 0: its
  // transaction is open there already. NOT_LEADER_OR_FOLLOWER when tp is not here.
  // epoch_bump: the producer runs transaction protocol version 2 (producer_state.h).
  absl::StatusOr<uint64_t> StartTxnVerification(const storage::TopicPartition& tp, int64_t producer_id,
                                                int16_t producer_epoch, bool epoch_bump = false);
  // After the batch of a non-zero guard was appended or refused.
  void EndTxnVerification(const storage::TopicPartition& tp, int64_t producer_id);
  // A produce of records to tp refused before AppendRecords (the produce handler's own
  // checks: no such partition here, min.insync.replicas): stored nothing.
  void ProduceRefused(const storage::TopicPartition& tp, absl::string_view records, const absl::Status& refusal) {
    produce_refusals_.Refused(tp, records, refusal);
  }

  // Called with a partition whose high watermark moved (outside any lock), or whose log
  // start moved here or on a follower (DeleteRecords waits for the followers').
  void set_on_high_watermark(std::function<void(const storage::TopicPartition&)> callback);
  // The leader's log start of tp moved (DeleteRecords): the followers' fetches waiting on
  // it answer now, carrying the new log start.
  void LogStartMoved(const storage::TopicPartition& tp) { NotifyHighWatermark(tp); }
  // DeleteRecords on a partition with remote storage that this broker leads: moves the
  // partition's log start across both tiers to offset in the quorum (the controller's
  // RemoteLogStartOffset record), so that no replica, this one or a later leader, serves
  // the remote copies below it, and the remote log manager deletes those that end below
  // it. Blocks until the controller answered or deadline passed (REQUEST_TIMED_OUT);
  // nothing is asked when the log start is there already or the topic has no remote
  // storage. The image that carries it wakes the DeleteRecords waiting on tp.
  absl::Status MoveRemoteLogStart(const Partition& partition, int64_t offset, std::chrono::milliseconds deadline);

  // Leader: a follower's fetch from fetch_offset, answered while the log ended at
  // leader_log_end, reporting its log start follower_log_start (-1: not reported).
  // Tracks the follower (ISR, high watermark, DeleteRecords' low watermark); wakes
  // waiting requests when the high watermark or the follower's log start moved and asks
  // the controller to add the follower to the ISR once it caught up.
  void UpdateFollowerFetchState(Partition& partition, int32_t replica_id, int64_t fetch_offset,
                                int64_t leader_log_end, int64_t follower_log_start = -1);
  // A log dir went offline (LogDirFailureChannel, on the scheduler): the partitions in it
  // stop fetching; they answer KAFKA_STORAGE_ERROR (their logs refuse all work), and
  // later images neither follow nor lead them here.
  void OnLogDirOffline(const std::string& dir);
  // AlterReplicaLogDirs (Kafka's ReplicaManager.alterReplicaLogDirs): moves each replica
  // to the log dir (a path of log.dirs) named for it, through a future log in that dir
  // (storage::LogManager, "<topic>-<partition>.<id>-future") that the log dir mover
  // (log_dir_mover.h) fills from the current log while the replica keeps serving, then
  // puts in the current log's place. Per partition: OK once the move is under way (or
  // nothing to move: the replica is there already, and a move elsewhere in progress is
  // cancelled); LOG_DIR_NOT_FOUND for a path not in log.dirs, KAFKA_STORAGE_ERROR when
  // that dir, the replica's own or any other dir is offline (no future log is made while
  // one is: see docs), REPLICA_NOT_AVAILABLE when this broker does not host the replica
  // yet (the dir is remembered: the replica is created there), INVALID_TOPIC_EXCEPTION
  // for a name too long for the future log's directory name. Errors carry Kafka's codes
  // (KafkaError).
  std::map<storage::TopicPartition, absl::Status> AlterReplicaLogDirs(
      const std::map<storage::TopicPartition, std::string>& dirs);

  // Stops the fetchers and the ISR thread (before the logs close).
  void Shutdown();
  const ReplicaFetcherManager* fetchers() const { return fetchers_.get(); }
  // The replica moves between log dirs (AlterReplicaLogDirs).
  const LogDirMover& log_dir_mover() const { return *mover_; }
  // AlterPartition requests sent / refused by the controller (tests, metrics).
  int64_t isr_changes_sent() const;
  int64_t isr_changes_failed() const;
  // ISR changes of partitions this broker led before and after them, as the image
  // showed them: fewer members (shrinks) or more (expands), as Kafka's IsrShrinksPerSec /
  // IsrExpandsPerSec. Both the ones this leader asked for and the controller's (it drops
  // a fenced broker from every ISR itself).
  int64_t isr_shrinks() const { return isr_shrinks_.load(std::memory_order_relaxed); }
  int64_t isr_expands() const { return isr_expands_.load(std::memory_order_relaxed); }
  // ApplyImage calls so far and the time they took (each applied metadata entry makes
  // one): the cost of a metadata change on this broker. Of those, the full ones, and the
  // partitions of this broker they brought in line (a full apply: every one).
  int64_t image_applies() const { return image_applies_.load(std::memory_order_relaxed); }
  int64_t image_apply_micros() const { return image_apply_micros_.load(std::memory_order_relaxed); }
  int64_t image_full_applies() const { return image_full_applies_.load(std::memory_order_relaxed); }
  int64_t image_apply_partitions() const { return image_apply_partitions_.load(std::memory_order_relaxed); }
  // The replicas of tp an ISR expansion may propose, as of the last apply (nullopt: tp
  // lists no replica here). For tests and diagnostics.
  std::optional<std::set<int32_t>> ReplicasEligibleForIsr(const storage::TopicPartition& tp) const;
  // Every hosted partition, for the metrics (server/broker_metrics.h).
  struct HostedPartition {
    std::shared_ptr<Partition> partition;
    int32_t min_insync_replicas = 1;
  };
  std::vector<HostedPartition> HostedPartitions() const;
  // One hosted partition with its topic's min.insync.replicas (as last applied), or
  // nullopt: what a produce needs, in one lookup rather than two of the image.
  std::optional<HostedPartition> FindHosted(const storage::TopicPartition& tp) const;

  // Kafka's partition.metadata: "version: 0\ntopic_id: <base64>\n".
  static std::string PartitionMetadataText(const std::string& topic_id);

 private:
  struct Hosted {
    std::shared_ptr<Partition> partition;
    std::string topic_id;
    storage::LogConfig config;
    int32_t min_insync_replicas = 1;
  };
  // What one ApplyImage brings in line (ApplyScope) and what it found (ImageWalk);
  // replica_manager.cc.
  struct ApplyScope;
  struct ImageWalk;
  ApplyScope ScopeOf(const controller::MetadataImage& image, const MetadataDelta& delta) const;
  // One partition listing this broker (or not: then it is only skipped).
  void ApplyPartition(const controller::MetadataImage& image, const controller::TopicState& topic, int32_t index,
                      const metadata::v1::Partition& p, const storage::LogConfig& config, int32_t min_isr,
                      ImageWalk& walk);
  // Drops what the scope covers and the walk did not want (a deleted topic, a replica
  // moved away), and sets the ISR eligibility of what it covers.
  void ForgetUnwanted(const ApplyScope& scope, ImageWalk& walk);
  // After a full apply: deletes every log on disk that the image does not place here —
  // a stray replica (Kafka's name), left by a reassignment or a topic deletion that
  // happened while this broker was down. The first full apply holds this process's own
  // registration (the broker waits for it), so every partition placed here then is in it.
  void DeleteStrayLogs();
  // The throttle rates (replication, and replica moves between log dirs) and throttled
  // partitions as the image sets them.
  void ApplyThrottles(const controller::MetadataImage& image);
  // The log of tp for topic_id: existing (when its partition.metadata agrees) or new.
  absl::StatusOr<storage::Log*> OpenLog(const storage::TopicPartition& tp, const std::string& topic_id,
                                        const storage::LogConfig& config, const std::string& directory_id);
  // AlterReplicaLogDirs for one partition (replica_log_dirs.cc).
  absl::Status AlterReplicaLogDir(const storage::TopicPartition& tp, const std::string& dir);
  // A partition just hosted: a future log left by a move that a restart interrupted is
  // attached and its copy goes on. Its log dir, when the image names another one, is
  // reported to the controller (replica_log_dirs.cc).
  void ResumeLogDirMove(const storage::TopicPartition& tp, Partition& partition);
  void CheckDirectoryAssignment(const storage::TopicPartition& tp, const Partition& partition,
                                const std::string& topic_id, const std::string& assigned_directory_id);
  // The directory id to create tp's log in: one an AlterReplicaLogDirs named before the
  // replica was here (taken), else the image's.
  std::string DirectoryForNewLog(const storage::TopicPartition& tp, const std::string& assigned_directory_id);
  // Forgets tp and deletes its log once no request holds the partition any more.
  void DropPartition(const storage::TopicPartition& tp, Hosted hosted);
  storage::LogConfig ConfigFor(const controller::MetadataImage& image, const std::string& topic) const;
  int32_t MinInsyncReplicasOf(const controller::MetadataImage& image, const std::string& topic) const;
  // No heartbeat accepted by the controller for leader_lease_ms (never without
  // since_controller_contact).
  bool ControllerOutOfReach() const;
  // Starts or stops fetching tp after its state changed.
  void FollowLeader(const controller::MetadataImage& image, const storage::TopicPartition& tp,
                    const PartitionState& state);
  void NotifyHighWatermark(const storage::TopicPartition& tp);
  // For a produce to the partition this broker leads refused with gap: the retriable
  // error to answer instead of OUT_OF_ORDER_SEQUENCE_NUMBER when a retry fills the gap
  // (AppendRecords), else nullopt.
  std::optional<absl::Status> GapToBeFilled(const storage::TopicPartition& tp, const Partition& partition,
                                            absl::string_view records, const storage::SequenceGap& gap) const;
  // The ISR thread: every replica.lag.time.max.ms / 2 it shrinks the ISR of partitions
  // with laggards; expansions queued by follower fetches go at once.
  void RunIsrChanges();
  // An ISR to ask the controller for; pending: already the partition's pending ISR (an
  // expansion), else set pending when sent (a shrink).
  struct IsrChange {
    storage::TopicPartition tp;
    std::vector<int32_t> isr;
    bool pending = false;
  };
  void SendIsrChanges(const std::vector<IsrChange>& changes);

  const ReplicaManagerOptions options_;
  absl::Mutex apply_mu_;  // one ApplyImage at a time
  mutable absl::Mutex mu_ ABSL_ACQUIRED_AFTER(apply_mu_);
  std::map<storage::TopicPartition, Hosted> hosted_ ABSL_GUARDED_BY(mu_);
  // Partitions whose log could not be opened, with their topic id (said once; every
  // ApplyImage retries them).
  std::map<storage::TopicPartition, controller::TopicId> unopened_ ABSL_GUARDED_BY(mu_);
  // Partitions in offline log dirs: the leader the latest image names.
  std::map<storage::TopicPartition, int32_t> offline_leaders_ ABSL_GUARDED_BY(mu_);
  std::function<void(const storage::TopicPartition&)> on_high_watermark_ ABSL_GUARDED_BY(mu_);
  // Before fetchers_, whose fetchers hold the follower quota.
  ReplicationQuota leader_quota_;
  ReplicationQuota follower_quota_;
  std::unique_ptr<ReplicaFetcherManager> fetchers_;
  std::unique_ptr<LogDirMover> mover_;
  // One AlterReplicaLogDirs change at a time (a move started, redirected or cancelled).
  absl::Mutex move_mu_;
  // AlterReplicaLogDirs for replicas not here yet: the dir to create them in (Kafka's
  // preferred log dir).
  std::map<storage::TopicPartition, std::string> preferred_dirs_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> following_image_{false};

  ProduceRefusals produce_refusals_;

  // Partitions stranded at the ISR thread's last look (that thread only).
  std::set<storage::TopicPartition> stranded_;
  mutable absl::Mutex isr_mu_;
  bool isr_stopping_ ABSL_GUARDED_BY(isr_mu_) = false;
  std::map<storage::TopicPartition, std::vector<int32_t>> isr_expansions_ ABSL_GUARDED_BY(isr_mu_);
  // Pending ISR changes the controller did not answer: sent again.
  std::map<storage::TopicPartition, std::vector<int32_t>> isr_unanswered_ ABSL_GUARDED_BY(isr_mu_);
  // Per partition, the replicas whose broker is neither fenced nor shutting down and whose
  // log dir is online in the last image applied: the only ones an ISR expansion proposes.
  std::map<storage::TopicPartition, std::set<int32_t>> eligible_for_isr_ ABSL_GUARDED_BY(isr_mu_);
  int64_t isr_sent_ ABSL_GUARDED_BY(isr_mu_) = 0;
  int64_t isr_failed_ ABSL_GUARDED_BY(isr_mu_) = 0;
  std::atomic<int64_t> isr_shrinks_{0};
  std::atomic<int64_t> isr_expands_{0};
  std::atomic<int64_t> image_applies_{0};
  std::atomic<int64_t> image_apply_micros_{0};
  std::atomic<int64_t> image_full_applies_{0};
  std::atomic<int64_t> image_apply_partitions_{0};
  std::thread isr_thread_;
};

}  // namespace strata::broker
