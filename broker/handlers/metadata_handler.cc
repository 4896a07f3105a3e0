#include "broker/handlers/metadata_handler.h"

#include <algorithm>
#include <set>

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/auto_topic_creator.h"
#include "broker/replication/replica_manager.h"
#include "controller/topic_name.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
namespace pb = strata::metadata::v1;
using kafka::ErrorCode;

namespace {

const std::string kNoTopicId(16, '\0');  // a topic id not given (Kafka's ZERO_UUID)

int16_t Code(ErrorCode c) { return static_cast<int16_t>(c); }

bool Internal(const std::string& name) { return name == "__consumer_offsets" || name == "__transaction_state"; }

// stranded: partitions this broker leads but is cut off from (ReplicaManager::Stranded).
kafka::MetadataResponse::Topic Describe(const controller::MetadataImage& image, const controller::TopicState& t,
                                        const std::set<storage::TopicPartition>& stranded) {
  kafka::MetadataResponse::Topic out;
  out.name = t.name;
  out.topic_id = t.id;
  out.is_internal = Internal(t.name);
  for (const auto& [pid, p] : t.partitions) {
    kafka::MetadataResponse::Partition part;
    part.partition_index = pid;
    part.leader_id = p.leader();
    part.leader_epoch = p.leader_epoch();
    part.replica_nodes.assign(p.replicas().begin(), p.replicas().end());
    part.isr_nodes.assign(p.isr().begin(), p.isr().end());
    for (int i = 0; i < p.replicas_size(); ++i) {
      auto b = image.brokers().find(p.replicas(i));
      bool offline = b == image.brokers().end() || b->second.fenced();
      if (!offline && i < p.directories_size()) {
        const auto& dirs = b->second.offline_log_dirs();
        offline = std::find(dirs.begin(), dirs.end(), p.directories(i)) != dirs.end();
      }
      if (offline) part.offline_replicas.push_back(p.replicas(i));
    }
    if (!stranded.empty() && stranded.count(storage::TopicPartition{t.name, pid}) > 0) part.leader_id = -1;
    if (part.leader_id < 0) part.error_code = Code(ErrorCode::kLeaderNotAvailable);
    out.partitions.push_back(std::move(part));
  }
  return out;
}

}  // namespace

kafka::MetadataResponse AnswerMetadata(const KafkaApisContext& context, const kafka::MetadataRequest& request,
                                       const MetadataAccess& access) {
  auto may_describe = [&](const std::string& topic) { return !access.describe || access.describe(topic); };
  auto may_create = [&](const std::string& topic) { return !access.create || access.create(topic); };
  auto denied = [](kafka::MetadataResponse::Topic& t) { t.error_code = Code(ErrorCode::kTopicAuthorizationFailed); };
  kafka::MetadataResponse response;
  response.cluster_id = context.cluster_id;
  response.controller_id = context.broker_id;
  // Before the image's lock, which comes first (controller/metadata_store.h).
  const std::set<storage::TopicPartition> stranded = context.replicas.StrandedPartitions();
  context.store.WithImage([&](const controller::MetadataImage& image) {
    for (const auto& [id, b] : image.brokers()) {
      if (b.fenced() || b.registration().endpoints().empty()) continue;
      const pb::BrokerEndpoint* endpoint = &b.registration().endpoints(0);
      for (const auto& e : b.registration().endpoints()) {
        if (e.name() == context.listener_name) endpoint = &e;
      }
      kafka::MetadataResponse::Broker broker;
      broker.node_id = id;
      broker.host = endpoint->host();
      broker.port = endpoint->port();
      if (!b.registration().rack().empty()) broker.rack = b.registration().rack();
      response.brokers.push_back(std::move(broker));
    }
    if (!request.topics) {
      std::vector<const controller::TopicState*> all;
      for (const auto& [id, t] : image.topics()) all.push_back(&t);
      std::sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->name < b->name; });
      for (const auto* t : all) {
        if (may_describe(t->name)) response.topics.push_back(Describe(image, *t, stranded));
      }
      return 0;
    }
    for (const auto& wanted : *request.topics) {
      const controller::TopicState* t = nullptr;
      kafka::MetadataResponse::Topic missing;
      missing.name = wanted.name;
      // A topic named by its id (v10+) is looked up by it, whatever the name says: the Java
      // client sends an empty name, not null, beside the id (Kafka ignores names once ids
      // are given).
      const bool by_id = wanted.topic_id != kNoTopicId && (!wanted.name || wanted.name->empty());
      if (by_id) {
        t = image.FindTopicById(wanted.topic_id);
        missing.name.reset();
        missing.topic_id = wanted.topic_id;
        if (t == nullptr) {
          missing.error_code = Code(ErrorCode::kUnknownTopicId);
        } else if (!may_describe(t->name)) {
          t = nullptr;
          denied(missing);
        }
      } else if (wanted.name && !may_describe(*wanted.name)) {
        denied(missing);
      } else if (wanted.name) {
        t = image.FindTopic(*wanted.name);
        if (t == nullptr) {
          missing.error_code = controller::ValidateTopicName(*wanted.name).ok() ? Code(ErrorCode::kUnknownTopicOrPartition)
                                                                                : Code(ErrorCode::kInvalidTopicException);
          // auto.create.topics.enable: created in the background; retriable meanwhile.
          if (context.auto_topic_creator != nullptr && request.allow_auto_topic_creation) {
            if (!may_create(*wanted.name)) {
              denied(missing);
            } else if (context.auto_topic_creator->Request(*wanted.name)) {
              missing.error_code = Code(ErrorCode::kLeaderNotAvailable);
            }
          }
        }
      } else {
        missing.topic_id = wanted.topic_id;  // neither a name nor an id
        missing.error_code = Code(ErrorCode::kUnknownTopicId);
      }
      response.topics.push_back(t != nullptr ? Describe(image, *t, stranded) : std::move(missing));
    }
    return 0;
  });
  return response;
}

void HandleMetadata(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadMetadataRequest(reader, version); },
      [&](const auto& r) {
        MetadataAccess access;
        if (request.broker.authorizer != nullptr) {
          access.describe = [&](const std::string& topic) {
            return AuthorizedOnTopic(request, security::AclOperation::kDescribe, topic);
          };
          access.create = [&](const std::string& topic) {
            return AuthorizedOnCluster(request, security::AclOperation::kCreate) ||
                   AuthorizedOnTopic(request, security::AclOperation::kCreate, topic);
          };
        }
        return AnswerMetadata(request.broker, r, access);
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteMetadataResponse(response, version, writer); });
}

}  // namespace strata::broker
