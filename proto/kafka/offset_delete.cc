#include "proto/kafka/offset_delete.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = false;  // OffsetDelete has no flexible version

}  // namespace

absl::StatusOr<OffsetDeleteRequest> ReadOffsetDeleteRequest(Reader& r, int16_t version) {
  OffsetDeleteRequest req;
  req.group_id = r.String(kFlexible, "group_id");
  int32_t nt = r.ArrayLength(kFlexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetDeleteRequest::Topic t;
    t.name = r.String(kFlexible, "name");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) t.partitions.push_back({r.Int32("partition_index")});
    req.topics.push_back(std::move(t));
  }
  if (!r.ok()) return r.status();
  return req;
}

void WriteOffsetDeleteRequest(const OffsetDeleteRequest& req, int16_t version, Writer& w) {
  w.String(req.group_id, kFlexible);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), kFlexible);
  for (const auto& t : req.topics) {
    w.String(t.name, kFlexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const auto& p : t.partitions) w.Int32(p.partition_index);
  }
}

void WriteOffsetDeleteResponse(const OffsetDeleteResponse& resp, int16_t version, Writer& w) {
  w.Int16(resp.error_code);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), kFlexible);
  for (const auto& t : resp.topics) {
    w.String(t.name, kFlexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
    }
  }
}

absl::StatusOr<OffsetDeleteResponse> ReadOffsetDeleteResponse(Reader& r, int16_t version) {
  OffsetDeleteResponse resp;
  resp.error_code = r.Int16("error_code");
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nt = r.ArrayLength(kFlexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetDeleteResponse::Topic t;
    t.name = r.String(kFlexible, "name");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      OffsetDeleteResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      t.partitions.push_back(p);
    }
    resp.topics.push_back(std::move(t));
  }
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
