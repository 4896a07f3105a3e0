#include "broker/handlers/offset_fetch_handler.h"

#include <map>

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/offset_fetch.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

constexpr int16_t kGroupsArray = 8;  // several groups per request from v8

// One group's answer: its error and its offsets, by topic in the order asked (or found).
// Describe on the group (else GROUP_AUTHORIZATION_FAILED) and on each topic: a topic
// named is answered TOPIC_AUTHORIZATION_FAILED, and left out of an all-topics answer.
kafka::OffsetFetchResponse::Group FetchGroup(const ApiRequest& request, const std::string& group_id,
                                             const std::optional<std::vector<kafka::OffsetFetchRequest::Topic>>& topics,
                                             bool require_stable, const OffsetFetchMember& member) {
  const KafkaApisContext& context = request.broker;
  std::map<std::string, bool> describable;
  auto may_describe = [&](const std::string& topic) {
    auto [it, added] = describable.emplace(topic, true);
    if (added) it->second = AuthorizedOnTopic(request, security::AclOperation::kDescribe, topic);
    return it->second;
  };
  std::optional<std::vector<storage::TopicPartition>> wanted;
  std::vector<FetchedOffset> denied;
  if (topics) {
    wanted.emplace();
    for (const auto& t : *topics) {
      for (int32_t p : t.partition_indexes) {
        if (may_describe(t.name)) {
          wanted->push_back({t.name, p});
        } else {
          denied.push_back({.topic = t.name, .partition = p, .error = ErrorCode::kTopicAuthorizationFailed});
        }
      }
    }
  }
  OffsetFetchResult result;
  if (!AuthorizedOnGroup(request, security::AclOperation::kDescribe, group_id)) {
    result.error = ErrorCode::kGroupAuthorizationFailed;
    if (wanted) {
      for (const auto& tp : *wanted) result.partitions.push_back({.topic = tp.topic, .partition = tp.partition, .error = result.error});
    }
  } else if (context.group_coordinator == nullptr) {
    result.error = ErrorCode::kCoordinatorNotAvailable;
    if (wanted) {
      for (const auto& tp : *wanted) result.partitions.push_back({.topic = tp.topic, .partition = tp.partition, .error = result.error});
    }
  } else {
    result = context.group_coordinator->FetchOffsets(group_id, wanted, require_stable, member);
    if (!topics) {
      std::erase_if(result.partitions, [&](const FetchedOffset& f) { return !may_describe(f.topic); });
    }
  }
  result.partitions.insert(result.partitions.end(), denied.begin(), denied.end());
  kafka::OffsetFetchResponse::Group out;
  out.group_id = group_id;
  out.error_code = static_cast<int16_t>(result.error);
  std::map<std::string, size_t> topic_index;
  for (const FetchedOffset& f : result.partitions) {
    auto [it, added] = topic_index.emplace(f.topic, out.topics.size());
    if (added) out.topics.push_back({f.topic, {}});
    kafka::OffsetFetchResponse::Partition p;
    p.partition_index = f.partition;
    p.committed_offset = f.offset;
    p.committed_leader_epoch = f.leader_epoch;
    p.metadata = f.metadata;
    p.error_code = static_cast<int16_t>(f.error);
    out.topics[it->second].partitions.push_back(std::move(p));
  }
  return out;
}

}  // namespace

void HandleOffsetFetch(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  const int16_t version = request.header.api_version;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadOffsetFetchRequest(reader, v); },
      [&](const kafka::OffsetFetchRequest& r) {
        kafka::OffsetFetchResponse out;
        if (version >= kGroupsArray) {
          for (const auto& g : r.groups) {
            out.groups.push_back(FetchGroup(request, g.group_id, g.topics, r.require_stable,
                                            OffsetFetchMember{g.member_id, g.member_epoch}));
          }
          return out;
        }
        kafka::OffsetFetchResponse::Group g = FetchGroup(request, r.group_id, r.topics, r.require_stable, {});
        out.error_code = g.error_code;
        out.topics = std::move(g.topics);
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteOffsetFetchResponse(response, v, writer); });
}

}  // namespace strata::broker
