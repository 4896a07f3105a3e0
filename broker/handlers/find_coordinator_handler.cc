#include "broker/handlers/find_coordinator_handler.h"

#include "broker/handlers/authorization.h"
#include "absl/strings/str_cat.h"
#include "broker/lifecycle/auto_topic_creator.h"
#include "broker/group/group_coordinator.h"
#include "broker/group/group_record.h"
#include "broker/share/share_coordinator.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/find_coordinator.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
namespace pb = strata::metadata::v1;

namespace {

constexpr int16_t kBatchedKeys = 4;  // the first version with coordinator_keys
constexpr int16_t kShareKeys = 6;    // the first version with share coordinator keys (KIP-932)

// The internal topic a key type's coordinators lead: where the key lives, and how to
// create the topic when it does not exist yet.
struct CoordinatorTopic {
  const char* topic = nullptr;
  const char* what = nullptr;  // "group", "transactional id"
  int32_t partitions = 0;
  AutoTopicCreator::TopicSpec spec;
};

std::optional<CoordinatorTopic> CoordinatorTopicFor(const KafkaApisContext& context, int8_t key_type) {
  CoordinatorTopic t;
  if (key_type == kafka::kCoordinatorKeyTypeGroup && context.group_coordinator != nullptr) {
    t.topic = kOffsetsTopic;
    t.what = "group";
    t.partitions = context.group_coordinator->offsets_topic_partitions();
    t.spec.replication_factor = context.offsets_topic_replication_factor;
    t.spec.configs = {{"cleanup.policy", "compact"}, {"compression.type", "producer"}, {"segment.bytes", "104857600"}};
  } else if (key_type == kafka::kCoordinatorKeyTypeTransaction && context.transaction_coordinator != nullptr) {
    t.topic = kTransactionStateTopic;
    t.what = "transactional id";
    t.partitions = context.transaction_coordinator->state_topic_partitions();
    t.spec.replication_factor = context.transaction_state_replication_factor;
    t.spec.configs = {{"cleanup.policy", "compact"},
                      {"compression.type", "uncompressed"},
                      {"segment.bytes", "104857600"},
                      {"min.insync.replicas", absl::StrCat(context.transaction_state_min_isr)},
                      {"unclean.leader.election.enable", "false"}};
  } else if (key_type == kafka::kCoordinatorKeyTypeShare && context.share_coordinator != nullptr) {
    // Kafka's layout, but compacted where Kafka deletes by offset: Strata writes whole
    // snapshots, so a key's latest record is its state (docs/share-group-state-format.md).
    t.topic = kShareGroupStateTopic;
    t.what = "share partition";
    t.partitions = context.share_coordinator->state_topic_partitions();
    t.spec.replication_factor = context.share_state_replication_factor;
    t.spec.configs = {{"cleanup.policy", "compact"},
                      {"compression.type", "uncompressed"},
                      {"segment.bytes", "104857600"},
                      {"min.insync.replicas", absl::StrCat(context.share_state_min_isr)},
                      {"unclean.leader.election.enable", "false"}};
  } else {
    return std::nullopt;
  }
  t.spec.partitions = t.partitions;
  return t;
}

kafka::FindCoordinatorResponse::Coordinator Find(const KafkaApisContext& context, int16_t version, int8_t key_type,
                                                 const std::string& key, bool authorized) {
  kafka::FindCoordinatorResponse::Coordinator c;
  c.key = key;
  c.node_id = -1;
  c.port = -1;
  auto fail = [&](ErrorCode e, std::string message) {
    c.error_code = static_cast<int16_t>(e);
    c.error_message = std::move(message);
    return c;
  };
  if (key_type != kafka::kCoordinatorKeyTypeGroup && key_type != kafka::kCoordinatorKeyTypeTransaction &&
      key_type != kafka::kCoordinatorKeyTypeShare) {
    return fail(ErrorCode::kInvalidRequest, absl::StrCat("unknown coordinator key type ", key_type));
  }
  const bool group = key_type == kafka::kCoordinatorKeyTypeGroup;
  const bool share = key_type == kafka::kCoordinatorKeyTypeShare;
  if (share && version < kShareKeys) {
    return fail(ErrorCode::kUnsupportedVersion, absl::StrCat("share coordinator keys need version ", kShareKeys));
  }
  if (!authorized) {
    if (share) return fail(ErrorCode::kClusterAuthorizationFailed, "ClusterAction on the cluster is required");
    return group ? fail(ErrorCode::kGroupAuthorizationFailed, "not authorized to describe the group")
                 : fail(ErrorCode::kTransactionalIdAuthorizationFailed, "not authorized to describe the transactional id");
  }
  std::optional<CoordinatorTopic> topic = CoordinatorTopicFor(context, key_type);
  if (!topic) {
    return fail(ErrorCode::kCoordinatorNotAvailable,
                group ? "no group coordinator" : share ? "no share coordinator" : "no transaction coordinator");
  }
  if (key.empty() && key_type == kafka::kCoordinatorKeyTypeTransaction) {
    return fail(ErrorCode::kInvalidRequest, "an empty transactional id");
  }
  if (share) {
    if (auto parsed = ParseShareCoordinatorKey(key); !parsed.ok()) {
      return fail(ErrorCode::kInvalidRequest, std::string(parsed.status().message()));
    }
  }
  bool missing = false;
  context.store.WithImage([&](const controller::MetadataImage& image) {
    const controller::TopicState* t = image.FindTopic(topic->topic);
    if (t == nullptr || t->partitions.empty()) {
      missing = true;
      fail(ErrorCode::kCoordinatorNotAvailable, absl::StrCat(topic->topic, " is being created"));
      return 0;
    }
    // Placed by the configured count, as the coordinator places them.
    int32_t partition =
        share ? ShareCoordinatorPartitionFor(key, topic->partitions) : OffsetsPartitionFor(key, topic->partitions);
    auto p = t->partitions.find(partition);
    int32_t leader = p == t->partitions.end() ? -1 : p->second.leader();
    auto b = image.brokers().find(leader);
    if (leader < 0 || b == image.brokers().end() || b->second.fenced() || b->second.registration().endpoints().empty()) {
      fail(ErrorCode::kCoordinatorNotAvailable, absl::StrCat("the ", topic->what, "'s partition ", partition, " of ",
                                                             topic->topic, " has no leader"));
      return 0;
    }
    const pb::BrokerEndpoint* endpoint = &b->second.registration().endpoints(0);
    for (const auto& e : b->second.registration().endpoints()) {
      if (e.name() == context.listener_name) endpoint = &e;
    }
    c.node_id = leader;
    c.host = endpoint->host();
    c.port = endpoint->port();
    return 0;
  });
  if (missing && context.internal_topic_creator != nullptr) {
    // Say why the last attempt failed (a replication factor the cluster cannot meet).
    std::string why = context.internal_topic_creator->LastFailure(topic->topic);
    if (!why.empty()) c.error_message = absl::StrCat("creating ", topic->topic, " failed: ", why);
    context.internal_topic_creator->RequestInternal(topic->topic, topic->spec);
  }
  return c;
}

}  // namespace

