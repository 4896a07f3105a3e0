#include "proto/kafka/delete_groups.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kDeleteGroups), version); }

}  // namespace

absl::StatusOr<DeleteGroupsRequest> ReadDeleteGroupsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DeleteGroupsRequest req;
  req.groups_names = ReadStringArray(r, flexible, "groups_names");
  if (flexible) r.SkipTaggedFields("DeleteGroupsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDeleteGroupsRequest(const DeleteGroupsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  WriteStringArray(req.groups_names, flexible, w);
  if (flexible) w.EmptyTaggedFields();
}

void WriteDeleteGroupsResponse(const DeleteGroupsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
  for (const auto& res : resp.results) {
    w.String(res.group_id, flexible);
    w.Int16(res.error_code);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<DeleteGroupsResponse> ReadDeleteGroupsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DeleteGroupsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DeleteGroupsResponse::Result res;
    res.group_id = r.String(flexible, "group_id");
    res.error_code = r.Int16("error_code");
    if (flexible) r.SkipTaggedFields("result tagged fields");
    resp.results.push_back(std::move(res));
  }
  if (flexible) r.SkipTaggedFields("DeleteGroupsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
