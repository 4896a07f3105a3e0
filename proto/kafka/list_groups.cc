#include "proto/kafka/list_groups.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kListGroups), version); }

constexpr int16_t kStates = 4;  // states_filter, group_state
constexpr int16_t kTypes = 5;   // types_filter, group_type

}  // namespace

absl::StatusOr<ListGroupsRequest> ReadListGroupsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  ListGroupsRequest req;
  if (version >= kStates) req.states_filter = ReadStringArray(r, flexible, "states_filter");
  if (version >= kTypes) req.types_filter = ReadStringArray(r, flexible, "types_filter");
  if (flexible) r.SkipTaggedFields("ListGroupsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteListGroupsRequest(const ListGroupsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= kStates) WriteStringArray(req.states_filter, flexible, w);
  if (version >= kTypes) WriteStringArray(req.types_filter, flexible, w);
  if (flexible) w.EmptyTaggedFields();
}

void WriteListGroupsResponse(const ListGroupsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.ArrayLength(static_cast<int32_t>(resp.groups.size()), flexible);
  for (const auto& g : resp.groups) {
    w.String(g.group_id, flexible);
    w.String(g.protocol_type, flexible);
    if (version >= kStates) w.String(g.group_state, flexible);
    if (version >= kTypes) w.String(g.group_type, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<ListGroupsResponse> ReadListGroupsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  ListGroupsResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  int32_t n = r.ArrayLength(flexible, "groups");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    ListGroupsResponse::Group g;
    g.group_id = r.String(flexible, "group_id");
    g.protocol_type = r.String(flexible, "protocol_type");
    if (version >= kStates) g.group_state = r.String(flexible, "group_state");
    if (version >= kTypes) g.group_type = r.String(flexible, "group_type");
    if (flexible) r.SkipTaggedFields("group tagged fields");
    resp.groups.push_back(std::move(g));
  }
  if (flexible) r.SkipTaggedFields("ListGroupsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
