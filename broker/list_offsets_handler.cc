#include "broker/list_offsets_handler.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "broker/kafka_error.h"
#include "broker/partition_lookup.h"

namespace strata::broker {

namespace kafka = proto::kafka;

kafka::ListOffsetsResponse AnswerListOffsets(const KafkaApisContext& context, const kafka::ListOffsetsRequest& request,
                                             int16_t version) {
  kafka::ListOffsetsResponse response;
  FetchIsolation isolation = request.replica_id >= 0     ? FetchIsolation::kLogEnd
                             : request.isolation_level == 1 ? FetchIsolation::kTxnCommitted
                                                            : FetchIsolation::kHighWatermark;
  std::set<std::pair<std::string, int32_t>> seen;
  for (const auto& topic : request.topics) {
    kafka::ListOffsetsResponse::Topic& rt = response.topics.emplace_back();
    rt.name = topic.name;
    for (const auto& p : topic.partitions) {
      kafka::ListOffsetsResponse::Partition& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      auto fail = [&](const absl::Status& status) {
        rp.error_code = KafkaErrorOf(status);
        rp.offset = -1;
        rp.timestamp = -1;
        rp.leader_epoch = -1;
      };
      if (!seen.insert({topic.name, p.partition_index}).second) {
        fail(KafkaError(kafka::ErrorCode::kInvalidRequest, "the partition is named twice"));
        continue;
      }
      if (p.timestamp == kafka::kListOffsetsMaxTimestamp && version < 7) {
        fail(KafkaError(kafka::ErrorCode::kUnsupportedVersion, "max timestamp needs ListOffsets v7"));
        continue;
      }
      auto partition = LookupPartition(context, topic.name, p.partition_index);
      if (!partition.ok()) {
        fail(partition.status());
        continue;
      }
      std::optional<int32_t> epoch;
      if (version >= 4) epoch = p.current_leader_epoch;
      auto found = (*partition)->FetchOffsetForTimestamp(p.timestamp, isolation, epoch);
      if (!found.ok()) {
        fail(found.status());
        continue;
      }
      rp.offset = found->offset;
      rp.timestamp = found->timestamp;
      rp.leader_epoch = found->leader_epoch;
    }
  }
  return response;
}

void HandleListOffsets(const ApiRequest& request, KafkaResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadListOffsetsRequest(reader, version); },
      [&](const auto& r) { return AnswerListOffsets(request.broker, r, request.header.api_version); },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteListOffsetsResponse(response, version, writer); });
}

}  // namespace strata::broker
