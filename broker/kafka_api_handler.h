#pragma once
// KafkaApis: the broker's Kafka request dispatch, one handler per API chosen by api key
// (handlers in their own files: metadata_handler.h, ...). Implemented so far:
// ApiVersions v0-v3 (KIP-511 for newer versions), Metadata v0-v12 and InitProducerId
// v0-v4 (init_producer_id_handler.h); the other APIs
// arrive with issue 5 and are advertised only once implemented. A request whose api
// key is unknown, or that ApiVersions does not advertise (an API not implemented yet,
// or a version outside its range), gets no response: the connection closes, as Kafka
// does for requests it cannot parse (clients only send what ApiVersions advertised).
// Thread-safe.

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "broker/controller_client.h"
#include "broker/kafka_server.h"
#include "broker/purgatory.h"
#include "controller/metadata_store.h"
#include "proto/kafka/header.h"
#include "storage/file_names.h"

namespace strata::broker {

class ProducerIdManager;
class ReplicaManager;

struct KafkaApisContext {
  int32_t broker_id = 0;
  std::string cluster_id;
  std::string listener_name = "PLAINTEXT";  // whose endpoints Metadata returns
  // The broker's metadata image; nullptr answers Metadata with no brokers and topics.
  const controller::MetadataStore* store = nullptr;
  // The way to the active controller, for the admin APIs (forwarded to its AdminService)
  // and producer-id blocks; nullptr answers those requests with COORDINATOR_NOT_AVAILABLE
  // / NOT_CONTROLLER per API (tests, fuzzing).
  ControllerClient* controller = nullptr;
  // Producer ids for InitProducerId; nullptr answers COORDINATOR_NOT_AVAILABLE (tests,
  // fuzzing).
  ProducerIdManager* producer_ids = nullptr;
  // The partitions this broker hosts (Produce, Fetch, ListOffsets,
  // OffsetForLeaderEpoch); nullptr answers those NOT_LEADER_OR_FOLLOWER (tests, fuzzing).
  ReplicaManager* replicas = nullptr;
  int32_t default_min_insync_replicas = 1;  // min.insync.replicas
  // replica.selector.class is the rack-aware selector: consumers are sent to a replica
  // in their rack, and followers serve consumers (KIP-392, replica_selector.h).
  bool rack_aware_selector = false;
  // This broker's settings as strata-server resolved them (Kafka's names), for
  // DescribeConfigs on the BROKER resource.
  std::map<std::string, std::string> static_configs;
};

class KafkaApis {
 public:
  explicit KafkaApis(KafkaApisContext context);
  ~KafkaApis();  // answers the fetches still waiting

  // Answers one request through respond (at once, or later for a fetch that waits).
  void Handle(const proto::kafka::RequestHeader& header, absl::string_view body, KafkaResponder respond);
  // The same, waiting for the answer (tests, fuzzing).
  absl::StatusOr<std::optional<KafkaResponse>> HandleAndWait(const proto::kafka::RequestHeader& header,
                                                             absl::string_view body);
  // A partition's high watermark moved, or its leadership changed: wakes the fetches and
  // acks=all produces waiting on it.
  void OnHighWatermark(const storage::TopicPartition& tp);
  // acks=all produces waiting for the high watermark (tests, metrics).
  size_t produces_waiting() const { return produce_purgatory_->waiting(); }

 private:
  // The APIs answered at once, as a response body.
  absl::StatusOr<std::optional<std::string>> HandleSync(const proto::kafka::RequestHeader& header,
                                                        absl::string_view body) const;

  const KafkaApisContext context_;
  std::unique_ptr<Purgatory> fetch_purgatory_;
  std::unique_ptr<Purgatory> produce_purgatory_;
};

}  // namespace strata::broker
