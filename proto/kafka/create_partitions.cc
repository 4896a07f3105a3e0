#include "proto/kafka/create_partitions.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kCreatePartitions), version); }

}  // namespace

absl::StatusOr<CreatePartitionsRequest> ReadCreatePartitionsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  CreatePartitionsRequest req;
  int32_t n = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    CreatePartitionsRequest::Topic t;
    t.name = r.String(flexible, "name");
    t.count = r.Int32("count");
    int32_t na = r.ArrayLength(flexible, "assignments");
    if (na >= 0) {
      t.assignments.emplace();
      for (int32_t j = 0; j < na && r.ok(); ++j) {
        t.assignments->push_back(ReadInt32Array(r, flexible, "broker_ids"));
        if (flexible) r.SkipTaggedFields("assignment tagged fields");
      }
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  req.timeout_ms = r.Int32("timeout_ms");
  req.validate_only = r.Bool("validate_only");
  if (flexible) r.SkipTaggedFields("CreatePartitionsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteCreatePartitionsRequest(const CreatePartitionsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    w.String(t.name, flexible);
    w.Int32(t.count);
    if (!t.assignments) {
      w.ArrayLength(-1, flexible);
    } else {
      w.ArrayLength(static_cast<int32_t>(t.assignments->size()), flexible);
      for (const auto& brokers : *t.assignments) {
        WriteInt32Array(brokers, flexible, w);
        if (flexible) w.EmptyTaggedFields();
      }
    }
    if (flexible) w.EmptyTaggedFields();
  }
  w.Int32(req.timeout_ms);
  w.Bool(req.validate_only);
  if (flexible) w.EmptyTaggedFields();
}

void WriteCreatePartitionsResponse(const CreatePartitionsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
  for (const auto& res : resp.results) {
    w.String(res.name, flexible);
    w.Int16(res.error_code);
    w.NullableString(res.error_message, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<CreatePartitionsResponse> ReadCreatePartitionsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  CreatePartitionsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    CreatePartitionsResponse::Result res;
    res.name = r.String(flexible, "name");
    res.error_code = r.Int16("error_code");
    res.error_message = r.NullableString(flexible, "error_message");
    if (flexible) r.SkipTaggedFields("result tagged fields");
    resp.results.push_back(std::move(res));
  }
  if (flexible) r.SkipTaggedFields("CreatePartitionsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
