#include "proto/kafka/list_transactions.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {

// Every version is flexible.

namespace {

constexpr int16_t kDurationFilter = 1;
constexpr int16_t kTransactionalIdPattern = 2;

}  // namespace

absl::StatusOr<ListTransactionsRequest> ReadListTransactionsRequest(Reader& r, int16_t version) {
  ListTransactionsRequest req;
  req.state_filters = ReadStringArray(r, true, "state_filters");
  int32_t n = r.ArrayLength(true, "producer_id_filters");
  for (int32_t i = 0; i < n && r.ok(); ++i) req.producer_id_filters.push_back(r.Int64("producer_id_filters"));
  if (version >= kDurationFilter) req.duration_filter = r.Int64("duration_filter");
  if (version >= kTransactionalIdPattern) {
    req.transactional_id_pattern = r.NullableString(true, "transactional_id_pattern");
  }
  r.SkipTaggedFields("ListTransactionsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteListTransactionsRequest(const ListTransactionsRequest& req, int16_t version, Writer& w) {
  WriteStringArray(req.state_filters, true, w);
  w.ArrayLength(static_cast<int32_t>(req.producer_id_filters.size()), true);
  for (int64_t id : req.producer_id_filters) w.Int64(id);
  if (version >= kDurationFilter) w.Int64(req.duration_filter);
  if (version >= kTransactionalIdPattern) w.NullableString(req.transactional_id_pattern, true);
  w.EmptyTaggedFields();
}

void WriteListTransactionsResponse(const ListTransactionsResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  WriteStringArray(resp.unknown_state_filters, true, w);
  w.ArrayLength(static_cast<int32_t>(resp.transaction_states.size()), true);
  for (const auto& s : resp.transaction_states) {
    w.String(s.transactional_id, true);
    w.Int64(s.producer_id);
    w.String(s.transaction_state, true);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<ListTransactionsResponse> ReadListTransactionsResponse(Reader& r, int16_t version) {
  ListTransactionsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.unknown_state_filters = ReadStringArray(r, true, "unknown_state_filters");
  int32_t n = r.ArrayLength(true, "transaction_states");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    ListTransactionsResponse::TransactionState s;
    s.transactional_id = r.String(true, "transactional_id");
    s.producer_id = r.Int64("producer_id");
    s.transaction_state = r.String(true, "transaction_state");
    r.SkipTaggedFields("transaction state tagged fields");
    resp.transaction_states.push_back(std::move(s));
  }
  r.SkipTaggedFields("ListTransactionsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
