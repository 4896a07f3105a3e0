#include "tools/cli/leader_offsets.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/list_offsets.h"

namespace strata::cli {

namespace kafka = proto::kafka;

std::map<TopicPartition, absl::StatusOr<int64_t>> LeaderListOffsets(const Endpoint& endpoint,
                                                                   const std::vector<TopicPartition>& partitions,
                                                                   int64_t timestamp) {
  constexpr int16_t kVersion = 9;  // LATEST_TIERED
  std::map<TopicPartition, absl::StatusOr<int64_t>> out;
  auto fail_all = [&](const absl::Status& status) {
    for (const TopicPartition& tp : partitions) out.insert_or_assign(tp, status);
    return out;
  };
  if (partitions.empty()) return out;
  auto connection = ConnectBroker(endpoint);
  if (!connection.ok()) return fail_all(connection.status());
  kafka::ListOffsetsRequest request;
  for (const TopicPartition& tp : partitions) {
    auto topic = std::find_if(request.topics.begin(), request.topics.end(), [&](const auto& t) { return t.name == tp.topic; });
    if (topic == request.topics.end()) topic = request.topics.insert(topic, {tp.topic, {}});
    topic->partitions.push_back({tp.partition, -1, timestamp});
  }
  auto response = KafkaCall(**connection, kafka::ApiKey::kListOffsets, kVersion, request,
                            &kafka::WriteListOffsetsRequest, &kafka::ReadListOffsetsResponse);
  if (!response.ok()) return fail_all(response.status());
  for (const auto& t : response->topics) {
    for (const auto& p : t.partitions) {
      if (p.error_code != 0) {
        out.insert_or_assign(TopicPartition{t.name, p.partition_index},
                             absl::UnavailableError(absl::StrCat(
                                 "ListOffsets: ", kafka::ErrorName(static_cast<kafka::ErrorCode>(p.error_code)))));
      } else {
        out.insert_or_assign(TopicPartition{t.name, p.partition_index}, p.offset);
      }
    }
  }
  for (const TopicPartition& tp : partitions) {
    if (!out.count(tp)) out.emplace(tp, absl::InternalError("ListOffsets answered nothing for the partition"));
  }
  return out;
}

absl::StatusOr<int64_t> LeaderListOffset(const Endpoint& endpoint, const std::string& topic, int32_t partition,
                                         int64_t timestamp) {
  TopicPartition tp{topic, partition};
  return LeaderListOffsets(endpoint, {tp}, timestamp).at(tp);
}

std::map<TopicPartition, absl::StatusOr<int64_t>> ListOffsetsAtLeaders(const std::map<TopicPartition, int32_t>& leaders,
                                                                      const std::map<int32_t, Endpoint>& endpoints,
                                                                      int64_t timestamp) {
  std::map<TopicPartition, absl::StatusOr<int64_t>> out;
  std::map<int32_t, std::vector<TopicPartition>> by_leader;
  for (const auto& [tp, leader] : leaders) {
    if (leader < 0) {
      out.emplace(tp, absl::UnavailableError("the partition has no leader"));
    } else if (!endpoints.count(leader)) {
      out.emplace(tp, absl::UnavailableError(absl::StrCat("its leader, broker ", leader, ", has no ", BrokerSecurity().protocol, " endpoint")));
    } else {
      by_leader[leader].push_back(tp);
    }
  }
  for (const auto& [leader, partitions] : by_leader) {
    out.merge(LeaderListOffsets(endpoints.at(leader), partitions, timestamp));
  }
  return out;
}

}  // namespace strata::cli
