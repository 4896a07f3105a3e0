#include "broker/handlers/find_coordinator_handler.h"

#include "broker/handlers/authorization.h"
#include "absl/strings/str_cat.h"
#include "broker/lifecycle/auto_topic_creator.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/find_coordinator.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
namespace pb = strata::metadata::v1;

namespace {

constexpr int16_t kBatchedKeys = 4;  // the first version with coordinator_keys

kafka::FindCoordinatorResponse::Coordinator Find(const KafkaApisContext& context, int8_t key_type,
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
  if (key_type != kafka::kCoordinatorKeyTypeGroup) {
    // Not retriable, so that a transactional producer fails at once instead of waiting, and
    // UNSUPPORTED_VERSION, so that the Java AdminClient's transaction calls fail with
    // UnsupportedVersionException as every other call Strata does not serve (issue 37).
    return fail(ErrorCode::kUnsupportedVersion, "Strata has no transaction coordinator (transactions are not supported)");
  }
  if (!authorized) return fail(ErrorCode::kGroupAuthorizationFailed, "not authorized to describe the group");
  if (context.group_coordinator == nullptr) return fail(ErrorCode::kCoordinatorNotAvailable, "no group coordinator");
  bool missing = false;
  context.store.WithImage([&](const controller::MetadataImage& image) {
    const controller::TopicState* t = image.FindTopic(kOffsetsTopic);
    if (t == nullptr || t->partitions.empty()) {
      missing = true;
      fail(ErrorCode::kCoordinatorNotAvailable, "the offsets topic is being created");
      return 0;
    }
    int32_t partition = OffsetsPartitionFor(key, static_cast<int32_t>(t->partitions.size()));
    auto p = t->partitions.find(partition);
    int32_t leader = p == t->partitions.end() ? -1 : p->second.leader();
    auto b = image.brokers().find(leader);
    if (leader < 0 || b == image.brokers().end() || b->second.fenced() || b->second.registration().endpoints().empty()) {
      fail(ErrorCode::kCoordinatorNotAvailable, "the group's partition of the offsets topic has no leader");
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
    std::string why = context.internal_topic_creator->LastFailure(kOffsetsTopic);
    if (!why.empty()) c.error_message = absl::StrCat("creating the offsets topic failed: ", why);
    AutoTopicCreator::TopicSpec spec;
    spec.partitions = context.group_coordinator->offsets_topic_partitions();
    spec.replication_factor = context.offsets_topic_replication_factor;
    spec.configs = {{"cleanup.policy", "compact"}, {"compression.type", "producer"}, {"segment.bytes", "104857600"}};
    context.internal_topic_creator->RequestInternal(kOffsetsTopic, std::move(spec));
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
        // Describe on the group it coordinates (as Kafka).
        auto find = [&](const std::string& key) {
          bool authorized = r.key_type != kafka::kCoordinatorKeyTypeGroup ||
                            AuthorizedOnGroup(request, security::AclOperation::kDescribe, key);
          return Find(request.broker, r.key_type, key, authorized);
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
