#pragma once
// What a Kafka API handler is given: the broker's services and settings
// (KafkaApisContext, shared by every request of one listener), and one request
// (ApiRequest: the header, the body, the purgatories it may wait in, the versions the
// broker advertises). Every handler has one shape, ApiHandler, and lives in a file of its
// own (`*_handler.h`); the registry (api_registry.h) lists them and the dispatcher
// (kafka_apis.h) calls them. This header includes neither, so no handler
// includes the code that calls it.
// Not thread-safe (values); the services it names are thread-safe.

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/network/api_response.h"
#include "broker/replication/purgatory.h"
#include "broker/handlers/response_errors.h"
#include "controller/metadata_store.h"
#include "proto/kafka/api.h"
#include "proto/kafka/header.h"
#include "proto/kafka/wire.h"
#include "security/standard_authorizer.h"

namespace strata::broker {

class AutoTopicCreator;
class ClientQuotaManager;
class FetchSessionCache;
class GroupCoordinator;
class ProducerIdManager;
class RemoteLogReader;
class ReplicaManager;
class ShareCoordinator;
class TransactionCoordinator;
class TxnVerifier;

// One listener's view of the broker. Every service is required: a test builds real
// ones (or a small fake of ControllerChannel), never leaves one out.
struct KafkaApisContext {
  // The broker's metadata image (Metadata, topic lookups, configs).
  const controller::MetadataStore& store;
  // The way to the active controller: the admin APIs are forwarded to its AdminService.
  ControllerChannel& controller;
  // Producer ids for InitProducerId, in blocks from the controller.
  ProducerIdManager& producer_ids;
  // The partitions this broker hosts (Produce, Fetch, ListOffsets, OffsetForLeaderEpoch).
  ReplicaManager& replicas;

