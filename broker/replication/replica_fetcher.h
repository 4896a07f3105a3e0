#pragma once
// ReplicaFetcher: one thread that copies the partitions this broker follows from one
// leader, as Kafka's ReplicaFetcherThread. It sends Fetch v12 with replica_id = this
// broker (all its partitions in one request), fetch offset = the log end, the last
// fetched epoch and the leader epoch it knows, over one connection to the leader's
// inter-broker listener, and for each partition:
//   * records: appended with the leader's offsets (a trailing batch cut by max bytes is
//     dropped and fetched whole next time); the high watermark becomes min(leader's,
//     own log end);
//   * diverging epoch: the log is truncated to where it agrees with the leader's;
//   * OFFSET_OUT_OF_RANGE: below the leader's log start the log restarts there, above
//     the leader's log end it is truncated to it (asked with ListOffsets);
//   * a leadership or epoch error: the partition waits `backoff` (the metadata will move
//     it), other partitions go on.
// A connection error closes the connection and waits `backoff` before reconnecting. A
// partition added (or moved to a new epoch) while a fetch waits at the leader cuts that
// fetch short when CutShortForAdded is called (the ReplicaFetcherManager does, once per
// applied metadata entry), so a new follower starts at once.
// The fetches form an incremental fetch session (KIP-227, client/fetch_session_handler.h):
// after the first, a fetch names only the partitions whose log end moved, and the leader
// answers only the partitions with records or a moved high watermark, so an idle
// partition costs nothing per fetch. A session error makes the next fetch a full one.
// It sees the broker only through FollowerPartitions (follower_partitions.h): the
// partitions it follows, their log positions and the follower's answers to a leader.
// Thread-safe (partitions are added and removed from the metadata thread).

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/status.h"
#include "broker/replication/follower_partitions.h"
#include "broker/replication/replication_quota.h"
#include "broker/replication/tier_state_machine.h"
#include "client/fetch_session_handler.h"
#include "client/kafka_connection.h"
#include "storage/file_names.h"

namespace strata::broker {

struct ReplicaFetcherOptions {
  int32_t broker_id = 0;        // this broker (replica_id)
  int32_t leader_id = 0;
  std::string host;             // the leader's inter-broker endpoint
  int port = 0;
  // The inter-broker listener's protocol: TLS and SASL as it needs (the broker's own
  // credentials), checked at each connection.
  client::ClientSecurity security;
  std::chrono::milliseconds max_wait{500};      // replica.fetch.wait.max.ms
  int32_t min_bytes = 1;                        // replica.fetch.min.bytes
  int32_t max_bytes = 10 << 20;                 // replica.fetch.response.max.bytes
  int32_t partition_max_bytes = 1 << 20;        // replica.fetch.max.bytes
  std::chrono::milliseconds backoff{1000};      // replica.fetch.backoff.ms
  // After a leadership or epoch error: the metadata that settles it is milliseconds
  // away (the leader has not applied its own leadership yet, or this broker has not
  // applied the change), so the partition is retried soon rather than after `backoff`.
  std::chrono::milliseconds leadership_backoff{20};
  // Tiered storage: rebuilds a follower's state below the leader's local log start from
  // the remote tier (null: the follower restarts there with none).
  TierStateMachine* tier_state_machine = nullptr;
  // Incremental fetch sessions (KIP-227): a fetch names only the partitions whose
  // position moved, and the leader answers only the ones with something new. Off: every
  // fetch names every partition (tests, comparisons).
  bool fetch_sessions = true;
  // How long the fetcher polls for the leader's answer before it blocks
  // (network.idle.poll.us; 0: it blocks at once).
  std::chrono::microseconds idle_poll{0};
  // follower.replication.throttled.rate (replication_quota.h; null: none): what this
  // follower appends for a throttled partition while it is out of the ISR is counted,
  // and the partition waits while the quota is exceeded.
  ReplicationQuota* quota = nullptr;
};

class ReplicaFetcher {
 public:
  ReplicaFetcher(ReplicaFetcherOptions options, FollowerPartitions* partitions);
  ~ReplicaFetcher();  // stops the thread (a fetch in flight is cut short)

  // Follows tp from this leader in leader_epoch (an update when already followed). A
  // fetch in flight does not name it; CutShortForAdded cuts that fetch short.
  void AddPartition(const storage::TopicPartition& tp, int32_t leader_epoch);
  // When partitions were added (or moved to a new epoch) while a fetch waits at the
  // leader: cuts it short (its connection shut), so that the next fetch, at once, names
  // them. Each cut costs the leader a full fetch of every partition followed from it
  // (a new connection has no fetch session), so a caller adding many partitions cuts
  // once after adding them all.
  void CutShortForAdded();
  void RemovePartition(const storage::TopicPartition& tp);
  size_t partition_count() const;
  const ReplicaFetcherOptions& options() const { return options_; }
  // Fetch responses processed (tests, metrics).
  int64_t fetches() const;
  // Per partition, how far this follower is behind: the leader's high watermark in its
  // last answer minus the log end after appending it (Kafka's ConsumerLag of a replica
  // fetcher); partitions without an answer in their epoch yet are left out.
  std::vector<std::pair<storage::TopicPartition, int64_t>> Lags() const;

