#include "proto/kafka/delete_topics.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kDeleteTopics), version); }

}  // namespace

absl::StatusOr<DeleteTopicsRequest> ReadDeleteTopicsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DeleteTopicsRequest req;
  if (version >= 6) {
    int32_t n = r.ArrayLength(flexible, "topics");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      DeleteTopicsRequest::Topic t;
      t.name = r.NullableString(flexible, "name");
      t.topic_id = r.Uuid("topic_id");
      if (flexible) r.SkipTaggedFields("topic tagged fields");
      req.topics.push_back(std::move(t));
    }
  } else {
    int32_t n = r.ArrayLength(flexible, "topic_names");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      DeleteTopicsRequest::Topic t;
      t.name = r.String(flexible, "topic_names");
      req.topics.push_back(std::move(t));
    }
  }
  req.timeout_ms = r.Int32("timeout_ms");
  if (flexible) r.SkipTaggedFields("DeleteTopicsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDeleteTopicsRequest(const DeleteTopicsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    if (version >= 6) {
      w.NullableString(t.name, flexible);
      w.Uuid(t.topic_id);
      if (flexible) w.EmptyTaggedFields();
    } else {
      w.String(t.name.value_or(""), flexible);
    }
  }
  w.Int32(req.timeout_ms);
  if (flexible) w.EmptyTaggedFields();
}

void WriteDeleteTopicsResponse(const DeleteTopicsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& t : resp.topics) {
    if (version >= 6) {
      w.NullableString(t.name, flexible);
      w.Uuid(t.topic_id);
    } else {
      w.String(t.name.value_or(""), flexible);
    }
    w.Int16(t.error_code);
    if (version >= 5) w.NullableString(t.error_message, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<DeleteTopicsResponse> ReadDeleteTopicsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DeleteTopicsResponse resp;
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "responses");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DeleteTopicsResponse::Topic t;
    if (version >= 6) {
      t.name = r.NullableString(flexible, "name");
      t.topic_id = r.Uuid("topic_id");
    } else {
      t.name = r.String(flexible, "name");
    }
    t.error_code = r.Int16("error_code");
    if (version >= 5) t.error_message = r.NullableString(flexible, "error_message");
    if (flexible) r.SkipTaggedFields("response tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("DeleteTopicsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
