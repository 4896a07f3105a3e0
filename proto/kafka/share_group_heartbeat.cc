#include "proto/kafka/share_group_heartbeat.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // every version

}  // namespace

absl::StatusOr<ShareGroupHeartbeatRequest> ReadShareGroupHeartbeatRequest(Reader& r, int16_t /*version*/) {
  ShareGroupHeartbeatRequest req;
  req.group_id = r.String(kFlexible, "group_id");
  req.member_id = r.String(kFlexible, "member_id");
  req.member_epoch = r.Int32("member_epoch");
  req.rack_id = r.NullableString(kFlexible, "rack_id");
  req.subscribed_topic_names = ReadNullableStringArray(r, kFlexible, "subscribed_topic_names");
  r.SkipTaggedFields("ShareGroupHeartbeatRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteShareGroupHeartbeatRequest(const ShareGroupHeartbeatRequest& req, int16_t /*version*/, Writer& w) {
  w.String(req.group_id, kFlexible);
  w.String(req.member_id, kFlexible);
  w.Int32(req.member_epoch);
  w.NullableString(req.rack_id, kFlexible);
  WriteNullableStringArray(req.subscribed_topic_names, kFlexible, w);
  w.EmptyTaggedFields();
}

}  // namespace strata::proto::kafka
