#include "broker/handlers/delete_topics_handler.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "broker/handlers/authorization.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "controller/metadata_image.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

const std::string kZeroId(16, '\0');

// How a request names a topic: "n" + name, or "i" + id (one key space for duplicates).
std::string Key(const kafka::DeleteTopicsRequest::Topic& t) {
  return t.topic_id != kZeroId ? absl::StrCat("i", t.topic_id) : absl::StrCat("n", t.name.value_or(""));
}

}  // namespace

kafka::DeleteTopicsResponse AnswerDeleteTopics(const KafkaApisContext& context,
                                               const kafka::DeleteTopicsRequest& request,
                                               const std::function<bool(const std::string& topic)>& authorized) {
  std::map<std::string, int> named;
  for (const auto& t : request.topics) ++named[Key(t)];
  kafka::DeleteTopicsResponse response;
  admin::v1::DeleteTopicsRequest forward;
  // The controller answers the names, then the ids: where each goes in the response.
  std::vector<size_t> by_name, by_id;
  std::set<std::string> answered;
  for (const auto& t : request.topics) {
    if (!answered.insert(Key(t)).second) continue;  // one answer per topic
    kafka::DeleteTopicsResponse::Topic out;
    out.name = t.name;
    out.topic_id = t.topic_id;
    bool has_id = t.topic_id != kZeroId;
    auto refuse = [&](std::string message) {
      out.error_code = static_cast<int16_t>(ErrorCode::kInvalidRequest);
      out.error_message = std::move(message);
    };
    // A topic named by id is authorized by the name the image gives it.
    std::string name = t.name.value_or("");
    if (!t.name && has_id) {
      name = context.store.WithImage([&](const controller::MetadataImage& image) {
        const controller::TopicState* topic = image.FindTopicById(t.topic_id);
        return topic != nullptr ? topic->name : std::string();
      });
    }
    if (authorized && !(t.name && has_id) && !name.empty() && !authorized(name)) {
      out.error_code = static_cast<int16_t>(ErrorCode::kTopicAuthorizationFailed);
      out.error_message = absl::StrCat("not authorized to delete topic ", name.empty() ? "(by id)" : name);
    } else if (t.name && has_id) {
      refuse("give a topic's name or its id, not both");
    } else if (!t.name && !has_id) {
      refuse("a topic with neither a name nor an id");
    } else if (named[Key(t)] > 1) {
      refuse(has_id ? absl::StrCat("topic id ", controller::TopicIdToString(t.topic_id), " is named more than once")
                    : absl::StrCat("topic '", *t.name, "' is named more than once"));
    } else if (has_id) {
      forward.add_topic_ids(t.topic_id);
      by_id.push_back(response.topics.size());
    } else {
      forward.add_names(*t.name);
      by_name.push_back(response.topics.size());
    }
    response.topics.push_back(std::move(out));
  }
  std::vector<size_t> forwarded = by_name;
  forwarded.insert(forwarded.end(), by_id.begin(), by_id.end());
  ForwardTopics(context.controller, &admin::v1::AdminService::Stub::DeleteTopics, forward,
                ForwardDeadline(request.timeout_ms), forwarded, response.topics,
                [](kafka::DeleteTopicsResponse::Topic& out, const admin::v1::TopicResult& result) {
                  if (!result.name().empty()) out.name = result.name();
                  if (result.topic_id().size() == 16) out.topic_id = result.topic_id();
                });
  return response;
}

void HandleDeleteTopics(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadDeleteTopicsRequest(reader, version); },
      [&](const auto& r) {
        return AnswerDeleteTopics(request.broker, r, [&](const std::string& topic) {
          return AuthorizedOnTopic(request, security::AclOperation::kDelete, topic);
        });
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteDeleteTopicsResponse(response, version, writer); });
}

}  // namespace strata::broker
