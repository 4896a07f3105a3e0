#pragma once
// The broker role of strata-server: it follows the committed
// metadata log into its own metadata image (in combined mode the controller's image is
// shared; a broker-only node runs a RaftObserver into MetadataStore in its
// metadata.log.dir), registers and heartbeats with the active controller, and hands the
// image to the ReplicaManager after every applied entry — but only once the image holds
// this process's own registration (Kafka's initial catch-up): until then the image may
// be the one the node stopped with, and the broker hosts no partition. A failed log dir is
// reported to the controller; a failed metadata.log.dir (checked every second, as the
// Raft driver checks a controller's) stops the node. It serves the partitions on the
// Kafka listeners. Start runs the steps below in order; stopping is Kafka's controlled
// shutdown.
// Not thread-safe: main starts and stops it.

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/auto_topic_creator.h"
#include "broker/lifecycle/broker_lifecycle.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/handlers/fetch_session.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/kafka_apis.h"
#include "broker/network/listener.h"
#include "broker/network/sasl_authenticator.h"
#include "broker/quota/client_quota_manager.h"
#include "security/standard_authorizer.h"
#include "broker/lifecycle/log_dir_monitor.h"
#include "broker/replication/metadata_delta.h"
#include "broker/group/offsets_topic_log.h"
#include "broker/transactions/add_partitions_to_txn_manager.h"
#include "broker/transactions/transaction_coordinator.h"
#include "broker/transactions/txn_marker_channel.h"
#include "broker/lifecycle/producer_id_manager.h"
#include "broker/share/share_coordinator.h"
#include "broker/tiered/remote_log_manager.h"
#include "broker/tiered/remote_log_reader.h"
#include "broker/tiered/remote_sweeper.h"
#include "broker/replication/tier_state_machine.h"
#include "broker/replication/replica_manager.h"
#include "storage/log_manager.h"
#include "storage/remote_storage_manager.h"
#include "storage/scheduler.h"
#include "controller/metadata_store.h"
#include "raft/bootstrap_resolver.h"
#include "raft/observer.h"
#include "storage/meta_properties.h"
#include "server/server_config.h"

namespace strata::server {

class BrokerRole {
 public:
  // shared_store: the controller role's image in combined mode, else nullptr.
  // on_fatal: the metadata log or image failed. on_every_log_dir_failed: no data dir is
  // left online, so nothing this broker holds can be served (both stop the node).
  static absl::StatusOr<std::unique_ptr<BrokerRole>> Start(const ServerConfig& config, const std::string& cluster_id,
                                                           const std::vector<std::string>& log_dir_ids,
                                                           controller::MetadataStore* shared_store,
                                                           std::function<void(const absl::Status&)> on_fatal,
                                                           std::function<void()> on_every_log_dir_failed);
  ~BrokerRole();

  controller::MetadataStore& store() { return *store_; }
  const storage::LogManager& logs() const { return *logs_; }
  // Tiered storage (null without remote.log.storage.system.enable).
  const broker::RemoteLogManager* remote_log_manager() const { return remote_log_manager_.get(); }
  const broker::RemoteLogReader* remote_reader() const { return remote_reader_.get(); }
  const broker::RemoteSweeper* remote_sweeper() const { return remote_sweeper_.get(); }
  const storage::RemoteStorageManager* remote_storage() const { return remote_storage_.get(); }
  const broker::TierStateMachine* tier_state_machine() const { return tier_state_machine_.get(); }
  const broker::GroupCoordinator& group_coordinator() const { return *group_coordinator_; }
  const broker::TransactionCoordinator& transaction_coordinator() const { return *transaction_coordinator_; }
  const broker::AddPartitionsToTxnManager* txn_verifier() const { return txn_verifier_.get(); }
  // What server/broker_metrics.h shows.
  const broker::RequestMetrics& request_metrics() const { return request_metrics_; }
  const broker::ReplicaManager& replicas() const { return *replicas_; }
  // Per listener (by name), the connections open now.
  std::vector<std::pair<std::string, size_t>> ListenerConnections() const;
  // The authorizer (authorizer.class.name; null: none).
  const security::StandardAuthorizer* authorizer() const { return authorizer_.get(); }
  broker::ClientQuotaManager& client_quotas() const { return client_quotas_; }
  // Per SASL listener (by name), its authentication counts.
  const std::vector<std::pair<std::string, std::shared_ptr<broker::SaslMetrics>>>& sasl_metrics() const {
    return sasl_metrics_;
  }
  // Requests waiting in the purgatories of every listener.
  size_t FetchesWaiting() const;
  // The incremental fetch sessions (null when max.incremental.fetch.session.cache.slots=0).
  const broker::FetchSessionCache* fetch_sessions() const { return fetch_sessions_.get(); }
  size_t ProducesWaiting() const;
  // Controlled shutdown within timeout, then stops following metadata.
  void Stop(std::chrono::milliseconds timeout);

