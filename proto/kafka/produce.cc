#include "proto/kafka/produce.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFlexible = 9;
}  // namespace

absl::StatusOr<ProduceRequest> ReadProduceRequest(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  ProduceRequest req;
  if (version >= 3) req.transactional_id = r.NullableString(flexible, "transactional_id");
  req.acks = r.Int16("acks");
  req.timeout_ms = r.Int32("timeout_ms");
  int32_t nt = r.ArrayLength(flexible, "topic_data");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    ProduceRequest::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partition_data");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      ProduceRequest::Partition p;
      p.index = r.Int32("index");
      p.records = r.NullableBytes(flexible, "records");
      if (flexible) r.SkipTaggedFields("partition_data tagged fields");
      t.partition_data.push_back(std::move(p));
    }
    if (flexible) r.SkipTaggedFields("topic_data tagged fields");
    req.topic_data.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("ProduceRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteProduceRequest(const ProduceRequest& req, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  if (version >= 3) w.NullableString(req.transactional_id, flexible);
  w.Int16(req.acks);
  w.Int32(req.timeout_ms);
  w.ArrayLength(static_cast<int32_t>(req.topic_data.size()), flexible);
  for (const auto& t : req.topic_data) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partition_data.size()), flexible);
    for (const auto& p : t.partition_data) {
      w.Int32(p.index);
      w.NullableBytes(p.records, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteProduceResponse(const ProduceResponse& resp, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.ArrayLength(static_cast<int32_t>(resp.responses.size()), flexible);
  for (const auto& t : resp.responses) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partition_responses.size()), flexible);
    for (const auto& p : t.partition_responses) {
      w.Int32(p.index);
      w.Int16(p.error_code);
      w.Int64(p.base_offset);
      if (version >= 2) w.Int64(p.log_append_time_ms);
      if (version >= 5) w.Int64(p.log_start_offset);
      if (version >= 8) {
        w.ArrayLength(static_cast<int32_t>(p.record_errors.size()), flexible);
        for (const auto& e : p.record_errors) {
          w.Int32(e.batch_index);
          w.NullableString(e.batch_index_error_message, flexible);
          if (flexible) w.EmptyTaggedFields();
        }
        w.NullableString(p.error_message, flexible);
      }
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= 1) w.Int32(resp.throttle_time_ms);
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<ProduceResponse> ReadProduceResponse(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  ProduceResponse resp;
  int32_t nt = r.ArrayLength(flexible, "responses");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    ProduceResponse::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partition_responses");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      ProduceResponse::Partition p;
      p.index = r.Int32("index");
      p.error_code = r.Int16("error_code");
      p.base_offset = r.Int64("base_offset");
      if (version >= 2) p.log_append_time_ms = r.Int64("log_append_time_ms");
      if (version >= 5) p.log_start_offset = r.Int64("log_start_offset");
      if (version >= 8) {
        int32_t ne = r.ArrayLength(flexible, "record_errors");
        for (int32_t k = 0; k < ne && r.ok(); ++k) {
          ProduceResponse::RecordError e;
          e.batch_index = r.Int32("batch_index");
          e.batch_index_error_message = r.NullableString(flexible, "batch_index_error_message");
          if (flexible) r.SkipTaggedFields("record_errors tagged fields");
          p.record_errors.push_back(std::move(e));
        }
        p.error_message = r.NullableString(flexible, "error_message");
      }
      if (flexible) r.SkipTaggedFields("partition_responses tagged fields");
      t.partition_responses.push_back(std::move(p));
    }
    if (flexible) r.SkipTaggedFields("responses tagged fields");
    resp.responses.push_back(std::move(t));
  }
  if (version >= 1) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (flexible) r.SkipTaggedFields("ProduceResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
