#include "proto/kafka/txn_offset_commit.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kTxnOffsetCommit), version); }

constexpr int16_t kLeaderEpoch = 2;
constexpr int16_t kGroupMember = 3;  // the first version with generation_id / member_id / group_instance_id

}  // namespace

absl::StatusOr<TxnOffsetCommitRequest> ReadTxnOffsetCommitRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  TxnOffsetCommitRequest req;
  req.transactional_id = r.String(flexible, "transactional_id");
  req.group_id = r.String(flexible, "group_id");
  req.producer_id = r.Int64("producer_id");
  req.producer_epoch = r.Int16("producer_epoch");
  if (version >= kGroupMember) {
    req.generation_id = r.Int32("generation_id");
    req.member_id = r.String(flexible, "member_id");
    req.group_instance_id = r.NullableString(flexible, "group_instance_id");
  }
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    TxnOffsetCommitRequest::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      TxnOffsetCommitRequest::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.committed_offset = r.Int64("committed_offset");
      if (version >= kLeaderEpoch) p.committed_leader_epoch = r.Int32("committed_leader_epoch");
      p.committed_metadata = r.NullableString(flexible, "committed_metadata");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("TxnOffsetCommitRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteTxnOffsetCommitRequest(const TxnOffsetCommitRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.transactional_id, flexible);
  w.String(req.group_id, flexible);
  w.Int64(req.producer_id);
  w.Int16(req.producer_epoch);
  if (version >= kGroupMember) {
    w.Int32(req.generation_id);
    w.String(req.member_id, flexible);
    w.NullableString(req.group_instance_id, flexible);
  }
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int64(p.committed_offset);
      if (version >= kLeaderEpoch) w.Int32(p.committed_leader_epoch);
      w.NullableString(p.committed_metadata, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteTxnOffsetCommitResponse(const TxnOffsetCommitResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& t : resp.topics) {
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

absl::StatusOr<TxnOffsetCommitResponse> ReadTxnOffsetCommitResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  TxnOffsetCommitResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    TxnOffsetCommitResponse::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      TxnOffsetCommitResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("TxnOffsetCommitResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
