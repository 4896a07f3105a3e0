#include "broker/handlers/partition_reassignments_handler.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

// Every partition of the answer, and its top, fail with code.
void FailAll(kafka::AlterPartitionReassignmentsResponse& response, ErrorCode code, const std::string& message) {
  response.error_code = static_cast<int16_t>(code);
  response.error_message = message;
  for (auto& t : response.responses) {
    for (auto& p : t.partitions) {
      p.error_code = static_cast<int16_t>(code);
      p.error_message = message;
    }
  }
}

}  // namespace

kafka::AlterPartitionReassignmentsResponse AnswerAlterPartitionReassignments(
    const KafkaApisContext& context, const kafka::AlterPartitionReassignmentsRequest& request, bool authorized) {
  kafka::AlterPartitionReassignmentsResponse response;
  response.allow_replication_factor_change = request.allow_replication_factor_change;
  admin::v1::AlterPartitionReassignmentsRequest forward;
  forward.set_allow_replication_factor_change(request.allow_replication_factor_change);
  for (const auto& t : request.topics) {
    auto& out = response.responses.emplace_back();
    out.name = t.name;
    for (const auto& p : t.partitions) {
      out.partitions.push_back({p.partition_index, 0, std::nullopt});
      auto* f = forward.add_partitions();
      f->set_topic(t.name);
      f->set_partition_id(p.partition_index);
      f->set_cancel(!p.replicas.has_value());
      if (p.replicas) f->mutable_replicas()->Add(p.replicas->begin(), p.replicas->end());
    }
  }
  if (!authorized) {
    FailAll(response, ErrorCode::kClusterAuthorizationFailed,
            "not authorized to reassign partitions (Alter on the cluster)");
    return response;
  }
  if (forward.partitions().empty()) return response;
  admin::v1::AlterPartitionReassignmentsResponse answer;
  std::optional<ForwardFailure> failure =
      ForwardToController(context.controller, &admin::v1::AdminService::Stub::AlterPartitionReassignments, forward,
                          &answer, ForwardDeadline(request.timeout_ms));
  if (!failure) failure = CountMismatch(answer.results_size(), static_cast<size_t>(forward.partitions_size()));
  if (failure) {
    FailAll(response, failure->code, failure->message);
    return response;
  }
  int i = 0;
  for (auto& t : response.responses) {
    for (auto& p : t.partitions) {
      const admin::v1::PartitionResult& r = answer.results(i++);
      p.error_code = static_cast<int16_t>(r.error_code());
      p.error_message = ErrorMessage(r.error_message());
    }
  }
  return response;
}

kafka::ListPartitionReassignmentsResponse AnswerListPartitionReassignments(
    const KafkaApisContext& context, const kafka::ListPartitionReassignmentsRequest& request, bool authorized) {
  kafka::ListPartitionReassignmentsResponse response;
  auto fail = [&](ErrorCode code, std::string message) {
    response.error_code = static_cast<int16_t>(code);
    response.error_message = std::move(message);
    return response;
  };
  if (!authorized) {
    return fail(ErrorCode::kClusterAuthorizationFailed, "not authorized to list reassignments (Describe on the cluster)");
  }
  admin::v1::ListPartitionReassignmentsRequest forward;
  if (request.topics) {
    for (const auto& t : *request.topics) {
      // A topic naming no partitions asks for none (empty would mean all of them here).
      if (t.partition_indexes.empty()) continue;
      auto* f = forward.add_topics();
      f->set_name(t.name);
      f->mutable_partitions()->Add(t.partition_indexes.begin(), t.partition_indexes.end());
    }
    if (forward.topics().empty()) return response;
  }
  admin::v1::ListPartitionReassignmentsResponse answer;
  if (auto failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::ListPartitionReassignments,
                                         forward, &answer, ForwardDeadline(request.timeout_ms))) {
    return fail(failure->code, failure->message);
  }
  std::map<std::string, size_t> topics;  // name -> index in response.topics
  for (const auto& r : answer.reassignments()) {
    auto [it, added] = topics.emplace(r.topic(), response.topics.size());
    if (added) response.topics.push_back({r.topic(), {}});
    auto& p = response.topics[it->second].partitions.emplace_back();
    p.partition_index = r.partition_id();
    p.replicas.assign(r.replicas().begin(), r.replicas().end());
    p.adding_replicas.assign(r.adding_replicas().begin(), r.adding_replicas().end());
    p.removing_replicas.assign(r.removing_replicas().begin(), r.removing_replicas().end());
  }
  return response;
}

void HandleAlterPartitionReassignments(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t version) { return kafka::ReadAlterPartitionReassignmentsRequest(reader, version); },
      [&](const auto& r) {
        return AnswerAlterPartitionReassignments(request.broker, r,
                                                 AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) {
        kafka::WriteAlterPartitionReassignmentsResponse(response, version, writer);
      });
}

void HandleListPartitionReassignments(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t version) { return kafka::ReadListPartitionReassignmentsRequest(reader, version); },
      [&](const auto& r) {
        return AnswerListPartitionReassignments(request.broker, r,
                                                AuthorizedOnCluster(request, security::AclOperation::kDescribe));
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) {
        kafka::WriteListPartitionReassignmentsResponse(response, version, writer);
      });
}

}  // namespace strata::broker