  int32_t broker_id = 0;
  std::string cluster_id;
  std::string listener_name = "PLAINTEXT";  // whose endpoints Metadata returns
  int32_t default_min_insync_replicas = 1;  // min.insync.replicas
  // replica.selector.class is the rack-aware selector: consumers are sent to a replica
  // in their rack, and followers serve consumers (KIP-392, replica_selector.h).
  bool rack_aware_selector = false;
  // This broker's settings as strata-server resolved them (Kafka's names), for
  // DescribeConfigs on the BROKER resource.
  std::map<std::string, std::string> static_configs;
  // What DescribeConfigs v3+ tells of a broker setting by name: its type (Kafka's type
  // name: int, long, boolean, list...) and doc, for the static settings, the log
  // defaults and the dynamic broker settings (filled by the broker role). A topic's come
  // from the topic settings' table.
  struct ConfigDoc {
    std::string type;
    std::string doc;
  };
  std::map<std::string, ConfigDoc> broker_config_docs;
  // Reads below the local log start from the remote tier (tiered storage); null when
  // remote.log.storage.system.enable is off.
  RemoteLogReader* remote_reader = nullptr;
  // auto.create.topics.enable: Metadata and Produce for an unknown topic ask it to be
  // created; null when off.
  AutoTopicCreator* auto_topic_creator = nullptr;
  // The group coordinator (the group APIs) and what FindCoordinator asks for when
  // __consumer_offsets does not exist yet: the creator of internal topics and the
  // topic's layout (offsets.topic.num.partitions, offsets.topic.replication.factor).
  // Null coordinator: the group APIs answer COORDINATOR_NOT_AVAILABLE.
  GroupCoordinator* group_coordinator = nullptr;
  AutoTopicCreator* internal_topic_creator = nullptr;
  int32_t offsets_topic_replication_factor = 3;
  // The transaction coordinator (InitProducerId with a transactional id, the
  // transaction APIs) and __transaction_state's layout
  // (transaction.state.log.replication.factor, .min.isr). Null: those answer
  // COORDINATOR_NOT_AVAILABLE.
  TransactionCoordinator* transaction_coordinator = nullptr;
  int32_t transaction_state_replication_factor = 3;
  int32_t transaction_state_min_isr = 2;
  // The share coordinator (KIP-932's state APIs) and __share_group_state's layout
  // (share.coordinator.state.topic.replication.factor, .min.isr). Null: those answer
  // COORDINATOR_NOT_AVAILABLE.
  ShareCoordinator* share_coordinator = nullptr;
  int32_t share_state_replication_factor = 3;
  int32_t share_state_min_isr = 2;
  // Incremental fetch sessions (KIP-227), shared by the broker's listeners; null: none
  // (every fetch is sessionless).
  FetchSessionCache* fetch_sessions = nullptr;
  // KIP-890: a transactional batch that opens a transaction on a partition is appended
  // once the coordinator confirmed the partition is in it (part 1, when
  // txn_partition_verification: transaction.partition.verification.enable) or added it
  // (part 2, Produce v12 and TxnOffsetCommit v5, always); null: appended as it comes.
  TxnVerifier* txn_verifier = nullptr;
  bool txn_partition_verification = true;
  // The authorizer (authorizer.class.name, the ACLs of the metadata image); null: none
  // is configured, every request is allowed and the ACL APIs answer SECURITY_DISABLED.
  const security::StandardAuthorizer* authorizer = nullptr;
  // Client byte-rate quotas (quota/client_quota_manager.h), following the image's; null:
  // no client is ever throttled.
  ClientQuotaManager* client_quotas = nullptr;
};

// Requests that wait for a condition (fetch.min.bytes, acks=all, DeleteRecords' low
// watermark) wait here.
struct Purgatories {
  Purgatory& fetch;
  Purgatory& produce;
  Purgatory& delete_records;
};

// A request under a request_percentage quota (kafka_apis.h): the throttle its answer
// carries, as the client's measure stood when it came. A handler that finds the request
// is a broker's (a follower's fetch) sets exempt before answering: then nothing is
// counted and the answer is not throttled.
struct RequestQuotaTicket {
  std::chrono::milliseconds throttle{0};
  std::atomic<bool> exempt{false};
};

// One request as its handler sees it. body stays valid until the responder is called.
struct ApiRequest {
  const KafkaApisContext& broker;
  const proto::kafka::RequestHeader& header;
  absl::string_view body;
  Purgatories& purgatories;
  // What this broker advertises (ApiVersions answers exactly this).
  const std::vector<proto::kafka::ApiVersionRange>& advertised;
  // Null unless a request_percentage quota is set somewhere.
  RequestQuotaTicket* request_quota = nullptr;
};

// The one shape of every API handler: answer through respond exactly once, at once or
// later (from any thread). An error status closes the connection (a request that does
// not parse).
using ApiHandler = void (*)(const ApiRequest& request, ApiResponder respond);

// The shape of the APIs answered at once: decode the body with read, answer it, encode
// the answer with write in the request's version (its error codes counted,
// response_errors.h).
template <typename Read, typename Answer, typename Write>
void AnswerAtOnce(const ApiRequest& request, const ApiResponder& respond, Read read, Answer answer, Write write) {
  proto::kafka::Reader reader(request.body);
  auto decoded = read(reader, request.header.api_version);
  if (!decoded.ok()) return respond(decoded.status());
  ApiResponse response;
  proto::kafka::Writer writer(&response.body);
  const auto answered = answer(*decoded);
  write(answered, request.header.api_version, writer);
  CountErrors(answered, response.errors);
  respond(std::optional<ApiResponse>(std::move(response)));
}

// The shape of the APIs answered later (the group coordinator's): decode the body with
// read; answer(decoded, reply) calls reply(response) exactly once, at once or later from
// any thread; the response is encoded with write in the request's version (its error
// codes counted).
template <typename Read, typename Answer, typename Write>
void AnswerLater(const ApiRequest& request, const ApiResponder& respond, Read read, Answer answer, Write write) {
  proto::kafka::Reader reader(request.body);
  const int16_t version = request.header.api_version;
  auto decoded = read(reader, version);
  if (!decoded.ok()) return respond(decoded.status());
  answer(std::move(*decoded), [respond, version, write](const auto& response) {
    ApiResponse out;
    proto::kafka::Writer writer(&out.body);
    write(response, version, writer);
    CountErrors(response, out.errors);
    respond(std::optional<ApiResponse>(std::move(out)));
  });
}

}  // namespace strata::broker
