#include "proto/kafka/list_offsets.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFlexible = 6;
}  // namespace

absl::StatusOr<ListOffsetsRequest> ReadListOffsetsRequest(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  ListOffsetsRequest req;
  req.replica_id = r.Int32("replica_id");
  if (version >= 2) req.isolation_level = r.Int8("isolation_level");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    ListOffsetsRequest::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      ListOffsetsRequest::Partition p;
      p.partition_index = r.Int32("partition_index");
      if (version >= 4) p.current_leader_epoch = r.Int32("current_leader_epoch");
      p.timestamp = r.Int64("timestamp");
      if (flexible) r.SkipTaggedFields("partitions tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topics tagged fields");
    req.topics.push_back(std::move(t));
  }
  if (version >= 10) req.timeout_ms = r.Int32("timeout_ms");
  if (flexible) r.SkipTaggedFields("ListOffsetsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteListOffsetsRequest(const ListOffsetsRequest& req, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.Int32(req.replica_id);
  if (version >= 2) w.Int8(req.isolation_level);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      if (version >= 4) w.Int32(p.current_leader_epoch);
      w.Int64(p.timestamp);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= 10) w.Int32(req.timeout_ms);
  if (flexible) w.EmptyTaggedFields();
}

void WriteListOffsetsResponse(const ListOffsetsResponse& resp, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  if (version >= 2) w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& t : resp.topics) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
      w.Int64(p.timestamp);
      w.Int64(p.offset);
      if (version >= 4) w.Int32(p.leader_epoch);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<ListOffsetsResponse> ReadListOffsetsResponse(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  ListOffsetsResponse resp;
  if (version >= 2) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    ListOffsetsResponse::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      ListOffsetsResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      p.timestamp = r.Int64("timestamp");
      p.offset = r.Int64("offset");
      if (version >= 4) p.leader_epoch = r.Int32("leader_epoch");
      if (flexible) r.SkipTaggedFields("partitions tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topics tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("ListOffsetsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
