#include "proto/kafka/describe_producers.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {

// Every version is flexible.

absl::StatusOr<DescribeProducersRequest> ReadDescribeProducersRequest(Reader& r, int16_t version) {
  DescribeProducersRequest req;
  int32_t nt = r.ArrayLength(true, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    DescribeProducersRequest::Topic t;
    t.name = r.String(true, "name");
    t.partition_indexes = ReadInt32Array(r, true, "partition_indexes");
    r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  r.SkipTaggedFields("DescribeProducersRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeProducersRequest(const DescribeProducersRequest& req, int16_t version, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), true);
  for (const auto& t : req.topics) {
    w.String(t.name, true);
    WriteInt32Array(t.partition_indexes, true, w);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteDescribeProducersResponse(const DescribeProducersResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), true);
  for (const auto& t : resp.topics) {
    w.String(t.name, true);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), true);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
      w.NullableString(p.error_message, true);
      w.ArrayLength(static_cast<int32_t>(p.active_producers.size()), true);
      for (const auto& s : p.active_producers) {
        w.Int64(s.producer_id);
        w.Int32(s.producer_epoch);
        w.Int32(s.last_sequence);
        w.Int64(s.last_timestamp);
        w.Int32(s.coordinator_epoch);
        w.Int64(s.current_txn_start_offset);
        w.EmptyTaggedFields();
      }
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<DescribeProducersResponse> ReadDescribeProducersResponse(Reader& r, int16_t version) {
  DescribeProducersResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nt = r.ArrayLength(true, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    DescribeProducersResponse::Topic t;
    t.name = r.String(true, "name");
    int32_t np = r.ArrayLength(true, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      DescribeProducersResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      p.error_message = r.NullableString(true, "error_message");
      int32_t ns = r.ArrayLength(true, "active_producers");
      for (int32_t k = 0; k < ns && r.ok(); ++k) {
        DescribeProducersResponse::ProducerState s;
        s.producer_id = r.Int64("producer_id");
        s.producer_epoch = r.Int32("producer_epoch");
        s.last_sequence = r.Int32("last_sequence");
        s.last_timestamp = r.Int64("last_timestamp");
        s.coordinator_epoch = r.Int32("coordinator_epoch");
        s.current_txn_start_offset = r.Int64("current_txn_start_offset");
        r.SkipTaggedFields("producer state tagged fields");
        p.active_producers.push_back(s);
      }
      r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    r.SkipTaggedFields("topic tagged fields");
    resp.topics.push_back(std::move(t));
  }
  r.SkipTaggedFields("DescribeProducersResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
