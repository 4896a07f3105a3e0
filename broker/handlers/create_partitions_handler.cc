#include "broker/handlers/create_partitions_handler.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

kafka::CreatePartitionsResponse AnswerCreatePartitions(const KafkaApisContext& context,
                                                       const kafka::CreatePartitionsRequest& request,
                                                       const std::function<bool(const std::string& topic)>& authorized) {
  std::map<std::string, int> names;
  for (const auto& t : request.topics) ++names[t.name];
  kafka::CreatePartitionsResponse response;
  admin::v1::CreatePartitionsRequest forward;
  forward.set_validate_only(request.validate_only);
  std::vector<size_t> forwarded;
  std::set<std::string> answered;
  for (const auto& t : request.topics) {
    if (!answered.insert(t.name).second) continue;  // one answer per name
    kafka::CreatePartitionsResponse::Result out;
    out.name = t.name;
    auto refuse = [&](ErrorCode code, std::string message) {
      out.error_code = static_cast<int16_t>(code);
      out.error_message = std::move(message);
    };
    if (authorized && !authorized(t.name)) {
      refuse(ErrorCode::kTopicAuthorizationFailed, absl::StrCat("not authorized to alter topic ", t.name));
    } else if (names[t.name] > 1) {
      refuse(ErrorCode::kInvalidRequest,
             absl::StrCat("topic '", t.name, "' is named ", names[t.name], " times in the request"));
    } else if (t.assignments && t.assignments->empty()) {
      // The controller would take no assignment for "place them yourself".
      refuse(ErrorCode::kInvalidReplicaAssignment, "the assignment (not null) names no new partitions");
    } else {
      admin::v1::CreatePartitionsRequest::Topic* topic = forward.add_topics();
      topic->set_name(t.name);
      topic->set_count(t.count);
      if (t.assignments) {
        // The new partitions are the last ones of the new count.
        int32_t first = t.count - static_cast<int32_t>(t.assignments->size());
        for (size_t i = 0; i < t.assignments->size(); ++i) {
          admin::v1::ReplicaAssignment* a = topic->add_assignments();
          a->set_partition_id(first + static_cast<int32_t>(i));
          for (int32_t b : (*t.assignments)[i]) a->add_broker_ids(b);
        }
      }
      forwarded.push_back(response.results.size());
    }
    response.results.push_back(std::move(out));
  }
  ForwardTopics(context.controller, &admin::v1::AdminService::Stub::CreatePartitions, forward,
                ForwardDeadline(request.timeout_ms), forwarded, response.results, [](auto&, const auto&) {});
  return response;
}

void HandleCreatePartitions(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadCreatePartitionsRequest(reader, version); },
      [&](const auto& r) {
        return AnswerCreatePartitions(request.broker, r, [&](const std::string& topic) {
          return AuthorizedOnTopic(request, security::AclOperation::kAlter, topic);
        });
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteCreatePartitionsResponse(response, version, writer); });
}

}  // namespace strata::broker
