#include "broker/handlers/describe_configs_handler.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "controller/topic_name.h"
#include "proto/kafka/error_code.h"
#include "storage/log_config.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ConfigResourceType;
using kafka::ConfigSource;
using kafka::ErrorCode;

namespace {

struct Refusal {
  ErrorCode code;
  std::string message;
};

// What one Kafka resource needs: a refusal, or controller resources (indexes into the
// forwarded request) and this broker's static settings.
struct Need {
  std::optional<Refusal> refusal;
  int topic = -1;           // TOPIC <name>
  int dynamic_broker = -1;  // BROKER <this broker's id>
  int dynamic_default = -1; // BROKER ""
  bool static_configs = false;
};

// One source of values, in the order of precedence (lowest first).
struct Layer {
  ConfigSource source;
  std::map<std::string, std::string> values;
};

class Forwarded {
 public:
  int Add(admin::v1::ConfigResource::Type type, const std::string& name) {
    auto [it, added] = index_.emplace(std::make_pair(static_cast<int>(type), name), request_.resources_size());
    if (added) {
      admin::v1::ConfigResource* r = request_.add_resources();
      r->set_type(type);
      r->set_name(name);
    }
    return it->second;
  }
  const admin::v1::DescribeConfigsRequest& request() const { return request_; }

