#include "proto/kafka/delete_records.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kDeleteRecords), version); }

}  // namespace

absl::StatusOr<DeleteRecordsRequest> ReadDeleteRecordsRequest(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  DeleteRecordsRequest req;
  int32_t topics = r.ArrayLength(flexible, "topics");
  for (int32_t t = 0; t < topics && r.ok(); ++t) {
    DeleteRecordsRequest::Topic& topic = req.topics.emplace_back();
    topic.name = r.String(flexible, "name");
    int32_t partitions = r.ArrayLength(flexible, "partitions");
    for (int32_t p = 0; p < partitions && r.ok(); ++p) {
      DeleteRecordsRequest::Partition& partition = topic.partitions.emplace_back();
      partition.partition_index = r.Int32("partition_index");
      partition.offset = r.Int64("offset");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
  }
  req.timeout_ms = r.Int32("timeout_ms");
  if (flexible) r.SkipTaggedFields("DeleteRecordsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDeleteRecordsRequest(const DeleteRecordsRequest& req, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& topic : req.topics) {
    w.String(topic.name, flexible);
    w.ArrayLength(static_cast<int32_t>(topic.partitions.size()), flexible);
    for (const auto& partition : topic.partitions) {
      w.Int32(partition.partition_index);
      w.Int64(partition.offset);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  w.Int32(req.timeout_ms);
  if (flexible) w.EmptyTaggedFields();
}

void WriteDeleteRecordsResponse(const DeleteRecordsResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& topic : resp.topics) {
    w.String(topic.name, flexible);
    w.ArrayLength(static_cast<int32_t>(topic.partitions.size()), flexible);
    for (const auto& partition : topic.partitions) {
      w.Int32(partition.partition_index);
      w.Int64(partition.low_watermark);
      w.Int16(partition.error_code);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<DeleteRecordsResponse> ReadDeleteRecordsResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  DeleteRecordsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t topics = r.ArrayLength(flexible, "topics");
  for (int32_t t = 0; t < topics && r.ok(); ++t) {
    DeleteRecordsResponse::Topic& topic = resp.topics.emplace_back();
    topic.name = r.String(flexible, "name");
    int32_t partitions = r.ArrayLength(flexible, "partitions");
    for (int32_t p = 0; p < partitions && r.ok(); ++p) {
      DeleteRecordsResponse::Partition& partition = topic.partitions.emplace_back();
      partition.partition_index = r.Int32("partition_index");
      partition.low_watermark = r.Int64("low_watermark");
      partition.error_code = r.Int16("error_code");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
  }
  if (flexible) r.SkipTaggedFields("DeleteRecordsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
