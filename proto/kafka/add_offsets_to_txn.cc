#include "proto/kafka/add_offsets_to_txn.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kAddOffsetsToTxn), version); }

}  // namespace

absl::StatusOr<AddOffsetsToTxnRequest> ReadAddOffsetsToTxnRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  AddOffsetsToTxnRequest req;
  req.transactional_id = r.String(flexible, "transactional_id");
  req.producer_id = r.Int64("producer_id");
  req.producer_epoch = r.Int16("producer_epoch");
  req.group_id = r.String(flexible, "group_id");
  if (flexible) r.SkipTaggedFields("AddOffsetsToTxnRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAddOffsetsToTxnRequest(const AddOffsetsToTxnRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.transactional_id, flexible);
  w.Int64(req.producer_id);
  w.Int16(req.producer_epoch);
  w.String(req.group_id, flexible);
  if (flexible) w.EmptyTaggedFields();
}

void WriteAddOffsetsToTxnResponse(const AddOffsetsToTxnResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  if (Flexible(version)) w.EmptyTaggedFields();
}

absl::StatusOr<AddOffsetsToTxnResponse> ReadAddOffsetsToTxnResponse(Reader& r, int16_t version) {
  AddOffsetsToTxnResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  if (Flexible(version)) r.SkipTaggedFields("AddOffsetsToTxnResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
