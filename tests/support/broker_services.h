#pragma once
// Real broker services for tests that build a KafkaApisContext: a MetadataStore
// (RocksDB), a LogManager and a ReplicaManager over a temp dir, a ProducerIdManager, and
// a ControllerChannel. A test that exercises one of them sets it up itself; the others
// are real and idle. UnreachableController is the small fake of ControllerChannel for a
// broker that no controller answers (forwarded admin requests: REQUEST_TIMED_OUT;
// producer-id blocks: none). Not thread-safe (construction); the services are.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "broker/lifecycle/controller_client.h"
#include "broker/lifecycle/producer_id_manager.h"
#include "broker/replication/replica_manager.h"
#include "broker/handlers/request_context.h"
#include "controller/metadata_store.h"
#include "metadata.pb.h"
#include "storage/log_manager.h"
#include "storage/scheduler.h"

namespace strata::testing {

// Every call fails at once: UNAVAILABLE, no controller reached.
class UnreachableController final : public broker::ControllerChannel {
 public:
  absl::Status CallActive(const Call& call, std::chrono::milliseconds deadline) override;
  int64_t calls() const { return calls_.load(); }

 private:
  std::atomic<int64_t> calls_{0};
};

// A producer-id block source that never has a block (as with no controller).
broker::ProducerIdBlockSource NoProducerIdBlocks();

struct BrokerServicesOptions {
  int32_t broker_id = 1;
  std::string cluster_id = "test-cluster";
  storage::FileOps* ops = storage::FileOps::Default();
  broker::ProducerIdBlockSource producer_id_source = NoProducerIdBlocks();
  broker::ProducerIdManagerOptions producer_ids;
  // The controller the context names; nullptr: the services' own UnreachableController.
  broker::ControllerChannel* controller = nullptr;
  // The ReplicaManager's options (its controller, clock, lease...); broker_id, logs and
  // ops are the services' own. Followers do not fetch unless a test says so.
  broker::ReplicaManagerOptions replicas = [] {
    broker::ReplicaManagerOptions o;
    o.fetch_from_leaders = false;
    return o;
  }();
};

class BrokerServices {
 public:
  // dir: an empty directory the services own.
  BrokerServices(const std::string& dir, BrokerServicesOptions options = {});
  ~BrokerServices();
  BrokerServices(const BrokerServices&) = delete;
  BrokerServices& operator=(const BrokerServices&) = delete;

  controller::MetadataStore& store() { return *store_; }
  storage::LogManager& logs() { return *logs_; }
  broker::ReplicaManager& replicas() { return *replicas_; }
  broker::ProducerIdManager& producer_ids() { return *producer_ids_; }
  broker::ControllerChannel& controller() { return *controller_; }
  UnreachableController& unreachable_controller() { return unreachable_; }

  // A context naming these services, this broker's id and cluster id.
  broker::KafkaApisContext Context();
  // Applies one metadata batch of records to the store and the replica manager.
  void Apply(std::vector<metadata::v1::MetadataRecord> records);
  void Apply(const metadata::v1::MetadataBatch& batch);

 private:
  const BrokerServicesOptions options_;
  UnreachableController unreachable_;
  broker::ControllerChannel* controller_;
  storage::Scheduler scheduler_{1};
  std::unique_ptr<controller::MetadataStore> store_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<broker::ReplicaManager> replicas_;
  std::unique_ptr<broker::ProducerIdManager> producer_ids_;
  int64_t applied_index_ = 0;
};

}  // namespace strata::testing