 private:
  admin::v1::DescribeConfigsRequest request_;
  std::map<std::pair<int, std::string>, int> index_;
};

Need Plan(const KafkaApisContext& context, const kafka::DescribeConfigsRequest::Resource& resource,
          Forwarded& forward) {
  Need need;
  switch (static_cast<ConfigResourceType>(resource.resource_type)) {
    case ConfigResourceType::kTopic:
      if (absl::Status s = controller::ValidateTopicName(resource.resource_name); !s.ok()) {
        need.refusal = Refusal{ErrorCode::kInvalidTopicException, std::string(s.message())};
      } else {
        need.topic = forward.Add(admin::v1::ConfigResource::TOPIC, resource.resource_name);
        // The broker-level settings a topic's unset configs default to.
        need.static_configs = true;
        need.dynamic_default = forward.Add(admin::v1::ConfigResource::BROKER, "");
        need.dynamic_broker = forward.Add(admin::v1::ConfigResource::BROKER, absl::StrCat(context.broker_id));
      }
      return need;
    case ConfigResourceType::kBroker: {
      if (resource.resource_name.empty()) {
        need.dynamic_default = forward.Add(admin::v1::ConfigResource::BROKER, "");
        return need;
      }
      int32_t id = 0;
      if (!absl::SimpleAtoi(resource.resource_name, &id)) {
        need.refusal = Refusal{ErrorCode::kInvalidRequest,
                               absl::StrCat("broker resource '", resource.resource_name, "' is not a broker id")};
      } else if (id != context.broker_id) {
        need.refusal = Refusal{ErrorCode::kInvalidRequest,
                               absl::StrCat("this is broker ", context.broker_id, "; ask broker ", id,
                                            " for its configs (or give \"\" for the cluster defaults)")};
      } else {
        need.static_configs = true;
        need.dynamic_default = forward.Add(admin::v1::ConfigResource::BROKER, "");
        need.dynamic_broker = forward.Add(admin::v1::ConfigResource::BROKER, resource.resource_name);
      }
      return need;
    }
    default:
      need.refusal = Refusal{ErrorCode::kInvalidRequest,
                             absl::StrCat("config resource type ", resource.resource_type, " is not supported")};
      return need;
  }
}

bool Wanted(const kafka::DescribeConfigsRequest::Resource& resource, const std::string& name) {
  if (!resource.configuration_keys) return true;
  const auto& keys = *resource.configuration_keys;
  return std::find(keys.begin(), keys.end(), name) != keys.end();
}

// Broker configs from layers: each name's value from the highest layer that has it, and
// its synonyms from every layer that has it, highest first.
std::vector<kafka::DescribeConfigsResponse::Config> Merge(const std::vector<Layer>& layers,
                                                          const kafka::DescribeConfigsRequest::Resource& resource,
                                                          bool synonyms) {
  std::set<std::string> names;
  for (const Layer& l : layers) {
    for (const auto& [name, value] : l.values) names.insert(name);
  }
  std::vector<kafka::DescribeConfigsResponse::Config> out;
  for (const std::string& name : names) {
    if (!Wanted(resource, name)) continue;
    kafka::DescribeConfigsResponse::Config c;
    c.name = name;
    for (auto l = layers.rbegin(); l != layers.rend(); ++l) {
      auto v = l->values.find(name);
      if (v == l->values.end()) continue;
      if (!c.value) {
        c.value = v->second;
        c.config_source = static_cast<int8_t>(l->source);
        c.read_only = l->source == ConfigSource::kStaticBrokerConfig;
      }
      if (synonyms) c.synonyms.push_back({name, v->second, static_cast<int8_t>(l->source)});
    }
    out.push_back(std::move(c));
  }
  return out;
}

// A topic's configs: its own value (TOPIC_CONFIG), else the first broker layer (highest
// first) holding the setting's broker-level name with a value the setting takes, else the
// setting's default (DEFAULT_CONFIG) — the value this broker's log applies
// (replica_manager.h, TopicLogConfig). Synonyms: every source that has it, highest first,
// a broker layer's by the broker-level name.
std::vector<kafka::DescribeConfigsResponse::Config> TopicConfigs(const admin::v1::DescribeConfigsResponse::Result& topic,
                                                                 const std::vector<Layer>& layers,
                                                                 const kafka::DescribeConfigsRequest::Resource& resource,
                                                                 bool synonyms) {
  std::vector<kafka::DescribeConfigsResponse::Config> out;
  for (const admin::v1::ConfigEntry& e : topic.entries()) {
    if (!Wanted(resource, e.name())) continue;
    kafka::DescribeConfigsResponse::Config c;
    c.name = e.name();
    auto offer = [&](const std::string& name, const std::string& value, ConfigSource source) {
      if (!c.value) {
        c.value = value;
        c.config_source = static_cast<int8_t>(source);
        c.is_default = source == ConfigSource::kDefaultConfig;
      }
      if (synonyms) c.synonyms.push_back({name, value, static_cast<int8_t>(source)});
    };
    if (!e.is_default()) offer(e.name(), e.value(), ConfigSource::kTopicConfig);
    const storage::TopicSetting* setting = storage::FindTopicSetting(e.name());
    if (setting != nullptr && !setting->broker_key.empty()) {
      for (auto l = layers.rbegin(); l != layers.rend(); ++l) {
        auto v = l->values.find(setting->broker_key);
        if (v == l->values.end() || !setting->Check(v->first, v->second).ok()) continue;
        offer(v->first, v->second, l->source);
      }
    }
    offer(e.name(), setting != nullptr ? setting->default_value : e.value(), ConfigSource::kDefaultConfig);
    out.push_back(std::move(c));
  }
  return out;
}

// DescribeConfigs v3+: each config's type, and its doc when asked for.
void Document(std::vector<kafka::DescribeConfigsResponse::Config>& configs, bool documentation,
              const std::function<const KafkaApisContext::ConfigDoc*(const std::string& name)>& find) {
  for (kafka::DescribeConfigsResponse::Config& c : configs) {
    const KafkaApisContext::ConfigDoc* doc = find(c.name);
    if (doc == nullptr) continue;
    c.config_type = static_cast<int8_t>(kafka::ConfigTypeNamed(doc->type));
    if (documentation) c.documentation = doc->doc;
  }
}

std::map<std::string, std::string> Values(const admin::v1::DescribeConfigsResponse::Result& result) {
  std::map<std::string, std::string> values;
  for (const admin::v1::ConfigEntry& e : result.entries()) values[e.name()] = e.value();
  return values;
}

}  // namespace

