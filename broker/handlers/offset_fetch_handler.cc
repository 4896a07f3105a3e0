#include "broker/handlers/offset_fetch_handler.h"

#include <map>

#include "broker/group/group_coordinator.h"
#include "proto/kafka/offset_fetch.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

constexpr int16_t kGroupsArray = 8;  // several groups per request from v8

// One group's answer: its error and its offsets, by topic in the order asked (or found).
kafka::OffsetFetchResponse::Group FetchGroup(const KafkaApisContext& context, const std::string& group_id,
                                             const std::optional<std::vector<kafka::OffsetFetchRequest::Topic>>& topics) {
  std::optional<std::vector<storage::TopicPartition>> wanted;
  if (topics) {
    wanted.emplace();
    for (const auto& t : *topics) {
      for (int32_t p : t.partition_indexes) wanted->push_back({t.name, p});
    }
  }
  OffsetFetchResult result;
  if (context.group_coordinator == nullptr) {
    result.error = ErrorCode::kCoordinatorNotAvailable;
    if (wanted) {
      for (const auto& tp : *wanted) result.partitions.push_back({.topic = tp.topic, .partition = tp.partition, .error = result.error});
    }
  } else {
    result = context.group_coordinator->FetchOffsets(group_id, wanted);
  }
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
          for (const auto& g : r.groups) out.groups.push_back(FetchGroup(context, g.group_id, g.topics));
          return out;
        }
        kafka::OffsetFetchResponse::Group g = FetchGroup(context, r.group_id, r.topics);
        out.error_code = g.error_code;
        out.topics = std::move(g.topics);
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteOffsetFetchResponse(response, v, writer); });
}

}  // namespace strata::broker
