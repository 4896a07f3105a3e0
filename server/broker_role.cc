#include "server/broker_role.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/network/tls_context.h"
#include "controller/broker_config.h"
#include "broker/handlers/kafka_apis.h"
#include "server/control_plane_security.h"
#include "server/listener_security.h"
#include "server/controller_role.h"
#include "server/metadata_log_dir.h"
#include "controller/features.h"
#include "server/quorum_bootstrap.h"

namespace strata::server {
namespace {

// How long a broker of a dynamic quorum waits at start for its bootstrap servers to name
// the voters.
constexpr std::chrono::seconds kFindControllersPatience{60};

// The broker's settings under Kafka's names, as DescribeConfigs shows them.
std::map<std::string, std::string> StaticConfigs(const ServerConfig& config) {
  std::map<std::string, std::string> out = config.log_settings;
  auto add = [&](const std::string& name, const auto& value) { out[name] = absl::StrCat(value); };
  std::string listeners, voters;
  for (const Listener& l : config.listeners) {
    absl::StrAppend(&listeners, listeners.empty() ? "" : ",", l.name, "://", l.host, ":", l.port);
  }
  for (const auto& [id, address] : config.voters) {
    absl::StrAppend(&voters, voters.empty() ? "" : ",", id, "@", address);
  }
  add("node.id", config.node_id);
  add("broker.id", config.node_id);
  add("process.roles", config.process_roles);
  if (config.dynamic_quorum()) {
    add("controller.quorum.bootstrap.servers", absl::StrJoin(config.bootstrap_servers, ","));
  } else {
    add("controller.quorum.voters", voters);
  }
  add("listeners", listeners);
  add("log.dirs", absl::StrJoin(config.log_dirs, ","));
  add("metadata.log.dir", config.metadata_log_dir);
  if (!config.broker_rack.empty()) add("broker.rack", config.broker_rack);
  add("broker.heartbeat.interval.ms", config.broker_heartbeat_interval_ms);
  add("broker.session.timeout.ms", config.broker_session_timeout_ms);
  add("num.network.threads", config.num_network_threads);
  add("num.io.threads", config.num_io_threads);
  add("socket.request.max.bytes", config.socket_request_max_bytes);
  add("connections.max.idle.ms", config.connections_max_idle_ms);
  add("num.partitions", config.num_partitions);
  add("default.replication.factor", config.default_replication_factor);
  add("min.insync.replicas", config.min_insync_replicas);
  add("unclean.leader.election.enable", config.unclean_leader_election_enable ? "true" : "false");
  add("delete.topic.enable", config.delete_topic_enable ? "true" : "false");
  // The log cleaner's, which dynamic configs change (controller/broker_config.h).
  add("log.cleaner.enable", config.log_cleaner_enable ? "true" : "false");
  add("log.cleaner.threads", config.log_cleaner_threads);
  add("log.cleaner.dedupe.buffer.size", config.log_cleaner_dedupe_buffer_size);
  add("log.cleaner.io.max.bytes.per.second", config.log_cleaner_io_max_bytes_per_second);
  add("log.cleaner.backoff.ms", config.log_cleaner_backoff_ms);
  add("replica.alter.log.dirs.io.max.bytes.per.second", config.replica_alter_log_dirs_io_max_bytes_per_second);
  add("remote.log.manager.copy.max.bytes.per.second", config.remote_log_manager_copy_max_bytes_per_second);
  add("remote.log.manager.fetch.max.bytes.per.second", config.remote_log_manager_fetch_max_bytes_per_second);
  return out;
}

// The type and doc of each broker setting DescribeConfigs may show: the dynamic ones, the
// log defaults (by their broker-level names), and strata-server's own table over both.
std::map<std::string, broker::KafkaApisContext::ConfigDoc> BrokerConfigDocs() {
  std::map<std::string, broker::KafkaApisContext::ConfigDoc> out;
  for (const storage::TopicSetting& s : controller::DynamicBrokerSettings()) out[s.name] = {s.type_name(), s.doc};
  for (const storage::TopicSetting& s : storage::TopicSettings()) {
    if (!s.broker_key.empty()) out[s.broker_key] = {s.type_name(), s.doc};
  }
  for (const ServerSetting& s : ServerSettings()) out[s.name] = {s.type, s.doc};
  return out;
}

// The topics gone from the image since the last one, by id with their names (topic_names
// keeps each id's name, since a deletion names its topic by id only); topic_names follows
// the image.
std::map<controller::TopicId, std::string> FollowTopicNames(const controller::MetadataImage& image,
                                                            const broker::MetadataDelta& delta,
                                                            std::map<controller::TopicId, std::string>& topic_names) {
  std::map<controller::TopicId, std::string> deleted;
  if (delta.full) {
    std::map<controller::TopicId, std::string> now;
    for (const auto& [id, topic] : image.topics()) now.emplace(id, topic.name);
    for (const auto& [id, name] : topic_names) {
      if (now.count(id) == 0) deleted.emplace(id, name);
    }
    topic_names = std::move(now);
    return deleted;
  }
  for (const controller::TopicId& id : delta.deleted_topic_ids) {
    auto it = topic_names.find(id);
    if (it == topic_names.end()) continue;
    deleted.emplace(id, it->second);
    topic_names.erase(it);
  }
  for (const auto& [id, change] : delta.changed_topics) {
    if (const controller::TopicState* t = image.FindTopicById(id)) topic_names[id] = t->name;
  }
  return deleted;
}

// The topics a consumer group's assignment depends on (name, id, partition count): every
// one for a full delta, else those the delta created or changed.
broker::ConsumerTopics ConsumerTopicsOf(const controller::MetadataImage& image, const broker::MetadataDelta& delta) {
  broker::ConsumerTopics out;
  auto add = [&out](const controller::TopicState& t, const controller::TopicId& id) {
    out[t.name] = {id, static_cast<int32_t>(t.partitions.size())};
  };
  if (delta.full) {
    for (const auto& [id, topic] : image.topics()) add(topic, id);
    return out;
  }
  for (const auto& [id, change] : delta.changed_topics) {
    if (const controller::TopicState* t = image.FindTopicById(id)) add(*t, id);
  }
  return out;
}

// The inter-broker endpoint (listener; empty: the first) of tp's leader; broker_id -1
// when it has none now or it is fenced.
broker::BrokerEndpoint LeaderEndpoint(const controller::MetadataImage& image, const storage::TopicPartition& tp,
                                      const std::string& listener) {
  broker::BrokerEndpoint e;
  const controller::TopicState* t = image.FindTopic(tp.topic);
  if (t == nullptr) return e;
  auto p = t->partitions.find(tp.partition);
  if (p == t->partitions.end()) return e;
  auto b = image.brokers().find(p->second.leader());
  if (b == image.brokers().end() || b->second.fenced()) return e;
  for (const auto& endpoint : b->second.registration().endpoints()) {
    if (listener.empty() ? e.broker_id < 0 : endpoint.name() == listener) {
      e.broker_id = p->second.leader();
      e.host = endpoint.host();
      e.port = endpoint.port();
    }
  }
  return e;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BrokerRole>> BrokerRole::Start(const ServerConfig& config, const std::string& cluster_id,
                                                              const std::vector<std::string>& log_dir_ids,
                                                              controller::MetadataStore* shared_store,
                                                              std::function<void(const absl::Status&)> on_fatal,
                                                              std::function<void()> on_every_log_dir_failed) {
  std::unique_ptr<BrokerRole> role(new BrokerRole());
  role->broker_id_ = config.node_id;
  STRATA_RETURN_IF_ERROR(CheckControlPlaneTls(config));
  role->bootstrap_ = MakeQuorumResolver(config, cluster_id);
  if (config.dynamic_quorum()) {
    STRATA_ASSIGN_OR_RETURN(role->controllers_, FindControllers(*role->bootstrap_, kFindControllersPatience));
  } else {
    role->controllers_ = config.voters;
  }
  STRATA_RETURN_IF_ERROR(role->OpenMetadataImage(config, shared_store));
  if (shared_store == nullptr) STRATA_RETURN_IF_ERROR(role->FollowMetadataLog(config, cluster_id, on_fatal));
  // Before the lifecycle, whose heartbeats report the tier state machine.
  STRATA_RETURN_IF_ERROR(role->OpenRemoteStorage(config));
  role->StartLifecycle(config, cluster_id, log_dir_ids);
  STRATA_RETURN_IF_ERROR(role->OpenLogs(config, cluster_id, log_dir_ids, std::move(on_every_log_dir_failed)));
  role->StartReplicaManager(config);
  role->StartRemoteLogManager(config);
  role->StartRemoteSweeper(config);
  STRATA_RETURN_IF_ERROR(role->ScheduleLogTasks(config));
  role->WatchLogDirs(config, log_dir_ids);
  role->MakeKafkaApis(config, cluster_id);
  role->FollowImage();
  STRATA_RETURN_IF_ERROR(role->StartListeners(config));
  role->lifecycle_->StartSessionStream();  // the controller checks the listeners when it opens
  spdlog::info("broker {} started: log dirs {}, metadata from {}", config.node_id, config.log_dirs.size(),
               shared_store ? "this node's controller" : "the controllers (observer)");
  return role;
}

absl::Status BrokerRole::OpenMetadataImage(const ServerConfig& config, controller::MetadataStore* shared_store) {
  if (shared_store != nullptr) {
    store_ = shared_store;
  } else {
    STRATA_ASSIGN_OR_RETURN(own_store_, controller::MetadataStore::Open(
                                            storage::JoinPath(config.metadata_log_dir, kMetadataImageDir)));
    store_ = own_store_.get();
  }
  // Deltas: the listener runs on the applying thread, after the image changed.
  store_->set_listener([this](const metadata::v1::MetadataBatch& batch, int64_t index) { Publish(batch, index); });
  return absl::OkStatus();
}

absl::Status BrokerRole::FollowMetadataLog(const ServerConfig& config, const std::string& cluster_id,
                                           const std::function<void(const absl::Status&)>& on_fatal) {
  raft::RaftObserverOptions o;
  o.cluster_id = cluster_id;
  for (const auto& [id, address] : controllers_) o.voters.push_back({id, address});
  o.state_machine = store_;
  o.dir = config.metadata_log_dir;
  o.persist_log = true;  // the broker keeps its own copy of the metadata log
  o.applied = store_->applied().index;
  o.on_fatal = on_fatal;
  o.credentials = security::ChannelCredentials(ControlPlaneTlsFiles(config));
  STRATA_ASSIGN_OR_RETURN(observer_, raft::RaftObserver::Start(o));
  metadata_dir_monitor_ = WatchMetadataLogDir(config.metadata_log_dir, on_fatal);
  return absl::OkStatus();
}

void BrokerRole::StartLifecycle(const ServerConfig& config, const std::string& cluster_id,
                                const std::vector<std::string>& log_dir_ids) {
  client_ = std::make_unique<broker::ControllerClient>(controllers_, std::chrono::seconds(5),
                                                       security::ChannelCredentials(ControlPlaneTlsFiles(config)));
  // The voters change (a dynamic quorum, or a static one upgraded to kraft.version 1):
  // a leader the client does not know sends it back to the bootstrap servers (a static
  // quorum's: controller.quorum.voters), whose answers name the voters then. A static
  // quorum not upgraded (kraft.version 0 in the image) has nothing to find: no call.
  client_->SetRediscover([this, dynamic = config.dynamic_quorum()] {
    std::vector<broker::ControllerAddress> found;
    if (!dynamic && store_->WithImage([](const controller::MetadataImage& image) {
          return image.FeatureLevelOf(controller::kKraftVersionFeature);
        }) == 0) {
      return found;
    }
    std::vector<raft::ObservedVoter> voters;
    for (const auto& [id, address] : AskBootstrapServers(*bootstrap_)) {
      found.push_back({id, address});
      voters.push_back({id, address});
    }
    // The metadata stream follows the same voters (a broker-only node's observer).
    if (observer_ != nullptr && !voters.empty()) observer_->SetVoters(std::move(voters));
    return found;
  });
  broker::BrokerLifecycleOptions lo;
  lo.broker_id = config.node_id;
  lo.cluster_id = cluster_id;
  for (const Listener& l : config.listeners) {
    metadata::v1::BrokerEndpoint e;
    e.set_name(l.name);
    e.set_host(l.advertised_host);
    e.set_port(l.advertised_port);
    e.set_security_protocol(l.security_protocol);
    lo.listeners.push_back(std::move(e));
  }
  lo.rack = config.broker_rack;
  lo.log_dir_ids = log_dir_ids;
  lo.heartbeat_interval = std::chrono::milliseconds(config.broker_heartbeat_interval_ms);
  lo.metadata_offset = [store = store_] { return store->applied().index; };
  if (tier_state_machine_) {
    lo.tier_state_failing = [machine = tier_state_machine_.get()] { return machine->failing(); };
  }
  lifecycle_ = std::make_unique<broker::BrokerLifecycle>(*client_, lo);
  // Producer-id blocks from the controller, asked for with the broker's current epoch.
  producer_ids_ = std::make_unique<broker::ProducerIdManager>(broker::ControllerBlockSource(
      *client_, config.node_id, [lifecycle = lifecycle_.get()] { return lifecycle->status().broker_epoch; }));
}

absl::Status BrokerRole::OpenLogs(const ServerConfig& config, const std::string& cluster_id,
                                  const std::vector<std::string>& log_dir_ids,
                                  std::function<void()> on_every_log_dir_failed) {
  on_every_log_dir_failed_ = std::move(on_every_log_dir_failed);
  scheduler_ = std::make_unique<storage::Scheduler>(1);
  storage::LogManagerOptions lmo;
  lmo.log_dirs = config.log_dirs;
  lmo.cluster_id = cluster_id;
  lmo.node_id = config.node_id;
  STRATA_ASSIGN_OR_RETURN(log_defaults_, storage::LogConfig::FromProperties(config.log_settings));
  log_defaults_.follower_fetch_last_tiered_offset = config.follower_fetch_last_tiered_offset_enable;
  lmo.default_config = log_defaults_;
  lmo.scheduler = scheduler_.get();
  lmo.directory_ids = log_dir_ids;
  if (config.log_cleaner_enable) {
    storage::LogCleanerOptions co;
    co.threads = config.log_cleaner_threads;
    co.dedupe_buffer_size = config.log_cleaner_dedupe_buffer_size;
    co.io_max_bytes_per_second = config.log_cleaner_io_max_bytes_per_second == INT64_MAX
                                     ? 0
                                     : static_cast<double>(config.log_cleaner_io_max_bytes_per_second);
    co.backoff_ms = config.log_cleaner_backoff_ms;
    lmo.cleaner = co;
    cleaner_defaults_ = co;
  }
  STRATA_ASSIGN_OR_RETURN(logs_, storage::LogManager::Open(lmo));
  // The channel may call from under the LogManager's own lock: the listener must not
  // call back into it (the dir's id comes from meta.properties as read at start).
  std::map<std::string, std::string> dir_ids;
  for (size_t i = 0; i < config.log_dirs.size(); ++i) dir_ids[config.log_dirs[i]] = log_dir_ids[i];
  logs_->failure_channel().AddListener(
      [this, lifecycle = lifecycle_.get(), dir_ids](const std::string& dir, const absl::Status& why) {
        spdlog::error("log dir {} failed: {}", dir, why.ToString());
        auto id = dir_ids.find(dir);
        if (id != dir_ids.end()) lifecycle->ReportOfflineDir(id->second);  // the heartbeat goes at once
        auto scheduled = scheduler_->Schedule(absl::StrCat("offline-log-dir ", dir), std::chrono::milliseconds(0),
                                              [this, dir] { OnLogDirOffline(dir); });
        if (!scheduled.ok()) OnLogDirOffline(dir);  // a full scheduler: here, late rather than never
      });
  // A dir that was offline from the start.
  for (const std::string& dir : logs_->failure_channel().OfflineDirs()) {
    auto id = dir_ids.find(dir);
    if (id != dir_ids.end()) lifecycle_->ReportOfflineDir(id->second);
  }
  return absl::OkStatus();
}

void BrokerRole::OnLogDirOffline(const std::string& dir) {
  if (replicas_) replicas_->OnLogDirOffline(dir);
  if (!logs_->online_dirs().empty()) return;
  // The controller hears first, so that it moves the leaderships at once rather than at
  // the session timeout.
  bool reported = lifecycle_->WaitOfflineDirsReported(std::chrono::seconds(2));
  // Then the produces it holds (KAFKA_STORAGE_ERROR) are answered once its image names
  // the new leaders, so that their clients' next metadata request finds them.
  if (reported && replicas_) replicas_->WaitOfflineLeadershipsMoved(std::chrono::seconds(2));
  spdlog::error("broker {}: every log dir has failed ({}); nothing it holds can be served: stopping{}", broker_id_,
                absl::StrJoin(logs_->failure_channel().OfflineDirs(), ", "),
                reported ? "" : " (the controller did not confirm the failed dirs; it will fence this broker)");
  if (on_every_log_dir_failed_) on_every_log_dir_failed_();
}

void BrokerRole::StartReplicaManager(const ServerConfig& config) {
  broker::ReplicaManagerOptions rmo;
  rmo.broker_id = config.node_id;
  rmo.logs = logs_.get();
  rmo.default_config = log_defaults_;
  rmo.controller = client_.get();
  rmo.broker_epoch = [lifecycle = lifecycle_.get()] { return lifecycle->status().broker_epoch; };
  rmo.inter_broker_listener = config.inter_broker_listener_name;
  rmo.replica_lag_time_max_ms = config.replica_lag_time_max_ms;
  rmo.log_dir_move_max_bytes_per_second = config.replica_alter_log_dirs_io_max_bytes_per_second == INT64_MAX
                                              ? 0
                                              : static_cast<double>(config.replica_alter_log_dirs_io_max_bytes_per_second);
  rmo.default_min_insync_replicas = config.min_insync_replicas;
  rmo.since_controller_contact = [lifecycle = lifecycle_.get()] { return lifecycle->SinceAccepted(); };
  // Shorter than the controller's session timeout by a heartbeat interval: the broker
  // stops claiming leadership before the controller can have elected another leader.
  rmo.leader_lease_ms = std::max<int64_t>(config.broker_heartbeat_interval_ms,
                                          config.broker_session_timeout_ms - config.broker_heartbeat_interval_ms);
  rmo.fetchers.num_fetchers = config.num_replica_fetchers;
  auto inter_broker_security = config.InterBrokerSecurity();
  ABSL_CHECK(inter_broker_security.ok()) << inter_broker_security.status();  // checked when the config was parsed
  rmo.fetchers.fetcher.security = *std::move(inter_broker_security);
  rmo.fetchers.fetcher.max_wait = std::chrono::milliseconds(config.replica_fetch_wait_max_ms);
  rmo.fetchers.fetcher.min_bytes = config.replica_fetch_min_bytes;
  rmo.fetchers.fetcher.partition_max_bytes = config.replica_fetch_max_bytes;
  rmo.fetchers.fetcher.max_bytes = config.replica_fetch_response_max_bytes;
  rmo.fetchers.fetcher.backoff = std::chrono::milliseconds(config.replica_fetch_backoff_ms);
  rmo.fetchers.fetcher.idle_poll = std::chrono::microseconds(config.network_idle_poll_us);
  rmo.fetchers.fetcher.tier_state_machine = tier_state_machine_.get();
  replicas_ = std::make_unique<broker::ReplicaManager>(rmo);
}

absl::Status BrokerRole::ScheduleLogTasks(const ServerConfig& config) {
  auto every = [&](const char* name, int64_t interval_ms, std::function<void()> task) {
    return scheduler_
        ->SchedulePeriodic(name, std::chrono::milliseconds(interval_ms), std::chrono::milliseconds(interval_ms),
                           std::move(task))
        .status();
  };
  STRATA_RETURN_IF_ERROR(every("checkpoint-high-watermarks", config.replica_high_watermark_checkpoint_interval_ms,
                               [logs = logs_.get()] { (void)logs->CheckpointHighWatermarks(); }));
  STRATA_RETURN_IF_ERROR(every("checkpoint-recovery-points", config.log_flush_offset_checkpoint_interval_ms,
                               [logs = logs_.get()] { (void)logs->CheckpointRecoveryPoints(); }));
  STRATA_RETURN_IF_ERROR(every("checkpoint-log-start-offsets", config.log_flush_start_offset_checkpoint_interval_ms,
                               [logs = logs_.get()] { (void)logs->CheckpointLogStartOffsets(); }));
  if (config.log_flush_scheduler_interval_ms != INT64_MAX) {
    STRATA_RETURN_IF_ERROR(every("flush-dirty-logs", config.log_flush_scheduler_interval_ms,
                                 [logs = logs_.get()] { logs->FlushDirtyLogs(); }));
  } else if (config.log_settings.count("log.flush.interval.ms")) {
    spdlog::warn("log.flush.interval.ms is set but log.flush.scheduler.interval.ms is not: time-based flushes never "
                 "run (as in Kafka); set log.flush.scheduler.interval.ms too");
  }
  STRATA_RETURN_IF_ERROR(every("log-retention", config.log_retention_check_interval_ms,
                               [logs = logs_.get()] { (void)logs->DeleteOldSegments(); }));
  return absl::OkStatus();
}

void BrokerRole::WatchLogDirs(const ServerConfig& config, const std::vector<std::string>& log_dir_ids) {
  // A failed log dir goes to the controller with the next heartbeat, sent at once.
  std::vector<broker::MonitoredDir> dirs;
  for (size_t i = 0; i < config.log_dirs.size(); ++i) dirs.push_back({config.log_dirs[i], log_dir_ids[i]});
  dir_monitor_ = std::make_unique<broker::LogDirMonitor>(
      dirs, std::chrono::milliseconds(1000),
      [logs = logs_.get()](const broker::MonitoredDir& dir, const absl::Status& why) {
        logs->failure_channel().MaybeAddOfflineLogDir(dir.path, why);
      });
}

void BrokerRole::MakeKafkaApis(const ServerConfig& config, const std::string& cluster_id) {
  topic_creator_ = std::make_unique<broker::AutoTopicCreator>(*client_);
  offsets_log_ = std::make_unique<broker::OffsetsTopicLog>(*replicas_, config.offsets_commit_timeout_ms);
  broker::GroupCoordinatorOptions go;
  go.offsets_topic_partitions = config.offsets_topic_num_partitions;
  go.group_min_session_timeout_ms = config.group_min_session_timeout_ms;
  go.group_max_session_timeout_ms = config.group_max_session_timeout_ms;
  go.group_initial_rebalance_delay_ms = config.group_initial_rebalance_delay_ms;
  go.group_max_size = config.group_max_size;
  go.consumer.session_timeout_ms = config.group_consumer_session_timeout_ms;
  go.consumer.heartbeat_interval_ms = config.group_consumer_heartbeat_interval_ms;
  go.consumer.max_size = config.group_consumer_max_size;
  go.consumer.assignors = config.group_consumer_assignors;
  go.share.session_timeout_ms = config.group_share_session_timeout_ms;
  go.share.heartbeat_interval_ms = config.group_share_heartbeat_interval_ms;
  go.share.max_size = config.group_share_max_size;
  go.offset_metadata_max_bytes = config.offset_metadata_max_bytes;
  go.offsets_retention_ms = config.offsets_retention_minutes * 60 * 1000;
  go.offsets_retention_check_interval_ms = config.offsets_retention_check_interval_ms;
  group_coordinator_ = std::make_unique<broker::GroupCoordinator>(go, offsets_log_.get());
  txn_log_ = std::make_unique<broker::OffsetsTopicLog>(*replicas_, config.offsets_commit_timeout_ms,
                                                      storage::Clock::System(), broker::kTransactionStateTopic);
  {
    broker::TxnMarkerChannelOptions mo;
    auto security = config.InterBrokerSecurity();
    ABSL_CHECK(security.ok()) << security.status();  // checked when the config was parsed
    mo.security = *std::move(security);
    mo.leader_of = [store = store_, listener = config.inter_broker_listener_name](
                       const storage::TopicPartition& tp) {
      return store->WithImage([&](const controller::MetadataImage& image) {
        broker::MarkerDestination d;
        const controller::TopicState* t = image.FindTopic(tp.topic);
        if (t == nullptr || !t->partitions.count(tp.partition)) {
          d.topic_exists = false;
          return d;
        }
        broker::BrokerEndpoint e = LeaderEndpoint(image, tp, listener);
        d.broker_id = e.broker_id;
        d.host = e.host;
        d.port = e.port;
        return d;
      });
    };
    txn_markers_ = std::make_unique<broker::TxnMarkerChannel>(std::move(mo));
  }
  broker::TransactionCoordinatorOptions to;
  to.state_topic_partitions = config.transaction_state_log_num_partitions;
  to.max_timeout_ms = config.transaction_max_timeout_ms;
  to.abort_timed_out_interval_ms = config.transaction_abort_timed_out_transaction_cleanup_interval_ms;
  to.transactional_id_expiration_ms = config.transactional_id_expiration_ms;
  to.remove_expired_interval_ms = config.transaction_remove_expired_transaction_cleanup_interval_ms;
  transaction_coordinator_ = std::make_unique<broker::TransactionCoordinator>(
      to, txn_log_.get(), [ids = producer_ids_.get()] { return ids->NextProducerId(); }, txn_markers_.get());
  share_log_ = std::make_unique<broker::OffsetsTopicLog>(*replicas_, config.offsets_commit_timeout_ms,
                                                        storage::Clock::System(), broker::kShareGroupStateTopic);
  broker::ShareCoordinatorOptions so;
  so.state_topic_partitions = config.share_coordinator_state_topic_num_partitions;
  share_coordinator_ = std::make_unique<broker::ShareCoordinator>(so, share_log_.get());
  {
    // Always: transaction protocol version 2 has leaders add partitions through it;
    // transaction.partition.verification.enable governs version 1's verification only.
    broker::AddPartitionsToTxnManagerOptions vo;
    vo.broker_id = config.node_id;
    vo.state_topic_partitions = config.transaction_state_log_num_partitions;
    vo.local = transaction_coordinator_.get();
    auto security = config.InterBrokerSecurity();
    ABSL_CHECK(security.ok()) << security.status();
    vo.security = *std::move(security);
    vo.coordinator_of = [store = store_, listener = config.inter_broker_listener_name](int32_t partition) {
      return store->WithImage([&](const controller::MetadataImage& image) {
        return LeaderEndpoint(image, {broker::kTransactionStateTopic, partition}, listener);
      });
    };
    txn_verifier_ = std::make_unique<broker::AddPartitionsToTxnManager>(std::move(vo));
  }
  if (config.max_incremental_fetch_session_cache_slots > 0) {
    // A session reads all its partitions well within the times that judge a follower by
    // its fetches of each partition: the ISR's lag and the leader lease.
    const int64_t lease_ms = replicas_->leader_lease_ms();
    fetch_sessions_ = std::make_unique<broker::FetchSessionCache>(broker::FetchSessionCacheOptions{
        .max_slots = config.max_incremental_fetch_session_cache_slots,
        .full_read_interval_ms = std::min<int64_t>({1000, config.replica_lag_time_max_ms / 4, lease_ms / 4})});
  }
  if (!config.authorizer_class_name.empty()) {
    authorizer_ = std::make_unique<security::StandardAuthorizer>(
        security::StandardAuthorizer::Options{.super_users = config.super_users,
                                              .allow_everyone_if_no_acl_found = config.allow_everyone_if_no_acl_found,
                                              .log_allowed = config.authorizer_log_allowed});
    RefreshAcls();
  }
  store_->WithImage([&](const controller::MetadataImage& image) { client_quotas_.Update(image.client_quotas()); });
  // One KafkaApis per entry of `listeners` (Metadata answers that listener's endpoints).
  for (const Listener& l : config.listeners) {
    broker::KafkaApisContext kc{.store = *store_,
                                .controller = *client_,
                                .producer_ids = *producer_ids_,
                                .replicas = *replicas_,
                                .broker_id = config.node_id,
                                .cluster_id = cluster_id,
                                .listener_name = l.name,
                                .default_min_insync_replicas = config.min_insync_replicas,
                                .rack_aware_selector = !config.replica_selector_class.empty(),
                                .static_configs = StaticConfigs(config),
                                .broker_config_docs = BrokerConfigDocs(),
                                .remote_reader = remote_reader_.get(),
                                .auto_topic_creator = config.auto_create_topics_enable ? topic_creator_.get() : nullptr,
                                .group_coordinator = group_coordinator_.get(),
                                .internal_topic_creator = topic_creator_.get(),
                                .offsets_topic_replication_factor = config.offsets_topic_replication_factor,
                                .transaction_coordinator = transaction_coordinator_.get(),
                                .transaction_state_replication_factor = config.transaction_state_log_replication_factor,
                                .transaction_state_min_isr = config.transaction_state_log_min_isr,
                                .share_coordinator = share_coordinator_.get(),
                                .share_state_replication_factor = config.share_coordinator_state_topic_replication_factor,
                                .share_state_min_isr = config.share_coordinator_state_topic_min_isr,
                                .fetch_sessions = fetch_sessions_.get(),
                                .txn_verifier = txn_verifier_.get(),
                                .txn_partition_verification = config.transaction_partition_verification_enable,
                                .authorizer = authorizer_.get(),
                                .client_quotas = &client_quotas_};
    kafka_apis_.push_back(std::make_unique<broker::KafkaApis>(std::move(kc)));
  }
  replicas_->set_on_high_watermark([this](const storage::TopicPartition& tp) {
    for (auto& apis : kafka_apis_) apis->OnHighWatermark(tp);
    offsets_log_->OnHighWatermark(tp);
    txn_log_->OnHighWatermark(tp);
    share_log_->OnHighWatermark(tp);
  });
}

void BrokerRole::FollowImage() {
  // From here on every applied entry reaches the partitions (Publish) once the broker
  // caught up with the metadata log; first the image as it stands.
  absl::MutexLock lock(&publish_mu_);
  serving_ = true;
  FollowImageLocked(store_->applied().index, broker::MetadataDelta::Full());
}

absl::Status BrokerRole::StartListeners(const ServerConfig& config) {
  for (size_t i = 0; i < config.listeners.size(); ++i) {
    const Listener& l = config.listeners[i];
    broker::ListenerOptions ko;
    ko.host = l.host;
    ko.port = l.port;
    ko.network_threads = config.num_network_threads;
    ko.idle_poll = std::chrono::microseconds(config.network_idle_poll_us);
    ko.io_threads = config.num_io_threads;
    ko.max_request_bytes = config.socket_request_max_bytes;
    ko.idle_timeout = std::chrono::milliseconds(config.connections_max_idle_ms);
    ko.max_in_flight_requests = config.max_in_flight_requests_per_connection;
    ko.on_connection_closed = [sessions = fetch_sessions_.get()](uint64_t connection_id) {
      if (sessions != nullptr) sessions->ConnectionClosed(connection_id);
    };
    ko.metrics = &request_metrics_;
    // Validated when the config was read.
    ko.on_network_thread = [apis = NetworkThreadApis(config.network_thread_apis).value_or(std::set<int16_t>{})](
                               int16_t api_key) { return apis.count(api_key) > 0; };
    STRATA_ASSIGN_OR_RETURN(ListenerSecurity security, MakeListenerSecurity(config, l, *store_));
    ko.tls = security.tls;
    ko.tls_principal = security.tls_principal;
    ko.sasl = security.sasl;
    if (security.sasl_metrics) sasl_metrics_.emplace_back(l.name, security.sasl_metrics);
    STRATA_ASSIGN_OR_RETURN(auto server, broker::Listener::Start(
                                             ko, [apis = kafka_apis_[i].get()](const auto& header, auto body,
                                                                               auto respond) {
                                               apis->Handle(header, body, std::move(respond));
                                             }));
    spdlog::info("broker {} serving the Kafka protocol ({} listener {}) on {}:{}", config.node_id,
                 l.security_protocol, l.name, ko.host, server->port());
    if (ko.tls) {
      absl::MutexLock lock(&publish_mu_);
      listener_tls_.push_back({absl::AsciiStrToLower(l.name), server.get(), *ko.tls, *ko.tls});
    }
    listeners_.push_back(std::move(server));
    listener_names_.push_back(l.name);
  }
  absl::MutexLock lock(&publish_mu_);
  ReloadListenerTlsLocked();  // the image may name other files already
  return absl::OkStatus();
}

void BrokerRole::ReloadListenerTlsLocked() {
  if (listener_tls_.empty()) return;
  std::map<std::string, std::string> own;  // this broker's dynamic configs
  store_->WithImage([&](const controller::MetadataImage& image) {
    auto it = image.configs().find({metadata::v1::Config::BROKER, absl::StrCat(broker_id_)});
    if (it != image.configs().end()) own = it->second;
  });
  for (ListenerTls& l : listener_tls_) {
    broker::TlsOptions next = l.configured;
    for (const auto& [key, value] : own) {
      std::optional<broker::ListenerTlsKey> tls = broker::ParseListenerTlsKey(key);
      if (!tls || tls->listener != l.name) continue;
      (tls->setting == "ssl.keystore.location" ? next.keystore_pem : next.truststore_pem) = value;
    }
    if (next.keystore_pem == l.loaded.keystore_pem && next.truststore_pem == l.loaded.truststore_pem) continue;
    if (absl::Status reloaded = l.listener->ReloadTls(next); !reloaded.ok()) {
      spdlog::error("broker {}: listener {} keeps its TLS files: {}", broker_id_, l.name, reloaded.message());
      continue;
    }
    spdlog::info("broker {}: listener {} serves new connections with keystore {}, truststore {}", broker_id_, l.name,
                 next.keystore_pem, next.truststore_pem.empty() ? "(none)" : next.truststore_pem);
    l.loaded = next;
  }
}

std::vector<std::pair<std::string, size_t>> BrokerRole::ListenerConnections() const {
  std::vector<std::pair<std::string, size_t>> out;
  for (size_t i = 0; i < listeners_.size(); ++i) {
    out.emplace_back(listener_names_[i], listeners_[i]->active_connections());
  }
  return out;
}

size_t BrokerRole::FetchesWaiting() const {
  size_t n = 0;
  for (const auto& apis : kafka_apis_) n += apis->fetches_waiting();
  return n;
}

size_t BrokerRole::ProducesWaiting() const {
  size_t n = 0;
  for (const auto& apis : kafka_apis_) n += apis->produces_waiting();
  return n;
}

BrokerRole::~BrokerRole() {
  StopServing(/*clean=*/false);
  producer_ids_.reset();  // before lifecycle_, whose epoch it asks for
  metadata_dir_monitor_.reset();
  dir_monitor_.reset();
  lifecycle_.reset();
  observer_.reset();
  if (store_ != nullptr) store_->set_listener(nullptr);
}

void BrokerRole::Stop(std::chrono::milliseconds timeout) {
  if (stopped_) return;
  stopped_ = true;
  // Kafka's controlled shutdown: the listeners keep serving while the controller moves
  // the leaderships away (clients are told NOT_LEADER_OR_FOLLOWER and follow the new
  // leaders; followers keep fetching), then everything stops.
  dir_monitor_.reset();
  lifecycle_->Shutdown(timeout);
  StopServing(/*clean=*/true);  // before lifecycle_: the ISR thread asks it for the epoch
  producer_ids_.reset();
  lifecycle_.reset();
  observer_.reset();
}

void BrokerRole::RefreshAcls() {
  if (authorizer_ == nullptr) return;
  std::optional<std::vector<security::AclBinding>> changed = store_->WithImage([&](const controller::MetadataImage& image) {
    std::optional<std::vector<security::AclBinding>> out;
    if (image.security().acl_version() != acl_version_seen_.load()) {
      acl_version_seen_ = image.security().acl_version();
      out = image.security().AclBindings();
    }
    return out;
  });
  if (changed) authorizer_->SetAcls(*changed);
}

void BrokerRole::Publish(const metadata::v1::MetadataBatch& batch, int64_t index) {
  // The authorizer and the client quotas follow the image at once, serving or not.
  RefreshAcls();
  store_->WithImage([&](const controller::MetadataImage& image) { client_quotas_.Update(image.client_quotas()); });
  // Every applied entry (or restored snapshot, an empty batch: a full delta): the hosted
  // partitions follow the image, in what the entry changed.
  absl::MutexLock lock(&publish_mu_);
  if (!serving_) return;  // Start applies the image it finds once serving
  FollowImageLocked(index, broker::MetadataDelta::FromBatch(batch));
}

void BrokerRole::ReconfigureCleanerLocked() {
  storage::LogCleaner* cleaner = logs_->cleaner();
  if (cleaner == nullptr) return;
  ABSL_CHECK(cleaner_defaults_.has_value());
  storage::LogCleanerOptions next = *cleaner_defaults_;
  store_->WithImage([&](const controller::MetadataImage& image) {
    if (auto v = controller::DynamicBrokerLong(image, "log.cleaner.threads", broker_id_)) {
      next.threads = static_cast<int>(*v);
    }
    if (auto v = controller::DynamicBrokerLong(image, "log.cleaner.dedupe.buffer.size", broker_id_)) {
      next.dedupe_buffer_size = *v;
    }
    if (auto v = controller::DynamicBrokerDouble(image, "log.cleaner.io.max.bytes.per.second", broker_id_)) {
      next.io_max_bytes_per_second = *v;
    }
    if (auto v = controller::DynamicBrokerLong(image, "log.cleaner.backoff.ms", broker_id_)) next.backoff_ms = *v;
  });
  const storage::LogCleanerOptions now = cleaner->options();
  if (next.threads == now.threads && next.dedupe_buffer_size == now.dedupe_buffer_size &&
      next.io_max_bytes_per_second == now.io_max_bytes_per_second && next.backoff_ms == now.backoff_ms) {
    return;
  }
  spdlog::info("broker {}: log cleaner: {} threads, {} bytes of offset maps, {} bytes/s, backoff {} ms", broker_id_,
               next.threads, next.dedupe_buffer_size, next.io_max_bytes_per_second, next.backoff_ms);
  cleaner->Reconfigure(next);
}

void BrokerRole::FollowImageLocked(int64_t index, broker::MetadataDelta delta) {
  // Entries reach here in the order applied (the store's listener runs on its applying
  // thread): an incremental apply relies on having seen every one since the last full.
  ABSL_CHECK_GE(index, followed_index_) << "broker " << broker_id_;
  followed_index_ = index;
  bool caught_up = caught_up_;  // the lambda below runs under the image's lock only
  std::optional<std::pair<std::map<int32_t, int32_t>, int32_t>> offsets_topic;
  std::optional<std::pair<std::map<int32_t, int32_t>, int32_t>> txn_topic;
  std::optional<std::pair<std::map<int32_t, int32_t>, int32_t>> share_topic;
  std::map<controller::TopicId, std::string> deleted_topics;
  broker::ConsumerTopics changed_topics;  // for the consumer groups' assignments
  std::map<controller::TopicId, std::string> topic_names = std::move(topic_names_);  // as caught_up
  if (delta.full) {  // broker configs change in a full delta
    ReconfigureCleanerLocked();
    ReconfigureRemoteQuotasLocked();
    ReloadListenerTlsLocked();
  }
  store_->WithImage([&](const controller::MetadataImage& image) {
    if (!caught_up) {
      // The image may be what this node saw before it stopped: leaderships moved since
      // (its old incarnation was fenced) are not in it yet. Acting on it would make this
      // broker a leader again, serving a log that may have lost its unflushed tail, and
      // its followers would truncate acknowledged records to match. As Kafka's broker
      // waits for its initial catch-up, nothing is hosted until the image holds this
      // process's own registration (the controller accepts it only once the previous
      // incarnation is fenced and its leaderships moved).
      auto self = image.brokers().find(broker_id_);
      if (self == image.brokers().end() ||
          self->second.registration().incarnation_id() != lifecycle_->incarnation_id()) {
        return;
      }
      caught_up = true;
      delta = broker::MetadataDelta::Full();  // the entries until now were not applied
      spdlog::info("broker {}: caught up with the metadata log at entry {} (registered with epoch {}); hosting "
                   "partitions",
                   broker_id_, index, self->second.registration().broker_epoch());
    }
    replicas_->ApplyImage(image, delta);
    deleted_topics = FollowTopicNames(image, delta, topic_names);
    changed_topics = ConsumerTopicsOf(image, delta);
    offsets_topic.emplace();
    FollowCoordinatorTopic(image, broker::kOffsetsTopic, offsets_topic->first, offsets_topic->second);
    txn_topic.emplace();
    FollowCoordinatorTopic(image, broker::kTransactionStateTopic, txn_topic->first, txn_topic->second);
    share_topic.emplace();
    FollowCoordinatorTopic(image, broker::kShareGroupStateTopic, share_topic->first, share_topic->second);
  });
  caught_up_ = caught_up;
  topic_names_ = std::move(topic_names);
  // Outside the image's lock, which the coordinator's lock never nests in. The topics
  // first: a consumer group loaded on a leadership resolves its subscriptions with them.
  std::set<std::string> deleted_names;
  for (const auto& [id, name] : deleted_topics) deleted_names.insert(name);
  if (caught_up && group_coordinator_ && (delta.full || !changed_topics.empty() || !deleted_names.empty())) {
    group_coordinator_->OnTopicsChanged(changed_topics, deleted_names, delta.full);
  }
  if (offsets_topic && group_coordinator_) group_coordinator_->OnLeadership(offsets_topic->first, offsets_topic->second);
  if (txn_topic && transaction_coordinator_) {
    transaction_coordinator_->OnLeadership(txn_topic->first, txn_topic->second);
  }
  if (share_topic && share_coordinator_) share_coordinator_->OnLeadership(share_topic->first, share_topic->second);
  if (!deleted_names.empty() && group_coordinator_) {
    group_coordinator_->OnTopicsDeleted(deleted_names);
  }
  // Their objects in the remote tier go (the sweeper's elected broker deletes them).
  if (remote_sweeper_) {
    for (const auto& [id, name] : deleted_topics) remote_sweeper_->TopicDeleted(controller::TopicIdToString(id));
  }
  spdlog::debug("broker {}: partitions follow metadata entry {}", broker_id_, index);
}

void BrokerRole::FollowCoordinatorTopic(const controller::MetadataImage& image, const std::string& topic,
                                        std::map<int32_t, int32_t>& led, int32_t& partitions) const {
  const controller::TopicState* t = image.FindTopic(topic);
  partitions = t == nullptr ? 0 : static_cast<int32_t>(t->partitions.size());
  for (int32_t p = 0; p < partitions; ++p) {
    std::shared_ptr<broker::Partition> partition = replicas_->GetPartition({topic, p});
    if (partition != nullptr && partition->is_leader()) led[p] = partition->leader_epoch();
  }
}

void BrokerRole::StopServing(bool clean) {
  {
    absl::MutexLock lock(&publish_mu_);  // no Publish runs past this
    serving_ = false;
  }
  listeners_.clear();  // no new requests; answers still due are dropped
  group_coordinator_.reset();  // before the partitions it writes to
  txn_verifier_.reset();  // answers what waits (appending nothing); before the coordinator it asks
  transaction_coordinator_.reset();  // the same; before its marker channel
  txn_markers_.reset();
  share_coordinator_.reset();  // before the partitions it writes to
  if (remote_reader_) remote_reader_->Shutdown();  // its reads use the KafkaApis' contexts
  // The fetchers and the ISR thread stop before the KafkaApis go: their high-watermark
  // callback walks kafka_apis_ (a fetcher still running would call one being destroyed),
  // and before the logs close.
  if (replicas_) replicas_->Shutdown();
  kafka_apis_.clear();     // waiting requests are answered (and dropped)
  if (remote_sweeper_) remote_sweeper_->Shutdown();
  if (remote_log_manager_) remote_log_manager_->Shutdown();  // before the partitions go
  if (store_ != nullptr) store_->set_listener(nullptr);
  replicas_.reset();
  offsets_log_.reset();  // after the partitions, whose high-watermark callback calls it
  txn_log_.reset();
  share_log_.reset();
  if (scheduler_) scheduler_->Shutdown();
  if (logs_ && clean) {
    if (absl::Status s = logs_->Shutdown(); !s.ok()) spdlog::error("log shutdown: {}", s.ToString());
  }
  logs_.reset();
  scheduler_.reset();
}

}  // namespace strata::server