void HandleFindCoordinator(const ApiRequest& request, ApiResponder respond) {
  const int16_t version = request.header.api_version;
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadFindCoordinatorRequest(reader, v); },
      [&](const kafka::FindCoordinatorRequest& r) {
        kafka::FindCoordinatorResponse out;
        // Describe on the group or transactional id it coordinates, ClusterAction for a
        // share partition's state (asked by brokers), as Kafka.
        auto find = [&](const std::string& key) {
          bool authorized = true;
          if (r.key_type == kafka::kCoordinatorKeyTypeGroup) {
            authorized = AuthorizedOnGroup(request, security::AclOperation::kDescribe, key);
          } else if (r.key_type == kafka::kCoordinatorKeyTypeTransaction) {
            authorized = AuthorizedOnTransactionalId(request, security::AclOperation::kDescribe, key);
          } else if (r.key_type == kafka::kCoordinatorKeyTypeShare) {
            authorized = AuthorizedOnCluster(request, security::AclOperation::kClusterAction);
          }
          return Find(request.broker, version, r.key_type, key, authorized);
        };
        if (version >= kBatchedKeys) {
          for (const std::string& key : r.coordinator_keys) out.coordinators.push_back(find(key));
          return out;
        }
        kafka::FindCoordinatorResponse::Coordinator c = find(r.key);
        out.error_code = c.error_code;
        out.error_message = c.error_message;
        out.node_id = c.node_id;
        out.host = c.host;
        out.port = c.port;
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteFindCoordinatorResponse(response, v, writer); });
}

}  // namespace strata::broker
