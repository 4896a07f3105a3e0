#include "broker/handlers/create_topics_handler.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

// Why the broker answers a topic itself instead of forwarding it, or nullopt.
std::optional<std::pair<ErrorCode, std::string>> RefuseLocally(const kafka::CreateTopicsRequest::Topic& topic,
                                                               int names) {
  if (names > 1) {
    return std::make_pair(ErrorCode::kInvalidRequest,
                          absl::StrCat("topic '", topic.name, "' is named ", names, " times in the request"));
  }
  std::set<std::string> keys;
  for (const auto& c : topic.configs) {
    if (!c.value) {
      return std::make_pair(ErrorCode::kInvalidConfig, absl::StrCat("config '", c.name, "' has a null value"));
    }
    if (!keys.insert(c.name).second) {
      return std::make_pair(ErrorCode::kInvalidConfig, absl::StrCat("config '", c.name, "' is given twice"));
    }
  }
  return std::nullopt;
}

admin::v1::CreateTopicsRequest::Topic ToAdmin(const kafka::CreateTopicsRequest::Topic& topic) {
  admin::v1::CreateTopicsRequest::Topic out;
  out.set_name(topic.name);
  out.set_num_partitions(topic.num_partitions);
  out.set_replication_factor(topic.replication_factor);
  for (const auto& a : topic.assignments) {
    admin::v1::ReplicaAssignment* assignment = out.add_assignments();
    assignment->set_partition_id(a.partition_index);
    for (int32_t b : a.broker_ids) assignment->add_broker_ids(b);
  }
  for (const auto& c : topic.configs) (*out.mutable_configs())[c.name] = *c.value;
  return out;
}

void FillCreated(const admin::v1::TopicResult& result, bool validate_only, kafka::CreateTopicsResponse::Topic* out) {
  if (!validate_only) out->topic_id = result.topic_id();
  out->num_partitions = result.num_partitions();
  out->replication_factor = static_cast<int16_t>(result.replication_factor());
  out->configs.emplace();
  for (const admin::v1::ConfigEntry& e : result.configs()) {
    kafka::CreateTopicsResponse::Config c;
    c.name = e.name();
    c.value = e.value();
    c.config_source = static_cast<int8_t>(e.is_default() ? kafka::ConfigSource::kDefaultConfig
                                                         : kafka::ConfigSource::kTopicConfig);
    out->configs->push_back(std::move(c));
  }
}

}  // namespace

kafka::CreateTopicsResponse AnswerCreateTopics(const KafkaApisContext& context,
                                               const kafka::CreateTopicsRequest& request,
                                               const std::function<bool(const std::string& topic)>& authorized) {
  std::map<std::string, int> names;
  for (const auto& t : request.topics) ++names[t.name];
  kafka::CreateTopicsResponse response;
  admin::v1::CreateTopicsRequest forward;
  forward.set_validate_only(request.validate_only);
  std::vector<size_t> forwarded;  // response index of each forwarded topic
  std::set<std::string> answered;
  for (const auto& t : request.topics) {
    if (!answered.insert(t.name).second) continue;  // one answer per name
    kafka::CreateTopicsResponse::Topic out;
    out.name = t.name;
    if (authorized && !authorized(t.name)) {
      out.error_code = static_cast<int16_t>(ErrorCode::kTopicAuthorizationFailed);
      out.error_message = absl::StrCat("not authorized to create topic ", t.name);
    } else if (auto refusal = RefuseLocally(t, names[t.name])) {
      out.error_code = static_cast<int16_t>(refusal->first);
      out.error_message = refusal->second;
    } else {
      *forward.add_topics() = ToAdmin(t);
      forwarded.push_back(response.topics.size());
    }
    response.topics.push_back(std::move(out));
  }
  ForwardTopics(context.controller, &admin::v1::AdminService::Stub::CreateTopics, forward,
                ForwardDeadline(request.timeout_ms), forwarded, response.topics,
                [&](kafka::CreateTopicsResponse::Topic& out, const admin::v1::TopicResult& result) {
                  if (result.error_code() == 0) FillCreated(result, request.validate_only, &out);
                });
  return response;
}

void HandleCreateTopics(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadCreateTopicsRequest(reader, version); },
      [&](const auto& r) {
        // Create on the cluster, or on the topic (as Kafka).
        return AnswerCreateTopics(request.broker, r, [&](const std::string& topic) {
          return AuthorizedOnCluster(request, security::AclOperation::kCreate) ||
                 AuthorizedOnTopic(request, security::AclOperation::kCreate, topic);
        });
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteCreateTopicsResponse(response, version, writer); });
}

}  // namespace strata::broker
