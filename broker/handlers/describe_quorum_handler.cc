#include "broker/handlers/describe_quorum_handler.h"

#include <chrono>

#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

constexpr std::chrono::milliseconds kDescribeQuorumDeadline{5000};  // the request has no timeout of its own

bool NamesTheMetadataLog(const kafka::DescribeQuorumRequest& request) {
  return request.topics.size() == 1 && request.topics[0].topic_name == kafka::kClusterMetadataTopic &&
         request.topics[0].partitions.size() == 1 && request.topics[0].partitions[0] == 0;
}

kafka::DescribeQuorumResponse::ReplicaState Replica(const admin::v1::DescribeQuorumResponse::ReplicaState& from) {
  kafka::DescribeQuorumResponse::ReplicaState r;
  r.replica_id = from.replica_id();
  r.log_end_offset = from.log_end_offset();
  r.last_fetch_timestamp = from.last_fetch_timestamp();
  r.last_caught_up_timestamp = from.last_caught_up_timestamp();
  if (from.replica_directory_id().size() == 16) r.replica_directory_id = from.replica_directory_id();
  return r;
}

}  // namespace

kafka::DescribeQuorumResponse AnswerDescribeQuorum(const KafkaApisContext& context,
                                                   const kafka::DescribeQuorumRequest& request, bool authorized) {
  kafka::DescribeQuorumResponse response;
  if (!authorized) {
    response.error_code = static_cast<int16_t>(ErrorCode::kClusterAuthorizationFailed);
    response.error_message = "not authorized to describe the quorum (Describe on the cluster)";
    return response;
  }
  if (!NamesTheMetadataLog(request)) {
    response.error_code = static_cast<int16_t>(ErrorCode::kInvalidRequest);
    response.error_message = "DescribeQuorum describes the metadata log only: __cluster_metadata, partition 0";
    return response;
  }
  kafka::DescribeQuorumResponse::Partition& p = response.topics.emplace_back().partitions.emplace_back();
  response.topics[0].topic_name = kafka::kClusterMetadataTopic;
  admin::v1::DescribeQuorumResponse answer;
  if (auto failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::DescribeQuorum,
                                         admin::v1::DescribeQuorumRequest(), &answer, kDescribeQuorumDeadline)) {
    p.error_code = static_cast<int16_t>(failure->code);
    p.error_message = failure->message;
    return response;
  }
  if (answer.voter_states().empty()) {
    p.error_code = static_cast<int16_t>(ErrorCode::kNotLeaderOrFollower);
    p.error_message = "the controller that answered does not lead the metadata quorum";
    return response;
  }
  p.leader_id = answer.leader_id();
  p.leader_epoch = static_cast<int32_t>(answer.leader_epoch());
  p.high_watermark = answer.high_watermark();
  for (const auto& v : answer.voter_states()) p.current_voters.push_back(Replica(v));
  for (const auto& o : answer.observers()) p.observers.push_back(Replica(o));
  for (const auto& n : answer.nodes()) {
    kafka::DescribeQuorumResponse::Node& node = response.nodes.emplace_back();
    node.node_id = n.node_id();
    for (const auto& l : n.listeners()) node.listeners.push_back({l.name(), l.host(), static_cast<uint16_t>(l.port())});
  }
  return response;
}

void HandleDescribeQuorum(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadDescribeQuorumRequest(reader, version); },
      [&](const auto& r) {
        return AnswerDescribeQuorum(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kDescribe));
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteDescribeQuorumResponse(response, version, writer); });
}

}  // namespace strata::broker
