#include "tests/support/broker_services.h"

#include <gtest/gtest.h>

#include "base/check.h"
#include "raft/types.h"

namespace strata::testing {

absl::Status UnreachableController::CallActive(const Call&, std::chrono::milliseconds) {
  calls_.fetch_add(1);
  return absl::UnavailableError("no controller answers in this test");
}

broker::ProducerIdBlockSource NoProducerIdBlocks() {
  return []() -> absl::StatusOr<broker::ProducerIdBlock> {
    return absl::UnavailableError("no controller answers in this test");
  };
}

BrokerServices::BrokerServices(const std::string& dir, BrokerServicesOptions options)
    : options_(std::move(options)), controller_(options_.controller ? options_.controller : &unreachable_) {
  auto store = controller::MetadataStore::Open(dir + "/metadata");
  ABSL_CHECK(store.ok()) << store.status();
  store_ = std::move(*store);
  storage::LogManagerOptions lmo;
  lmo.log_dirs = {dir + "/logs"};
  lmo.cluster_id = options_.cluster_id;
  lmo.node_id = options_.broker_id;
  lmo.scheduler = &scheduler_;
  lmo.ops = options_.ops;
  auto logs = storage::LogManager::Open(lmo);
  ABSL_CHECK(logs.ok()) << logs.status();
  logs_ = std::move(*logs);
  broker::ReplicaManagerOptions rmo = options_.replicas;
  rmo.broker_id = options_.broker_id;
  rmo.logs = logs_.get();
  rmo.ops = options_.ops;
  replicas_ = std::make_unique<broker::ReplicaManager>(rmo);
  producer_ids_ = std::make_unique<broker::ProducerIdManager>(options_.producer_id_source, options_.producer_ids);
}

BrokerServices::~BrokerServices() {
  replicas_->Shutdown();
  replicas_.reset();
  scheduler_.Shutdown();
}

broker::KafkaApisContext BrokerServices::Context() {
  return broker::KafkaApisContext{.store = *store_,
                                  .controller = *controller_,
                                  .producer_ids = *producer_ids_,
                                  .replicas = *replicas_,
                                  .broker_id = options_.broker_id,
                                  .cluster_id = options_.cluster_id};
}

void BrokerServices::Apply(std::vector<metadata::v1::MetadataRecord> records) {
  metadata::v1::MetadataBatch batch;
  for (auto& r : records) *batch.add_records() = std::move(r);
  Apply(batch);
}

void BrokerServices::Apply(const metadata::v1::MetadataBatch& batch) {
  ASSERT_TRUE(store_->Apply(raft::Entry{1, ++applied_index_, batch.SerializeAsString()}).ok());
  store_->WithImage([&](const controller::MetadataImage& image) { replicas_->ApplyImage(image); });
}

}  // namespace strata::testing
