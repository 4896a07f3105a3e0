#include "broker/handlers/raft_voter_handlers.h"

#include <algorithm>
#include <chrono>

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "absl/strings/str_cat.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

constexpr std::chrono::milliseconds kControllerHeadStart{500};

// The time the controller may take within the broker's deadline.
int32_t ControllerTimeoutMs(std::chrono::milliseconds deadline) {
  return static_cast<int32_t>(std::max(deadline - kControllerHeadStart, kControllerHeadStart).count());
}

template <typename Forward>
void SetListeners(const std::vector<kafka::Listener>& listeners, Forward* forward) {
  for (const kafka::Listener& l : listeners) {
    admin::v1::RaftVoterEndpoint* e = forward->add_listeners();
    e->set_name(l.name);
    e->set_host(l.host);
    e->set_port(l.port);
  }
}

ForwardOutcome Unauthorized(const char* what, const char* operation) {
  return {ErrorCode::kClusterAuthorizationFailed,
          absl::StrCat("not authorized to ", what, " (", operation, " on the cluster)")};
}

kafka::RaftVoterResponse ResponseOf(const ForwardOutcome& outcome) {
  kafka::RaftVoterResponse response;
  response.error_code = static_cast<int16_t>(outcome.code);
  response.error_message = outcome.message;
  return response;
}

}  // namespace

kafka::RaftVoterResponse AnswerAddRaftVoter(const KafkaApisContext& context, const kafka::AddRaftVoterRequest& request,
                                            bool authorized) {
  if (!authorized) return ResponseOf(Unauthorized("add a voter", "Alter"));
  const std::chrono::milliseconds deadline = ForwardDeadline(request.timeout_ms);
  admin::v1::AddRaftVoterRequest forward;
  forward.set_cluster_id(request.cluster_id.value_or(""));
  forward.set_voter_id(request.voter_id);
  forward.set_voter_directory_id(request.voter_directory_id);
  SetListeners(request.listeners, &forward);
  forward.set_timeout_ms(ControllerTimeoutMs(deadline));
  forward.set_ack_when_appended(!request.ack_when_committed);
  return ResponseOf(ForwardForOutcome(context.controller, &admin::v1::AdminService::Stub::AddRaftVoter, forward,
                                      deadline));
}

kafka::RaftVoterResponse AnswerRemoveRaftVoter(const KafkaApisContext& context,
                                               const kafka::RemoveRaftVoterRequest& request, bool authorized) {
  if (!authorized) return ResponseOf(Unauthorized("remove a voter", "Alter"));
  admin::v1::RemoveRaftVoterRequest forward;
  forward.set_cluster_id(request.cluster_id.value_or(""));
  forward.set_voter_id(request.voter_id);
  forward.set_voter_directory_id(request.voter_directory_id);
  forward.set_timeout_ms(ControllerTimeoutMs(kMaxForwardDeadline));
  return ResponseOf(ForwardForOutcome(context.controller, &admin::v1::AdminService::Stub::RemoveRaftVoter, forward,
                                      kMaxForwardDeadline));
}

kafka::UpdateRaftVoterResponse AnswerUpdateRaftVoter(const KafkaApisContext& context,
                                                     const kafka::UpdateRaftVoterRequest& request, bool authorized) {
  ForwardOutcome outcome;
  if (!authorized) {
    outcome = Unauthorized("update a voter", "ClusterAction");
  } else {
    admin::v1::UpdateRaftVoterRequest forward;
    forward.set_cluster_id(request.cluster_id.value_or(""));
    forward.set_voter_id(request.voter_id);
    forward.set_voter_directory_id(request.voter_directory_id);
    SetListeners(request.listeners, &forward);
    forward.set_min_kraft_version(request.min_supported_version);
    forward.set_max_kraft_version(request.max_supported_version);
    forward.set_timeout_ms(ControllerTimeoutMs(kMaxForwardDeadline));
    outcome = ForwardForOutcome(context.controller, &admin::v1::AdminService::Stub::UpdateRaftVoter, forward,
                                kMaxForwardDeadline);
  }
  kafka::UpdateRaftVoterResponse response;
  response.error_code = static_cast<int16_t>(outcome.code);  // the response has no message
  return response;
}

void HandleAddRaftVoter(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadAddRaftVoterRequest(reader, v); },
      [&](const auto& r) {
        return AnswerAddRaftVoter(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteRaftVoterResponse(response, v, writer); });
}

void HandleRemoveRaftVoter(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadRemoveRaftVoterRequest(reader, v); },
      [&](const auto& r) {
        return AnswerRemoveRaftVoter(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteRaftVoterResponse(response, v, writer); });
}

void HandleUpdateRaftVoter(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadUpdateRaftVoterRequest(reader, v); },
      [&](const auto& r) {
        return AnswerUpdateRaftVoter(request.broker, r,
                                     AuthorizedOnCluster(request, security::AclOperation::kClusterAction));
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteUpdateRaftVoterResponse(response, v, writer);
      });
}

}  // namespace strata::broker
