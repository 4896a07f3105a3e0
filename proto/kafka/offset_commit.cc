#include "proto/kafka/offset_commit.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kOffsetCommit), version); }

bool HasCommitTimestamp(int16_t version) { return version == 1; }
bool HasRetentionTime(int16_t version) { return version >= 2 && version <= 4; }
constexpr int16_t kLeaderEpoch = 6;
constexpr int16_t kInstanceId = 7;

}  // namespace

absl::StatusOr<OffsetCommitRequest> ReadOffsetCommitRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  OffsetCommitRequest req;
  req.group_id = r.String(flexible, "group_id");
  if (version >= 1) {
    req.generation_id_or_member_epoch = r.Int32("generation_id_or_member_epoch");
    req.member_id = r.String(flexible, "member_id");
  }
  if (version >= kInstanceId) req.group_instance_id = r.NullableString(flexible, "group_instance_id");
  if (HasRetentionTime(version)) req.retention_time_ms = r.Int64("retention_time_ms");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetCommitRequest::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      OffsetCommitRequest::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.committed_offset = r.Int64("committed_offset");
      if (version >= kLeaderEpoch) p.committed_leader_epoch = r.Int32("committed_leader_epoch");
      if (HasCommitTimestamp(version)) p.commit_timestamp = r.Int64("commit_timestamp");
      p.committed_metadata = r.NullableString(flexible, "committed_metadata");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("OffsetCommitRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteOffsetCommitRequest(const OffsetCommitRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.String(req.group_id, flexible);
  if (version >= 1) {
    w.Int32(req.generation_id_or_member_epoch);
    w.String(req.member_id, flexible);
  }
  if (version >= kInstanceId) w.NullableString(req.group_instance_id, flexible);
  if (HasRetentionTime(version)) w.Int64(req.retention_time_ms);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int64(p.committed_offset);
      if (version >= kLeaderEpoch) w.Int32(p.committed_leader_epoch);
      if (HasCommitTimestamp(version)) w.Int64(p.commit_timestamp);
      w.NullableString(p.committed_metadata, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteOffsetCommitResponse(const OffsetCommitResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 3) w.Int32(resp.throttle_time_ms);
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

absl::StatusOr<OffsetCommitResponse> ReadOffsetCommitResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  OffsetCommitResponse resp;
  if (version >= 3) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetCommitResponse::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      OffsetCommitResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("OffsetCommitResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
