#include "broker/handlers/elect_leaders_handler.h"

#include <map>
#include <set>
#include <utility>

#include "broker/handlers/authorization.h"
#include "absl/strings/str_cat.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;
using Result = kafka::ElectLeadersResponse::ReplicaElectionResult;

namespace {

std::optional<admin::v1::ElectLeadersRequest::ElectionType> AdminElectionType(int8_t type) {
  switch (static_cast<kafka::ElectionType>(type)) {
    case kafka::ElectionType::kPreferred: return admin::v1::ElectLeadersRequest::PREFERRED;
    case kafka::ElectionType::kUnclean: return admin::v1::ElectLeadersRequest::UNCLEAN;
  }
  return std::nullopt;
}

// The response's results, one per topic in the order first met.
class ResultsByTopic {
 public:
  explicit ResultsByTopic(std::vector<Result>& results) : results_(results) {}

  Result& For(const std::string& topic) {
    auto [it, added] = index_.emplace(topic, results_.size());
    if (added) results_.push_back({topic, {}});
    return results_[it->second];
  }

 private:
  std::vector<Result>& results_;
  std::map<std::string, size_t> index_;
};

void Fail(kafka::ElectLeadersResponse& response, ErrorCode code, const std::string& message) {
  response.error_code = static_cast<int16_t>(code);
  for (auto& t : response.replica_election_results) {
    for (auto& p : t.partition_result) {
      p.error_code = static_cast<int16_t>(code);
      p.error_message = message;
    }
  }
}

void SetOutcome(const admin::v1::ElectLeadersResponse::Result& from, kafka::ElectLeadersResponse::PartitionResult& to) {
  to.error_code = static_cast<int16_t>(from.error_code());
  to.error_message = ErrorMessage(from.error_message());
}

}  // namespace

kafka::ElectLeadersResponse AnswerElectLeaders(const KafkaApisContext& context,
                                               const kafka::ElectLeadersRequest& request, bool authorized) {
  kafka::ElectLeadersResponse response;
  ResultsByTopic results(response.replica_election_results);
  admin::v1::ElectLeadersRequest forward;
  if (request.topic_partitions) {
    // The request's partitions, each once; the same topic named twice is one topic.
    std::map<std::string, admin::v1::ElectLeadersRequest::TopicPartitions*> forwarded;
    std::set<std::pair<std::string, int32_t>> named;
    for (const auto& t : *request.topic_partitions) {
      Result& result = results.For(t.topic);
      for (int32_t p : t.partitions) {
        if (!named.emplace(t.topic, p).second) continue;
        result.partition_result.push_back({p, 0, std::nullopt});
        auto& topic = forwarded[t.topic];
        if (topic == nullptr) {
          topic = forward.add_topics();
          topic->set_name(t.topic);
        }
        topic->add_partitions(p);
      }
    }
  }
  if (!authorized) {
    Fail(response, ErrorCode::kClusterAuthorizationFailed, "not authorized to elect leaders (Alter on the cluster)");
    return response;
  }
  std::optional<admin::v1::ElectLeadersRequest::ElectionType> type = AdminElectionType(request.election_type);
  if (!type) {
    Fail(response, ErrorCode::kInvalidRequest, absl::StrCat("unknown election type ", request.election_type));
    return response;
  }
  // No topics in the forwarded request would mean every partition.
  if (request.topic_partitions && forward.topics().empty()) return response;
  forward.set_election_type(*type);
  admin::v1::ElectLeadersResponse answer;
  if (auto failure = ForwardToController(context.controller, &admin::v1::AdminService::Stub::ElectLeaders, forward,
                                         &answer, ForwardDeadline(request.timeout_ms))) {
    Fail(response, failure->code, failure->message);
    return response;
  }
  if (!request.topic_partitions) {
    for (const auto& r : answer.results()) {
      if (r.error_code() == static_cast<int32_t>(ErrorCode::kElectionNotNeeded)) continue;
      kafka::ElectLeadersResponse::PartitionResult& p = results.For(r.topic()).partition_result.emplace_back();
      p.partition_id = r.partition_id();
      SetOutcome(r, p);
    }
    return response;
  }
  // The controller answers each named partition, or an unknown topic once (partition -1).
  std::map<std::pair<std::string, int32_t>, const admin::v1::ElectLeadersResponse::Result*> answered;
  for (const auto& r : answer.results()) answered.emplace(std::make_pair(r.topic(), r.partition_id()), &r);
  for (auto& t : response.replica_election_results) {
    for (auto& p : t.partition_result) {
      auto it = answered.find({t.topic, p.partition_id});
      if (it == answered.end()) it = answered.find({t.topic, -1});
      if (it == answered.end()) {
        p.error_code = static_cast<int16_t>(ErrorCode::kUnknownServerError);
        p.error_message = absl::StrCat("the controller did not answer for ", t.topic, "-", p.partition_id);
        continue;
      }
      SetOutcome(*it->second, p);
    }
  }
  return response;
}

void HandleElectLeaders(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadElectLeadersRequest(reader, version); },
      [&](const auto& r) {
        return AnswerElectLeaders(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kAlter));
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteElectLeadersResponse(response, version, writer); });
}

}  // namespace strata::broker
