#include "broker/handlers/client_quotas_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "controller/metadata_image.h"
#include "proto/kafka/client_quotas.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

std::vector<kafka::QuotaEntityData> KafkaEntity(const controller::EntityParts& parts) {
  std::vector<kafka::QuotaEntityData> out;
  for (const auto& part : parts) {
    kafka::QuotaEntityData e{part.entity_type(), std::nullopt};
    if (part.has_entity_name()) e.entity_name = part.entity_name();
    out.push_back(std::move(e));
  }
  return out;
}

kafka::DescribeClientQuotasResponse AnswerDescribe(const KafkaApisContext& context,
                                                   const kafka::DescribeClientQuotasRequest& request,
                                                   bool authorized) {
  kafka::DescribeClientQuotasResponse response;
  if (!authorized) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kClusterAuthorizationFailed);
    response.error_message = "not authorized to describe client quotas (DescribeConfigs on the cluster)";
    return response;
  }
  std::vector<controller::QuotaFilterComponent> components;
  for (const auto& c : request.components) components.push_back({c.entity_type, c.match_type, c.match});
  auto described = context.store.WithImage([&](const controller::MetadataImage& image) {
    return image.client_quotas().Describe(components, request.strict);
  });
  if (!described.ok()) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kInvalidRequest);
    response.error_message = std::string(described.status().message());
    return response;
  }
  response.entries.emplace();
  for (const auto& [entity, values] : *described) {
    kafka::DescribeClientQuotasResponse::Entry out;
    for (const auto& [type, name] : entity) out.entity.push_back({type, name});
    for (const auto& [key, value] : values) out.values.push_back({key, value});
    response.entries->push_back(std::move(out));
  }
  return response;
}

kafka::AlterClientQuotasResponse AnswerAlter(const KafkaApisContext& context,
                                             const kafka::AlterClientQuotasRequest& request, bool authorized) {
  admin::v1::AlterClientQuotasRequest forward;
  forward.set_validate_only(request.validate_only);
  for (const auto& entry : request.entries) {
    admin::v1::ClientQuotaAlteration* out = forward.add_entries();
    for (const auto& e : entry.entity) {
      auto* part = out->add_entity();
      part->set_entity_type(e.entity_type);
      if (e.entity_name) part->set_entity_name(*e.entity_name);
    }
    for (const auto& op : entry.ops) {
      auto* o = out->add_ops();
      o->set_key(op.key);
      o->set_value(op.value);
      o->set_remove(op.remove);
    }
  }
  kafka::AlterClientQuotasResponse response;
  if (request.entries.empty()) return response;
  admin::v1::AlterClientQuotasResponse answer;
  std::optional<ForwardFailure> failure;
  if (!authorized) {
    failure = ForwardFailure{kafka::ErrorCode::kClusterAuthorizationFailed,
                             "not authorized to alter client quotas (AlterConfigs on the cluster)"};
  } else {
    failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::AlterClientQuotas, forward,
                                  &answer, ForwardDeadline(0));
    if (!failure) failure = CountMismatch(answer.results_size(), request.entries.size());
  }
  for (size_t i = 0; i < request.entries.size(); ++i) {
    kafka::AlterClientQuotasResponse::Entry out;
    out.entity = request.entries[i].entity;
    if (failure) {
      out.error_code = static_cast<int16_t>(failure->code);
      out.error_message = failure->message;
    } else {
      const auto& result = answer.results(static_cast<int>(i));
      out.error_code = static_cast<int16_t>(result.error_code());
      out.error_message = ErrorMessage(result.error_message());
      out.entity = KafkaEntity(result.entity());
    }
    response.entries.push_back(std::move(out));
  }
  return response;
}

}  // namespace

void HandleDescribeClientQuotas(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadDescribeClientQuotasRequest(reader, v); },
      [&](const auto& r) {
        return AnswerDescribe(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kDescribeConfigs));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteDescribeClientQuotasResponse(response, v, writer);
      });
}

void HandleAlterClientQuotas(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadAlterClientQuotasRequest(reader, v); },
      [&](const auto& r) {
        return AnswerAlter(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlterConfigs));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteAlterClientQuotasResponse(response, v, writer);
      });
}

}  // namespace strata::broker
