#include "proto/kafka/describe_transactions.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {

// Every version is flexible.

absl::StatusOr<DescribeTransactionsRequest> ReadDescribeTransactionsRequest(Reader& r, int16_t version) {
  DescribeTransactionsRequest req;
  req.transactional_ids = ReadStringArray(r, true, "transactional_ids");
  r.SkipTaggedFields("DescribeTransactionsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeTransactionsRequest(const DescribeTransactionsRequest& req, int16_t version, Writer& w) {
  WriteStringArray(req.transactional_ids, true, w);
  w.EmptyTaggedFields();
}

void WriteDescribeTransactionsResponse(const DescribeTransactionsResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.transaction_states.size()), true);
  for (const auto& s : resp.transaction_states) {
    w.Int16(s.error_code);
    w.String(s.transactional_id, true);
    w.String(s.transaction_state, true);
    w.Int32(s.transaction_timeout_ms);
    w.Int64(s.transaction_start_time_ms);
    w.Int64(s.producer_id);
    w.Int16(s.producer_epoch);
    w.ArrayLength(static_cast<int32_t>(s.topics.size()), true);
    for (const auto& t : s.topics) {
      w.String(t.topic, true);
      WriteInt32Array(t.partitions, true, w);
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<DescribeTransactionsResponse> ReadDescribeTransactionsResponse(Reader& r, int16_t version) {
  DescribeTransactionsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t ns = r.ArrayLength(true, "transaction_states");
  for (int32_t i = 0; i < ns && r.ok(); ++i) {
    DescribeTransactionsResponse::TransactionState s;
    s.error_code = r.Int16("error_code");
    s.transactional_id = r.String(true, "transactional_id");
    s.transaction_state = r.String(true, "transaction_state");
    s.transaction_timeout_ms = r.Int32("transaction_timeout_ms");
    s.transaction_start_time_ms = r.Int64("transaction_start_time_ms");
    s.producer_id = r.Int64("producer_id");
    s.producer_epoch = r.Int16("producer_epoch");
    int32_t nt = r.ArrayLength(true, "topics");
    for (int32_t j = 0; j < nt && r.ok(); ++j) {
      DescribeTransactionsResponse::Topic t;
      t.topic = r.String(true, "topic");
      t.partitions = ReadInt32Array(r, true, "partitions");
      r.SkipTaggedFields("topic tagged fields");
      s.topics.push_back(std::move(t));
    }
    r.SkipTaggedFields("transaction state tagged fields");
    resp.transaction_states.push_back(std::move(s));
  }
  r.SkipTaggedFields("DescribeTransactionsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
