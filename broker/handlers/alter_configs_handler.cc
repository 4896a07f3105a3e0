#include "broker/handlers/alter_configs_handler.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "broker/handlers/authorization.h"
#include "broker/network/tls_context.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

constexpr int8_t kTopicResource = 2;
constexpr int8_t kBrokerResource = 4;

// Why a resource is refused before it is forwarded (nullopt: forwarded).
std::optional<std::pair<ErrorCode, std::string>> Refusal(const ApiRequest& request, bool incremental,
                                                         const kafka::AlterConfigsRequest::Resource& r) {
  if (r.resource_type == kTopicResource) {
    if (!AuthorizedOnTopic(request, security::AclOperation::kAlterConfigs, r.resource_name)) {
      return std::make_pair(ErrorCode::kTopicAuthorizationFailed,
                            absl::StrCat("not authorized to alter the configs of topic ", r.resource_name));
    }
  } else if (r.resource_type == kBrokerResource) {
    if (!AuthorizedOnCluster(request, security::AclOperation::kAlterConfigs)) {
      return std::make_pair(ErrorCode::kClusterAuthorizationFailed, "not authorized to alter broker configs");
    }
    int32_t id = 0;
    if (!r.resource_name.empty() && (!absl::SimpleAtoi(r.resource_name, &id) || id < 0)) {
      return std::make_pair(ErrorCode::kInvalidRequest,
                            absl::StrCat("broker resource name '", r.resource_name,
                                         "' is neither a broker id nor empty (the cluster-wide default)"));
    }
    // A listener's TLS files: a broker's own only (Kafka's), loaded here when this is
    // that broker (a file on another broker is that broker's to load).
    for (const auto& c : r.configs) {
      std::optional<ListenerTlsKey> tls = ParseListenerTlsKey(c.name);
      const bool deleted = !c.value || (incremental && c.operation == static_cast<int8_t>(kafka::ConfigOperation::kDelete));
      if (!tls || deleted) continue;
      if (r.resource_name.empty()) {
        return std::make_pair(ErrorCode::kInvalidRequest,
                              absl::StrCat("Cannot update these configs at default cluster level, broker id must "
                                           "be specified: ",
                                           c.name));
      }
      if (id != request.broker.broker_id) continue;
      if (absl::Status loads = CheckTlsFile(tls->setting, *c.value); !loads.ok()) {
        return std::make_pair(ErrorCode::kInvalidConfig, absl::StrCat(c.name, ": ", loads.message()));
      }
    }
  } else {
    return std::make_pair(ErrorCode::kInvalidRequest,
                          absl::StrCat("configs of resource type ", r.resource_type,
                                       " cannot be altered (TOPIC 2 and BROKER 4 can)"));
  }
  for (const auto& c : r.configs) {
    if (!incremental) continue;
    if (c.operation < static_cast<int8_t>(kafka::ConfigOperation::kSet) ||
        c.operation > static_cast<int8_t>(kafka::ConfigOperation::kSubtract)) {
      return std::make_pair(ErrorCode::kInvalidRequest,
                            absl::StrCat("config '", c.name, "': unknown operation ", c.operation));
    }
    if (!c.value && c.operation != static_cast<int8_t>(kafka::ConfigOperation::kDelete)) {
      return std::make_pair(ErrorCode::kInvalidRequest, absl::StrCat("config '", c.name, "': a null value needs DELETE"));
    }
  }
  return std::nullopt;
}

admin::v1::AlterConfigsRequest::Resource Forwarded(bool incremental, const kafka::AlterConfigsRequest::Resource& r) {
  using Op = admin::v1::AlterConfigsRequest::Op;
  admin::v1::AlterConfigsRequest::Resource out;
  out.mutable_resource()->set_type(r.resource_type == kTopicResource ? admin::v1::ConfigResource::TOPIC
                                                                     : admin::v1::ConfigResource::BROKER);
  out.mutable_resource()->set_name(r.resource_name);
  out.set_replace(!incremental);
  for (const auto& c : r.configs) {
    Op* op = out.add_ops();
    op->set_name(c.name);
    if (c.value) op->set_value(*c.value);
    if (!incremental) {
      op->set_operation(c.value ? Op::SET : Op::DELETE);
    } else {
      op->set_operation(static_cast<Op::Operation>(c.operation));
    }
    op->set_remove(op->operation() == Op::DELETE);
  }
  return out;
}

kafka::AlterConfigsResponse Answer(const ApiRequest& request, bool incremental, const kafka::AlterConfigsRequest& r) {
  kafka::AlterConfigsResponse response;
  std::map<std::pair<int8_t, std::string>, int> named;
  for (const auto& res : r.resources) ++named[{res.resource_type, res.resource_name}];
  admin::v1::AlterConfigsRequest forward;
  forward.set_validate_only(r.validate_only);
  std::vector<size_t> forwarded;
  for (const auto& res : r.resources) {
    kafka::AlterConfigsResponse::Result& out = response.responses.emplace_back();
    out.resource_type = res.resource_type;
    out.resource_name = res.resource_name;
    auto refusal = named[{res.resource_type, res.resource_name}] > 1
                       ? std::make_optional(std::make_pair(ErrorCode::kInvalidRequest,
                                                           std::string("the resource is named more than once")))
                       : Refusal(request, incremental, res);
    if (refusal) {
      out.error_code = static_cast<int16_t>(refusal->first);
      out.error_message = refusal->second;
      continue;
    }
    *forward.add_resources() = Forwarded(incremental, res);
    forwarded.push_back(response.responses.size() - 1);
  }
  if (forwarded.empty()) return response;
  admin::v1::AlterConfigsResponse answer;
  std::optional<ForwardFailure> failure = ForwardToController(
      request.broker.controller, &admin::v1::AdminService::Stub::AlterConfigs, forward, &answer, kMaxForwardDeadline);
  if (!failure) failure = CountMismatch(answer.results_size(), forwarded.size());
  for (size_t i = 0; i < forwarded.size(); ++i) {
    kafka::AlterConfigsResponse::Result& out = response.responses[forwarded[i]];
    if (failure) {
      out.error_code = static_cast<int16_t>(failure->code);
      out.error_message = failure->message;
      continue;
    }
    const admin::v1::ConfigResult& result = answer.results(static_cast<int>(i));
    out.error_code = static_cast<int16_t>(result.error_code());
    out.error_message = ErrorMessage(result.error_message());
  }
  return response;
}

void Handle(const ApiRequest& request, const ApiResponder& respond, kafka::ApiKey key) {
  const int16_t api_key = static_cast<int16_t>(key);
  const bool incremental = key == kafka::ApiKey::kIncrementalAlterConfigs;
  AnswerAtOnce(
      request, respond,
      [api_key](kafka::Reader& reader, int16_t version) { return kafka::ReadAlterConfigsRequest(reader, api_key, version); },
      [&](const kafka::AlterConfigsRequest& r) { return Answer(request, incremental, r); },
      [api_key](const auto& response, int16_t version, kafka::Writer& writer) {
        kafka::WriteAlterConfigsResponse(response, api_key, version, writer);
      });
}

}  // namespace

void HandleAlterConfigs(const ApiRequest& request, ApiResponder respond) {
  Handle(request, respond, kafka::ApiKey::kAlterConfigs);
}

void HandleIncrementalAlterConfigs(const ApiRequest& request, ApiResponder respond) {
  Handle(request, respond, kafka::ApiKey::kIncrementalAlterConfigs);
}

}  // namespace strata::broker
