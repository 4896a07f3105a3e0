#include "tools/server/broker_role.h"

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/kafka_api_handler.h"
#include "tools/server/controller_role.h"

namespace strata::server {

absl::StatusOr<std::unique_ptr<BrokerRole>> BrokerRole::Start(const ServerConfig& config, const std::string& cluster_id,
                                                              const std::vector<std::string>& log_dir_ids,
                                                              controller::MetadataStore* shared_store,
                                                              std::function<void(const absl::Status&)> on_fatal) {
  std::unique_ptr<BrokerRole> role(new BrokerRole());
  role->broker_id_ = config.node_id;
  if (shared_store != nullptr) {
    role->store_ = shared_store;
  } else {
    STRATA_ASSIGN_OR_RETURN(role->own_store_, controller::MetadataStore::Open(
                                                  storage::JoinPath(config.metadata_log_dir, kMetadataImageDir)));
    role->store_ = role->own_store_.get();
  }
  // Deltas: the listener runs on the applying thread, after the image changed.
  role->store_->set_listener([r = role.get()](const metadata::v1::MetadataBatch& batch, int64_t index) {
    r->Publish(batch, index);
  });
  if (shared_store == nullptr) {
    raft::RaftObserverOptions o;
    for (const auto& [id, address] : config.voters) o.voters.push_back(address);
    o.state_machine = role->store_;
    o.dir = config.metadata_log_dir;
    o.persist_log = true;  // the broker keeps its own copy of the metadata log
    o.applied = role->store_->applied().index;
    o.on_fatal = on_fatal;
    STRATA_ASSIGN_OR_RETURN(role->observer_, raft::RaftObserver::Start(o));
  }
  if (shared_store == nullptr) {
    // Writes into a removed or failing directory may still succeed through open files:
    // look at the directory itself.
    role->metadata_dir_monitor_ = std::make_unique<broker::LogDirMonitor>(
        std::vector<broker::MonitoredDir>{{config.metadata_log_dir, ""}}, std::chrono::milliseconds(1000),
        [on_fatal](const broker::MonitoredDir& dir, const absl::Status& why) {
          spdlog::error("metadata.log.dir {} failed, stopping: {}", dir.path, why.ToString());
          on_fatal(why);
        });
  }
  role->client_ = std::make_unique<broker::ControllerClient>(config.voters);
  broker::BrokerLifecycleOptions lo;
  lo.broker_id = config.node_id;
  lo.cluster_id = cluster_id;
  for (const Listener& l : config.listeners) {
    metadata::v1::BrokerEndpoint e;
    e.set_name(l.name);
    e.set_host(l.host);
    e.set_port(l.port);
    e.set_security_protocol(l.name);
    lo.listeners.push_back(std::move(e));
  }
  lo.rack = config.broker_rack;
  lo.log_dir_ids = log_dir_ids;
  lo.heartbeat_interval = std::chrono::milliseconds(config.broker_heartbeat_interval_ms);
  lo.metadata_offset = [store = role->store_] { return store->applied().index; };
  role->lifecycle_ = std::make_unique<broker::BrokerLifecycle>(*role->client_, lo);
  // A failed log dir goes to the controller with the next heartbeat, sent at once.
  std::vector<broker::MonitoredDir> dirs;
  for (size_t i = 0; i < config.log_dirs.size(); ++i) dirs.push_back({config.log_dirs[i], log_dir_ids[i]});
  role->dir_monitor_ = std::make_unique<broker::LogDirMonitor>(
      dirs, std::chrono::milliseconds(1000),
      [lifecycle = role->lifecycle_.get()](const broker::MonitoredDir& dir, const absl::Status&) {
        lifecycle->ReportOfflineDir(dir.directory_id);
      });
  // The Kafka listener (the first of `listeners`; ApiVersions so far, issue 5).
  broker::KafkaServerOptions ko;
  ko.host = config.listeners.front().host;
  ko.port = config.listeners.front().port;
  ko.network_threads = config.num_network_threads;
  ko.max_request_bytes = config.socket_request_max_bytes;
  ko.idle_timeout = std::chrono::milliseconds(config.connections_max_idle_ms);
  broker::KafkaApisContext kc;
  kc.broker_id = config.node_id;
  kc.cluster_id = cluster_id;
  kc.listener_name = config.listeners.front().name;
  kc.store = role->store_;
  kc.controller = role->client_.get();
  role->kafka_apis_ = std::make_unique<broker::KafkaApis>(kc);
  STRATA_ASSIGN_OR_RETURN(role->kafka_server_,
                          broker::KafkaServer::Start(ko, [apis = role->kafka_apis_.get()](const auto& header, auto body) {
                            return apis->Handle(header, body);
                          }));
  spdlog::info("broker {} serving the Kafka protocol on {}:{}", config.node_id, ko.host, role->kafka_server_->port());
  spdlog::info("broker {} started: log dirs {}, metadata from {}", config.node_id, config.log_dirs.size(),
               shared_store ? "this node's controller" : "the controllers (observer)");
  return role;
}

BrokerRole::~BrokerRole() {
  kafka_server_.reset();
  metadata_dir_monitor_.reset();
  dir_monitor_.reset();
  lifecycle_.reset();
  observer_.reset();
  if (store_ != nullptr) store_->set_listener(nullptr);
}

void BrokerRole::Stop(std::chrono::milliseconds timeout) {
  if (stopped_) return;
  stopped_ = true;
  kafka_server_.reset();  // no new requests during the controlled shutdown
  dir_monitor_.reset();
  lifecycle_->Shutdown(timeout);
  lifecycle_.reset();
  observer_.reset();
}

void BrokerRole::Publish(const metadata::v1::MetadataBatch& batch, int64_t index) {
  // What this broker must act on (issues 5 and 6 consume these): leaderships and
  // replicas gained or lost. Logged for now.
  for (const auto& r : batch.records()) {
    if (r.has_partition() && r.partition().leader() == broker_id_) {
      spdlog::info("broker {}: leads partition {} of topic {} (epoch {}) from metadata entry {}", broker_id_,
                   r.partition().partition_id(), controller::TopicIdToString(r.partition().topic_id()),
                   r.partition().leader_epoch(), index);
    } else if (r.has_partition_change() && r.partition_change().has_leader()) {
      bool leads = r.partition_change().leader() == broker_id_;
      spdlog::debug("broker {}: partition {} of topic {} now led by {}{}", broker_id_, r.partition_change().partition_id(),
                    controller::TopicIdToString(r.partition_change().topic_id()), r.partition_change().leader(),
                    leads ? " (this broker)" : "");
    }
  }
}

}  // namespace strata::server
