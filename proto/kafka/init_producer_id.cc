#include "proto/kafka/init_producer_id.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFlexible = 2;
constexpr int16_t kCurrentIdAndEpoch = 3;  // the first version with producer_id / producer_epoch
}  // namespace

absl::StatusOr<InitProducerIdRequest> ReadInitProducerIdRequest(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  InitProducerIdRequest req;
  req.transactional_id = r.NullableString(flexible, "transactional_id");
  req.transaction_timeout_ms = r.Int32("transaction_timeout_ms");
  if (version >= kCurrentIdAndEpoch) {
    req.producer_id = r.Int64("producer_id");
    req.producer_epoch = r.Int16("producer_epoch");
  }
  if (flexible) r.SkipTaggedFields("InitProducerIdRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteInitProducerIdRequest(const InitProducerIdRequest& req, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.NullableString(req.transactional_id, flexible);
  w.Int32(req.transaction_timeout_ms);
  if (version >= kCurrentIdAndEpoch) {
    w.Int64(req.producer_id);
    w.Int16(req.producer_epoch);
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteInitProducerIdResponse(const InitProducerIdResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.Int64(resp.producer_id);
  w.Int16(resp.producer_epoch);
  if (version >= kFlexible) w.EmptyTaggedFields();
}

absl::StatusOr<InitProducerIdResponse> ReadInitProducerIdResponse(Reader& r, int16_t version) {
  InitProducerIdResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.producer_id = r.Int64("producer_id");
  resp.producer_epoch = r.Int16("producer_epoch");
  if (version >= kFlexible) r.SkipTaggedFields("InitProducerIdResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
