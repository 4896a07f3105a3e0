#include "proto/kafka/write_txn_markers.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kWriteTxnMarkers), version); }

constexpr int16_t kTransactionVersion = 2;  // the first version with transaction_version

}  // namespace

absl::StatusOr<WriteTxnMarkersRequest> ReadWriteTxnMarkersRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  WriteTxnMarkersRequest req;
  int32_t nm = r.ArrayLength(flexible, "markers");
  for (int32_t i = 0; i < nm && r.ok(); ++i) {
    WriteTxnMarkersRequest::Marker m;
    m.producer_id = r.Int64("producer_id");
    m.producer_epoch = r.Int16("producer_epoch");
    m.transaction_result = r.Bool("transaction_result");
    int32_t nt = r.ArrayLength(flexible, "topics");
    for (int32_t j = 0; j < nt && r.ok(); ++j) {
      WriteTxnMarkersRequest::Topic t;
      t.name = r.String(flexible, "name");
      t.partition_indexes = ReadInt32Array(r, flexible, "partition_indexes");
      if (flexible) r.SkipTaggedFields("topic tagged fields");
      m.topics.push_back(std::move(t));
    }
    m.coordinator_epoch = r.Int32("coordinator_epoch");
    if (version >= kTransactionVersion) m.transaction_version = r.Int8("transaction_version");
    if (flexible) r.SkipTaggedFields("marker tagged fields");
    req.markers.push_back(std::move(m));
  }
  if (flexible) r.SkipTaggedFields("WriteTxnMarkersRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteWriteTxnMarkersRequest(const WriteTxnMarkersRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.markers.size()), flexible);
  for (const auto& m : req.markers) {
    w.Int64(m.producer_id);
    w.Int16(m.producer_epoch);
    w.Bool(m.transaction_result);
    w.ArrayLength(static_cast<int32_t>(m.topics.size()), flexible);
    for (const auto& t : m.topics) {
      w.String(t.name, flexible);
      WriteInt32Array(t.partition_indexes, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
    w.Int32(m.coordinator_epoch);
    if (version >= kTransactionVersion) w.Int8(m.transaction_version);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteWriteTxnMarkersResponse(const WriteTxnMarkersResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(resp.markers.size()), flexible);
  for (const auto& m : resp.markers) {
    w.Int64(m.producer_id);
    w.ArrayLength(static_cast<int32_t>(m.topics.size()), flexible);
    for (const auto& t : m.topics) {
      w.String(t.name, flexible);
      w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
      for (const auto& p : t.partitions) {
        w.Int32(p.partition_index);
        w.Int16(p.error_code);
        if (flexible) w.EmptyTaggedFields();
      }
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<WriteTxnMarkersResponse> ReadWriteTxnMarkersResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  WriteTxnMarkersResponse resp;
  int32_t nm = r.ArrayLength(flexible, "markers");
  for (int32_t i = 0; i < nm && r.ok(); ++i) {
    WriteTxnMarkersResponse::Marker m;
    m.producer_id = r.Int64("producer_id");
    int32_t nt = r.ArrayLength(flexible, "topics");
    for (int32_t j = 0; j < nt && r.ok(); ++j) {
      WriteTxnMarkersResponse::Topic t;
      t.name = r.String(flexible, "name");
      int32_t np = r.ArrayLength(flexible, "partitions");
      for (int32_t k = 0; k < np && r.ok(); ++k) {
        WriteTxnMarkersResponse::Partition p;
        p.partition_index = r.Int32("partition_index");
        p.error_code = r.Int16("error_code");
        if (flexible) r.SkipTaggedFields("partition tagged fields");
        t.partitions.push_back(p);
      }
      if (flexible) r.SkipTaggedFields("topic tagged fields");
      m.topics.push_back(std::move(t));
    }
    if (flexible) r.SkipTaggedFields("marker tagged fields");
    resp.markers.push_back(std::move(m));
  }
  if (flexible) r.SkipTaggedFields("WriteTxnMarkersResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
