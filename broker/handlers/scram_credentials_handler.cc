#include "broker/handlers/scram_credentials_handler.h"

#include <algorithm>

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "controller/metadata_image.h"
#include "proto/kafka/scram_credentials.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

kafka::DescribeUserScramCredentialsResponse AnswerDescribe(const KafkaApisContext& context,
                                                           const kafka::DescribeUserScramCredentialsRequest& request,
                                                           bool authorized) {
  kafka::DescribeUserScramCredentialsResponse response;
  if (!authorized) {
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kClusterAuthorizationFailed);
    response.error_message = "not authorized to describe SCRAM credentials (Describe on the cluster)";
    return response;
  }
  // A null or empty list asks for everybody, as Kafka's admin client sends describe-all.
  std::vector<std::string> users = request.users.value_or(std::vector<std::string>{});
  auto described = context.store.WithImage(
      [&](const controller::MetadataImage& image) { return image.security().DescribeScramCredentials(users); });
  for (const auto& d : described) {
    kafka::DescribeUserScramCredentialsResponse::Result out;
    out.user = d.user;
    out.error_code = static_cast<int16_t>(d.error);
    out.error_message = ErrorMessage(d.message);
    for (const auto& [mechanism, iterations] : d.mechanism_iterations) {
      out.credential_infos.push_back({static_cast<int8_t>(mechanism), iterations});
    }
    response.results.push_back(std::move(out));
  }
  return response;
}

kafka::AlterUserScramCredentialsResponse AnswerAlter(const KafkaApisContext& context,
                                                     const kafka::AlterUserScramCredentialsRequest& request,
                                                     bool authorized) {
  admin::v1::AlterUserScramCredentialsRequest forward;
  std::vector<std::string> users;  // in the order first named, as the controller answers
  auto name = [&](const std::string& user) {
    if (std::find(users.begin(), users.end(), user) == users.end()) users.push_back(user);
  };
  for (const auto& d : request.deletions) {
    auto* out = forward.add_deletions();
    out->set_name(d.name);
    out->set_mechanism(d.mechanism);
    name(d.name);
  }
  for (const auto& u : request.upsertions) {
    auto* out = forward.add_upsertions();
    out->set_name(u.name);
    out->set_mechanism(u.mechanism);
    out->set_iterations(u.iterations);
    out->set_salt(u.salt);
    out->set_salted_password(u.salted_password);
    name(u.name);
  }
  kafka::AlterUserScramCredentialsResponse response;
  if (users.empty()) return response;
  admin::v1::AlterUserScramCredentialsResponse answer;
  std::optional<ForwardFailure> failure;
  if (!authorized) {
    failure = ForwardFailure{kafka::ErrorCode::kClusterAuthorizationFailed,
                             "not authorized to alter SCRAM credentials (Alter on the cluster)"};
  } else {
    failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::AlterUserScramCredentials,
                                  forward, &answer, ForwardDeadline(0));
    if (!failure) failure = CountMismatch(answer.results_size(), users.size());
  }
  for (size_t i = 0; i < users.size(); ++i) {
    kafka::AlterUserScramCredentialsResponse::Result out;
    out.user = users[i];
    if (failure) {
      out.error_code = static_cast<int16_t>(failure->code);
      out.error_message = failure->message;
    } else {
      out.error_code = static_cast<int16_t>(answer.results(static_cast<int>(i)).error_code());
      out.error_message = ErrorMessage(answer.results(static_cast<int>(i)).error_message());
    }
    response.results.push_back(std::move(out));
  }
  return response;
}

}  // namespace

void HandleDescribeUserScramCredentials(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadDescribeUserScramCredentialsRequest(reader, v); },
      [&](const auto& r) {
        return AnswerDescribe(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kDescribe));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteDescribeUserScramCredentialsResponse(response, v, writer);
      });
}

void HandleAlterUserScramCredentials(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t v) { return kafka::ReadAlterUserScramCredentialsRequest(reader, v); },
      [&](const auto& r) {
        return AnswerAlter(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteAlterUserScramCredentialsResponse(response, v, writer);
      });
}

}  // namespace strata::broker
