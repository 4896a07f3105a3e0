#include "proto/kafka/offset_for_leader_epoch.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFlexible = 4;
}  // namespace

absl::StatusOr<OffsetForLeaderEpochRequest> ReadOffsetForLeaderEpochRequest(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  OffsetForLeaderEpochRequest req;
  if (version >= 3) req.replica_id = r.Int32("replica_id");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetForLeaderEpochRequest::Topic t;
    t.topic = r.String(flexible, "topic");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      OffsetForLeaderEpochRequest::Partition p;
      p.partition = r.Int32("partition");
      p.current_leader_epoch = r.Int32("current_leader_epoch");
      p.leader_epoch = r.Int32("leader_epoch");
      if (flexible) r.SkipTaggedFields("partitions tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topics tagged fields");
    req.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("OffsetForLeaderEpochRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteOffsetForLeaderEpochRequest(const OffsetForLeaderEpochRequest& req, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  if (version >= 3) w.Int32(req.replica_id);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    w.String(t.topic, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition);
      w.Int32(p.current_leader_epoch);
      w.Int32(p.leader_epoch);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteOffsetForLeaderEpochResponse(const OffsetForLeaderEpochResponse& resp, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& t : resp.topics) {
    w.String(t.topic, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int16(p.error_code);
      w.Int32(p.partition);
      w.Int32(p.leader_epoch);
      w.Int64(p.end_offset);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<OffsetForLeaderEpochResponse> ReadOffsetForLeaderEpochResponse(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  OffsetForLeaderEpochResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetForLeaderEpochResponse::Topic t;
    t.topic = r.String(flexible, "topic");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      OffsetForLeaderEpochResponse::Partition p;
      p.error_code = r.Int16("error_code");
      p.partition = r.Int32("partition");
      p.leader_epoch = r.Int32("leader_epoch");
      p.end_offset = r.Int64("end_offset");
      if (flexible) r.SkipTaggedFields("partitions tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topics tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("OffsetForLeaderEpochResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
