#include "broker/handlers/acls_handler.h"

#include <map>
#include <tuple>

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "controller/metadata_image.h"
#include "proto/kafka/acls.h"
#include "security/acl.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

constexpr char kSecurityDisabled[] = "no authorizer is configured (authorizer.class.name)";

security::AclFilter FilterOf(const kafka::AclFilterFields& f) {
  security::AclFilter out;
  out.resource_type = static_cast<security::ResourceType>(f.resource_type);
  out.resource_name = f.resource_name;
  out.pattern_type = static_cast<security::PatternType>(f.pattern_type);
  out.principal = f.principal;
  out.host = f.host;
  out.operation = static_cast<security::AclOperation>(f.operation);
  out.permission = static_cast<security::AclPermission>(f.permission_type);
  return out;
}

admin::v1::AclFilter ProtoOf(const kafka::AclFilterFields& f) {
  admin::v1::AclFilter out;
  out.set_resource_type(f.resource_type);
  if (f.resource_name) out.set_resource_name(*f.resource_name);
  out.set_pattern_type(f.pattern_type);
  if (f.principal) out.set_principal(*f.principal);
  if (f.host) out.set_host(*f.host);
  out.set_operation(f.operation);
  out.set_permission_type(f.permission_type);
  return out;
}

kafka::AclCreation CreationOf(const admin::v1::AclBinding& b) {
  return kafka::AclCreation{static_cast<int8_t>(b.resource_type()), b.resource_name(),
                            static_cast<int8_t>(b.pattern_type()),  b.principal(),
                            b.host(),                               static_cast<int8_t>(b.operation()),
                            static_cast<int8_t>(b.permission_type())};
}

kafka::DescribeAclsResponse AnswerDescribe(const KafkaApisContext& context, const kafka::DescribeAclsRequest& request,
                                           int16_t version, bool authorized) {
  kafka::DescribeAclsResponse response;
  if (context.authorizer == nullptr) {
    response.error_code = static_cast<int16_t>(ErrorCode::kSecurityDisabled);
    response.error_message = kSecurityDisabled;
    return response;
  }
  if (!authorized) {
    response.error_code = static_cast<int16_t>(ErrorCode::kClusterAuthorizationFailed);
    response.error_message = "not authorized to describe ACLs (Describe on the cluster)";
    return response;
  }
  security::AclFilter filter = FilterOf(request);
  std::optional<std::string> invalid = security::InvalidFilter(filter);
  if (!invalid && version < 3 && filter.resource_type == security::ResourceType::kUser) {
    invalid = "the USER resource type needs DescribeAcls v3";
  }
  if (invalid) {
    response.error_code = static_cast<int16_t>(ErrorCode::kInvalidRequest);
    response.error_message = *invalid;
    return response;
  }
  std::vector<security::AclBinding> bindings = context.store.WithImage(
      [&](const controller::MetadataImage& image) { return image.security().MatchingAcls(filter); });
  // Grouped by resource, as the response carries them.
  std::map<std::tuple<int8_t, std::string, int8_t>, std::vector<kafka::DescribeAclsResponse::Acl>> by_resource;
  for (const security::AclBinding& b : bindings) {
    if (version == 0 && b.pattern_type != security::PatternType::kLiteral) continue;  // v0 knows LITERAL only
    by_resource[{static_cast<int8_t>(b.resource_type), b.resource_name, static_cast<int8_t>(b.pattern_type)}].push_back(
        {b.principal, b.host, static_cast<int8_t>(b.operation), static_cast<int8_t>(b.permission)});
  }
  for (auto& [key, acls] : by_resource) {
    response.resources.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::move(acls)});
  }
  return response;
}