 private:
  struct Target {
    int32_t leader_epoch = -1;
    std::chrono::steady_clock::time_point delayed_until;
    // KIP-1023: whether an empty log was looked at for its start in this epoch.
    bool start_checked = false;
    int64_t lag = -1;  // unknown until an answer in this epoch
    // Its position is in the fetch session (session_), and may have moved since it was
    // put there (new, answered since, or not found): read it again before the next fetch.
    bool in_session = false;
    bool stale = true;
  };
  // What one round changes in the session before its fetch: partitions whose position
  // is read again (with their target as it was) and partitions that leave it (removed,
  // or paused after an error). A round costs those, not every partition followed.
  struct Round {
    uint64_t version = 0;  // targets_version_ when taken
    size_t ready = 0;      // partitions not paused
    std::vector<std::pair<storage::TopicPartition, Target>> refresh;
    std::vector<storage::TopicPartition> leave;
  };
  // Every position is read again this often (what moves without an answer: the log
  // start, by this broker's retention).
  static constexpr std::chrono::seconds kFullRefreshInterval{5};
  void Run();
  // One Fetch round; an error means the connection is unusable. None when the targets
  // changed since the round was taken (the caller looks again).
  absl::Status FetchOnce(const Round& round);
  // Puts the position of each partition of round.refresh in the fetch session.
  void RefreshPositions(const Round& round);
  // One partition's part of the leader's answer: its records appended (the high
  // watermark with them), its log truncated to the divergence, or the partition delayed.
  void HandlePartitionAnswer(const storage::TopicPartition& tp, const proto::kafka::FetchResponse::Partition& p);
  void MarkStale(const storage::TopicPartition& tp);
  // OFFSET_MOVED_TO_TIERED_STORAGE: the follower's log end is in the leader's remote
  // tier. It restarts its log at the leader's local log start (ListOffsets
  // EARLIEST_LOCAL) with the state below it from the remote tier (TierStateMachine),
  // and fetches from there.
  absl::Status HandleMovedToTieredStorage(const storage::TopicPartition& tp, int32_t leader_epoch);
  // KIP-1023, before an empty follower's first fetch: it starts at the leader's earliest
  // pending upload offset, with the state below it from the remote tier.
  absl::Status StartAtLastTieredOffset(const storage::TopicPartition& tp, int32_t leader_epoch);
  // Both: the log restarts at fetch_start (the leader's, by ListOffsets) with the state
  // below it.
  absl::Status RestartInRemoteTier(const storage::TopicPartition& tp, FollowerPartition& partition,
                                   int32_t leader_epoch, int64_t fetch_start);
  // The leader's answer to a replica's ListOffsets for timestamp.
  absl::StatusOr<int64_t> LeaderOffset(const storage::TopicPartition& tp, int32_t leader_epoch, int64_t timestamp,
                                       int16_t version);
  absl::Status HandleOutOfRange(const storage::TopicPartition& tp, int32_t leader_epoch, int64_t leader_log_start);
  void Delay(const storage::TopicPartition& tp, const absl::Status& why, std::chrono::milliseconds how_long);
  // Counts `bytes` appended for tp against the follower quota (when tp is throttled and
  // this broker out of its ISR); pauses tp while the quota is exceeded.
  void ThrottleFollower(const storage::TopicPartition& tp, const FollowerPartition& partition, size_t bytes);

  const ReplicaFetcherOptions options_;
  FollowerPartitions* const partitions_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;  // signalled when a partition is added and when stopping
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::map<storage::TopicPartition, Target> targets_ ABSL_GUARDED_BY(mu_);
  // Removed since the fetcher thread last looked (it takes them out of the session).
  std::vector<storage::TopicPartition> removed_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point next_full_refresh_ ABSL_GUARDED_BY(mu_);
  // Shut down from the destructor.
  std::unique_ptr<client::KafkaConnection> connection_ ABSL_GUARDED_BY(mu_);
  bool fetch_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  // A partition was added while the fetch in flight was out (CutShortForAdded cuts it).
  bool added_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  // The fetch in flight was cut short (its connection shut) so that the partitions
  // added do not wait replica.fetch.wait.max.ms.
  bool restart_ ABSL_GUARDED_BY(mu_) = false;
  // Counts the partitions added or moved to a new epoch: one added after Run took its
  // targets but before the fetch was in flight would otherwise wait a whole fetch.
  uint64_t targets_version_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t fetches_ ABSL_GUARDED_BY(mu_) = 0;
  // The fetch session with the leader: the partitions fetched and from where (the
  // fetcher thread's alone).
  client::FetchSessionHandler session_;
  std::thread thread_;
};

}  // namespace strata::broker