kafka::DescribeConfigsResponse AnswerDescribeConfigs(
    const KafkaApisContext& context, const kafka::DescribeConfigsRequest& request,
    const std::function<bool(int8_t resource_type, const std::string& name)>& authorized) {
  Forwarded forward;
  std::vector<Need> needs;
  for (const auto& resource : request.resources) {
    if (authorized && !authorized(resource.resource_type, resource.resource_name)) {
      bool topic = static_cast<ConfigResourceType>(resource.resource_type) == ConfigResourceType::kTopic;
      Need denied;
      denied.refusal = Refusal{topic ? ErrorCode::kTopicAuthorizationFailed : ErrorCode::kClusterAuthorizationFailed,
                               absl::StrCat("not authorized to describe the configs of ", resource.resource_name)};
      needs.push_back(std::move(denied));
      continue;
    }
    needs.push_back(Plan(context, resource, forward));
  }
  admin::v1::DescribeConfigsResponse answer;
  std::optional<ForwardFailure> failure;
  if (forward.request().resources_size() > 0) {
    failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::DescribeConfigs,
                                  forward.request(), &answer, kMaxForwardDeadline);
    if (!failure) {
      failure = CountMismatch(answer.results_size(), static_cast<size_t>(forward.request().resources_size()));
    }
  }
  kafka::DescribeConfigsResponse response;
  for (size_t i = 0; i < request.resources.size(); ++i) {
    const auto& resource = request.resources[i];
    const Need& need = needs[i];
    kafka::DescribeConfigsResponse::Result out;
    out.resource_type = resource.resource_type;
    out.resource_name = resource.resource_name;
    // The controller's results this resource reads; the first error among them answers.
    std::optional<Refusal> refusal = need.refusal;
    for (int index : {need.topic, need.dynamic_default, need.dynamic_broker}) {
      if (index < 0 || refusal) continue;
      if (failure) {
        refusal = Refusal{failure->code, failure->message};
      } else if (answer.results(index).error_code() != 0) {
        const auto& result = answer.results(index);
        refusal = Refusal{static_cast<ErrorCode>(result.error_code()), result.error_message()};
      }
    }
    if (refusal) {
      out.error_code = static_cast<int16_t>(refusal->code);
      out.error_message = refusal->message;
    } else {
      std::vector<Layer> layers;
      if (need.static_configs) layers.push_back({ConfigSource::kStaticBrokerConfig, context.static_configs});
      if (need.dynamic_default >= 0) {
        layers.push_back({ConfigSource::kDynamicDefaultBrokerConfig, Values(answer.results(need.dynamic_default))});
      }
      if (need.dynamic_broker >= 0) {
        layers.push_back({ConfigSource::kDynamicBrokerConfig, Values(answer.results(need.dynamic_broker))});
      }
      KafkaApisContext::ConfigDoc topic_doc;
      if (need.topic >= 0) {
        out.configs = TopicConfigs(answer.results(need.topic), layers, resource, request.include_synonyms);
        Document(out.configs, request.include_documentation,
                 [&](const std::string& name) -> const KafkaApisContext::ConfigDoc* {
                   const storage::TopicSetting* s = storage::FindTopicSetting(name);
                   if (s == nullptr) return nullptr;
                   topic_doc = {s->type_name(), s->doc};
                   return &topic_doc;
                 });
      } else {
        out.configs = Merge(layers, resource, request.include_synonyms);
        Document(out.configs, request.include_documentation,
                 [&](const std::string& name) -> const KafkaApisContext::ConfigDoc* {
          auto it = context.broker_config_docs.find(name);
          return it == context.broker_config_docs.end() ? nullptr : &it->second;
        });
      }
    }
    response.results.push_back(std::move(out));
  }
  return response;
}

void HandleDescribeConfigs(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadDescribeConfigsRequest(reader, version); },
      [&](const auto& r) {
        // DescribeConfigs on the topic, or on the cluster for a broker's (as Kafka).
        return AnswerDescribeConfigs(request.broker, r, [&](int8_t type, const std::string& name) {
          return static_cast<ConfigResourceType>(type) == ConfigResourceType::kTopic
                     ? AuthorizedOnTopic(request, security::AclOperation::kDescribeConfigs, name)
                     : AuthorizedOnCluster(request, security::AclOperation::kDescribeConfigs);
        });
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteDescribeConfigsResponse(response, version, writer); });
}

}  // namespace strata::broker
