#include "proto/kafka/end_txn.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kEndTxn), version); }

constexpr int16_t kProducerIdAndEpoch = 5;  // the first response with producer_id / producer_epoch

}  // namespace

absl::StatusOr<EndTxnRequest> ReadEndTxnRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  EndTxnRequest req;
  req.transactional_id = r.String(flexible, "transactional_id");
  req.producer_id = r.Int64("producer_id");
  req.producer_epoch = r.Int16("producer_epoch");
  req.committed = r.Bool("committed");
  if (flexible) r.SkipTaggedFields("EndTxnRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteEndTxnRequest(const EndTxnRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.transactional_id, flexible);
  w.Int64(req.producer_id);
  w.Int16(req.producer_epoch);
  w.Bool(req.committed);
  if (flexible) w.EmptyTaggedFields();
}

void WriteEndTxnResponse(const EndTxnResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  if (version >= kProducerIdAndEpoch) {
    w.Int64(resp.producer_id);
    w.Int16(resp.producer_epoch);
  }
  if (Flexible(version)) w.EmptyTaggedFields();
}

absl::StatusOr<EndTxnResponse> ReadEndTxnResponse(Reader& r, int16_t version) {
  EndTxnResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  if (version >= kProducerIdAndEpoch) {
    resp.producer_id = r.Int64("producer_id");
    resp.producer_epoch = r.Int16("producer_epoch");
  }
  if (Flexible(version)) r.SkipTaggedFields("EndTxnResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
