#pragma once
// The broker role of strata-server (so far its control plane): it follows the committed
// metadata log into its own metadata image (in combined mode the controller's image is
// shared; a broker-only node runs a RaftObserver into MetadataStore in its
// metadata.log.dir), registers and heartbeats with the active controller, and hands the
// image to the ReplicaManager after every applied entry — but only once the image holds
// this process's own registration (Kafka's initial catch-up): until then the image may
// be the one the node stopped with, and the broker hosts no partition. A failed log dir is
// reported to the controller; a failed metadata.log.dir (checked every second, as the
// Raft driver checks a controller's) stops the node. Stopping is Kafka's controlled
// shutdown.
// Not thread-safe: main starts and stops it.

#include <atomic>
#include <functional>
#include <mutex>
#include <memory>

#include "absl/status/statusor.h"
#include "broker/broker_lifecycle.h"
#include "broker/controller_client.h"
#include "broker/kafka_api_handler.h"
#include "broker/kafka_server.h"
#include "broker/log_dir_monitor.h"
#include "broker/producer_id_manager.h"
#include "broker/replica_manager.h"
#include "storage/log_manager.h"
#include "storage/scheduler.h"
#include "controller/metadata_store.h"
#include "raft/observer.h"
#include "storage/meta_properties.h"
#include "tools/server/server_config.h"

namespace strata::server {

class BrokerRole {
 public:
  // shared_store: the controller role's image in combined mode, else nullptr.
  static absl::StatusOr<std::unique_ptr<BrokerRole>> Start(const ServerConfig& config, const std::string& cluster_id,
                                                           const std::vector<std::string>& log_dir_ids,
                                                           controller::MetadataStore* shared_store,
                                                           std::function<void(const absl::Status&)> on_fatal);
  ~BrokerRole();

  controller::MetadataStore& store() { return *store_; }
  // Controlled shutdown within timeout, then stops following metadata.
  void Stop(std::chrono::milliseconds timeout);

 private:
  BrokerRole() = default;
  void Publish(const metadata::v1::MetadataBatch& batch, int64_t index);
  // The hosted partitions follow the image (under publish_mu_), once caught_up_.
  void FollowImageLocked(int64_t index);
  // Stops serving and closes the logs: cleanly (checkpoints, clean-shutdown marker) or not.
  void StopServing(bool clean);

  int32_t broker_id_ = 0;
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
  std::unique_ptr<broker::ReplicaManager> replicas_;
  std::vector<std::unique_ptr<broker::KafkaApis>> kafka_apis_;  // one per listener
  std::vector<std::unique_ptr<broker::KafkaServer>> kafka_servers_;
  bool stopped_ = false;
  std::mutex publish_mu_;
  std::atomic<bool> serving_{false};  // the partitions follow the image
  // The image held this process's registration once (publish_mu_): the partitions may
  // follow it from then on.
  bool caught_up_ = false;
};

}  // namespace strata::server