 private:
  BrokerRole() = default;
  // The controllers, id -> host:port (server/quorum_bootstrap.h); a dynamic quorum's as
  // its bootstrap servers named them at start.
  std::map<int32_t, std::string> controllers_;
  // The bootstrap servers (MakeQuorumResolver), asked again when the leader is one the
  // client does not know (client_'s rediscover; declared before client_, so it outlives
  // it).
  std::unique_ptr<raft::QuorumResolver> bootstrap_;

  // The steps of Start, in order.
  // The image: the controller role's (combined mode) or this node's own RocksDB store.
  absl::Status OpenMetadataImage(const ServerConfig& config, controller::MetadataStore* shared_store);
  // A broker-only node: observe the committed metadata log into the image, and stop the
  // node (on_fatal) when metadata.log.dir fails.
  absl::Status FollowMetadataLog(const ServerConfig& config, const std::string& cluster_id,
                                 const std::function<void(const absl::Status&)>& on_fatal);
  // The way to the controller: registration and heartbeats, producer-id blocks.
  void StartLifecycle(const ServerConfig& config, const std::string& cluster_id,
                      const std::vector<std::string>& log_dir_ids);
  // The LogManager over log.dirs. A dir that fails, whoever finds it (the storage
  // engine's I/O, the zero-copy re-read, the LogDirMonitor), goes through the LogManager's
  // failure channel: the dir is offline locally (its logs closed), reported to the
  // controller at once, its partitions stop fetching; when none is left, the node stops.
  absl::Status OpenLogs(const ServerConfig& config, const std::string& cluster_id,
                        const std::vector<std::string>& log_dir_ids, std::function<void()> on_every_log_dir_failed);
  // What a failed dir means for the broker (on the scheduler, off the reporting thread).
  void OnLogDirOffline(const std::string& dir);
  // Partitions, follower fetchers and the ISR thread.
  void StartReplicaManager(const ServerConfig& config);
  absl::Status OpenRemoteStorage(const ServerConfig& config);
  void StartRemoteLogManager(const ServerConfig& config);
  void StartRemoteSweeper(const ServerConfig& config);
  // Offset checkpoints and retention on the scheduler.
  absl::Status ScheduleLogTasks(const ServerConfig& config);
  // The coordinators follow the leadership of __consumer_offsets and __transaction_state
  // (from Publish). The partitions of topic this broker leads (partition -> leader epoch), and the
  // topic's partition count (0: it does not exist).
  void FollowCoordinatorTopic(const controller::MetadataImage& image, const std::string& topic,
                              std::map<int32_t, int32_t>& led, int32_t& partitions) const;
  // The LogDirMonitor of log.dirs: what it finds goes into the failure channel.
  void WatchLogDirs(const ServerConfig& config, const std::vector<std::string>& log_dir_ids);
  // One KafkaApis per listener, woken when a high watermark moves.
  void MakeKafkaApis(const ServerConfig& config, const std::string& cluster_id);
  // From now on every applied entry reaches the partitions (once caught up).
  void FollowImage();
  // One broker::Listener per configured listener.
  absl::Status StartListeners(const ServerConfig& config);