kafka::CreateAclsResponse AnswerCreate(const KafkaApisContext& context, const kafka::CreateAclsRequest& request,
                                       bool authorized) {
  kafka::CreateAclsResponse response;
  admin::v1::CreateAclsRequest forward;
  for (const kafka::AclCreation& c : request.creations) {
    admin::v1::AclBinding* b = forward.add_creations();
    b->set_resource_type(c.resource_type);
    b->set_resource_name(c.resource_name);
    b->set_pattern_type(c.pattern_type);
    b->set_principal(c.principal);
    b->set_host(c.host);
    b->set_operation(c.operation);
    b->set_permission_type(c.permission_type);
  }
  std::optional<ForwardFailure> failure;
  admin::v1::CreateAclsResponse answer;
  if (context.authorizer == nullptr) {
    failure = ForwardFailure{ErrorCode::kSecurityDisabled, kSecurityDisabled};
  } else if (!authorized) {
    failure = ForwardFailure{ErrorCode::kClusterAuthorizationFailed, "not authorized to create ACLs (Alter on the cluster)"};
  } else if (!request.creations.empty()) {
    failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::CreateAcls, forward, &answer,
                                  ForwardDeadline(0));
    if (!failure) failure = CountMismatch(answer.results_size(), request.creations.size());
  }
  for (size_t i = 0; i < request.creations.size(); ++i) {
    kafka::CreateAclsResponse::Result result;
    if (failure) {
      result.error_code = static_cast<int16_t>(failure->code);
      result.error_message = failure->message;
    } else {
      result.error_code = static_cast<int16_t>(answer.results(static_cast<int>(i)).error_code());
      result.error_message = ErrorMessage(answer.results(static_cast<int>(i)).error_message());
    }
    response.results.push_back(std::move(result));
  }
  return response;
}

kafka::DeleteAclsResponse AnswerDelete(const KafkaApisContext& context, const kafka::DeleteAclsRequest& request,
                                       bool authorized) {
  kafka::DeleteAclsResponse response;
  admin::v1::DeleteAclsRequest forward;
  for (const kafka::AclFilterFields& f : request.filters) *forward.add_filters() = ProtoOf(f);
  std::optional<ForwardFailure> failure;
  admin::v1::DeleteAclsResponse answer;
  if (context.authorizer == nullptr) {
    failure = ForwardFailure{ErrorCode::kSecurityDisabled, kSecurityDisabled};
  } else if (!authorized) {
    failure = ForwardFailure{ErrorCode::kClusterAuthorizationFailed, "not authorized to delete ACLs (Alter on the cluster)"};
  } else if (!request.filters.empty()) {
    failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::DeleteAcls, forward, &answer,
                                  ForwardDeadline(0));
    if (!failure) failure = CountMismatch(answer.results_size(), request.filters.size());
  }
  for (size_t i = 0; i < request.filters.size(); ++i) {
    kafka::DeleteAclsResponse::FilterResult out;
    if (failure) {
      out.error_code = static_cast<int16_t>(failure->code);
      out.error_message = failure->message;
    } else {
      const auto& result = answer.results(static_cast<int>(i));
      out.error_code = static_cast<int16_t>(result.error_code());
      out.error_message = ErrorMessage(result.error_message());
      for (const auto& b : result.matching()) out.matching_acls.push_back({0, std::nullopt, CreationOf(b)});
    }
    response.filter_results.push_back(std::move(out));
  }
  return response;
}

}  // namespace

void HandleDescribeAcls(const ApiRequest& request, ApiResponder respond) {
  const int16_t version = request.header.api_version;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadDescribeAclsRequest(reader, v); },
      [&](const auto& r) {
        return AnswerDescribe(request.broker, r, version, AuthorizedOnCluster(request, security::AclOperation::kDescribe));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDescribeAclsResponse(response, v, writer); });
}

void HandleCreateAcls(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadCreateAclsRequest(reader, v); },
      [&](const auto& r) {
        return AnswerCreate(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteCreateAclsResponse(response, v, writer); });
}

void HandleDeleteAcls(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadDeleteAclsRequest(reader, v); },
      [&](const auto& r) {
        return AnswerDelete(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDeleteAclsResponse(response, v, writer); });
}

}  // namespace strata::broker