  void Publish(const metadata::v1::MetadataBatch& batch, int64_t index);
  // The hosted partitions follow the image in what delta names (everything on the first
  // apply after catching up), once caught_up_.
  void FollowImageLocked(int64_t index, broker::MetadataDelta delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_);
  // The log cleaner takes the dynamic log.cleaner.* configs (this broker's own, else the
  // cluster-wide default, else strata-server's: controller/broker_config.h); a no-op
  // when they did not change or there is no cleaner.
  void ReconfigureCleanerLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_);
  // The remote tier's copy and fetch quotas: the dynamic value (broker, then cluster
  // default) over strata-server's.
  void ReconfigureRemoteQuotasLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_);
  // The SSL listeners serve new connections with the TLS files this broker's dynamic
  // config names (listener.name.<l>.ssl.keystore.location, .ssl.truststore.location),
  // else strata-server's; files that do not load are logged and the listener keeps its.
  void ReloadListenerTlsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_);
  // Stops serving and closes the logs: cleanly (checkpoints, clean-shutdown marker) or not.
  void StopServing(bool clean);

  int32_t broker_id_ = 0;
  // Outlives the listeners, which count into it.
  broker::RequestMetrics request_metrics_;
  std::vector<std::string> listener_names_;  // of listeners_, in order
  std::vector<std::pair<std::string, std::shared_ptr<broker::SaslMetrics>>> sasl_metrics_;
  // Rebuilt from the image whenever its ACLs change (RefreshAcls, on Publish).
  std::unique_ptr<security::StandardAuthorizer> authorizer_;
  std::atomic<int64_t> acl_version_seen_{-1};
  void RefreshAcls();
  // Follows the image's client quotas (on Publish), for every listener's handlers.
  // (Mutable: its metrics measure, which moves its windows along.)
  mutable broker::ClientQuotaManager client_quotas_;
  storage::LogConfig log_defaults_;  // log.* settings: the partitions' defaults
  std::optional<storage::LogCleanerOptions> cleaner_defaults_;  // strata-server's log.cleaner.* (none: disabled)
  std::unique_ptr<controller::MetadataStore> own_store_;
  controller::MetadataStore* store_ = nullptr;
  std::unique_ptr<raft::RaftObserver> observer_;
  std::unique_ptr<broker::ControllerClient> client_;
  std::unique_ptr<broker::BrokerLifecycle> lifecycle_;
  std::unique_ptr<broker::ProducerIdManager> producer_ids_;  // uses lifecycle_ (its epoch)
  std::unique_ptr<broker::LogDirMonitor> dir_monitor_;
  std::unique_ptr<broker::LogDirMonitor> metadata_dir_monitor_;  // its failure stops the node
  std::unique_ptr<storage::Scheduler> scheduler_;
  std::unique_ptr<storage::LogManager> logs_;
  // Tiered storage (remote.log.storage.system.enable; null without). Declared before
  // replicas_, whose fetchers use the tier state machine; the remote log manager, which
  // uses the partitions, after it.
  std::unique_ptr<storage::RemoteStorageManager> remote_storage_;
  std::string remote_storage_description_;  // where its objects go, for the log
  std::unique_ptr<broker::RateQuota> remote_copy_quota_;   // remote.log.manager.copy.max.bytes.per.second
  std::unique_ptr<broker::RateQuota> remote_fetch_quota_;  // remote.log.manager.fetch.max.bytes.per.second
  int64_t static_copy_quota_ = INT64_MAX;   // strata-server's values, under the dynamic ones
  int64_t static_fetch_quota_ = INT64_MAX;
  std::unique_ptr<broker::RemoteChunkCache> remote_chunk_cache_;  // the reader's: destroyed after it
  std::unique_ptr<broker::RemoteLogReader> remote_reader_;
  std::unique_ptr<broker::TierStateMachine> tier_state_machine_;
  std::unique_ptr<broker::ReplicaManager> replicas_;
  std::unique_ptr<broker::RemoteLogManager> remote_log_manager_;
  std::unique_ptr<broker::RemoteSweeper> remote_sweeper_;
  // Creates topics through the controller: auto.create.topics.enable's, and
  // __consumer_offsets (always). Uses client_.
  std::unique_ptr<broker::AutoTopicCreator> topic_creator_;
  // Consumer groups: the coordinator writes to __consumer_offsets through offsets_log_
  // (which uses replicas_; the coordinator goes first).
  std::unique_ptr<broker::OffsetsTopicLog> offsets_log_;
  std::unique_ptr<broker::GroupCoordinator> group_coordinator_;
  // Transactions: the coordinator writes to __transaction_state through txn_log_ and has
  // partition leaders write markers through txn_markers_ (both go after it).
  std::unique_ptr<broker::OffsetsTopicLog> txn_log_;
  std::unique_ptr<broker::TxnMarkerChannel> txn_markers_;
  std::unique_ptr<broker::TransactionCoordinator> transaction_coordinator_;
  // Share groups (KIP-932): the share coordinator writes to __share_group_state through
  // share_log_ (which goes after it).
  std::unique_ptr<broker::OffsetsTopicLog> share_log_;
  std::unique_ptr<broker::ShareCoordinator> share_coordinator_;
  // Partition leaders' verification of transactional batches (KIP-890 part 1; null when
  // transaction.partition.verification.enable is off): asks transaction_coordinator_ (so
  // goes before it) or another broker's.
  std::unique_ptr<broker::AddPartitionsToTxnManager> txn_verifier_;
  // Incremental fetch sessions, shared by the listeners (null when the slots are 0).
  std::unique_ptr<broker::FetchSessionCache> fetch_sessions_;
  std::vector<std::unique_ptr<broker::KafkaApis>> kafka_apis_;  // one per listener
  std::vector<std::unique_ptr<broker::Listener>> listeners_;
  bool stopped_ = false;
  std::function<void()> on_every_log_dir_failed_;
  absl::Mutex publish_mu_;
  bool serving_ ABSL_GUARDED_BY(publish_mu_) = false;  // the partitions follow the image
  // The image held this process's registration once: the partitions may follow it from
  // then on.
  bool caught_up_ ABSL_GUARDED_BY(publish_mu_) = false;
  // The metadata entry the partitions were last brought to (only grows).
  int64_t followed_index_ ABSL_GUARDED_BY(publish_mu_) = 0;
  // Every topic of the followed image, by id: the group coordinator is told the names of
  // deleted ones (their committed offsets go).
  std::map<controller::TopicId, std::string> topic_names_ ABSL_GUARDED_BY(publish_mu_);
  // The SSL listeners' TLS files (ReloadListenerTlsLocked).
  struct ListenerTls {
    std::string name;  // lower case, as in the config keys
    broker::Listener* listener = nullptr;
    broker::TlsOptions configured;  // strata-server's
    broker::TlsOptions loaded;      // serving new connections now
  };
  std::vector<ListenerTls> listener_tls_ ABSL_GUARDED_BY(publish_mu_);
};

}  // namespace strata::server
