#include "proto/kafka/alter_replica_log_dirs.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kAlterReplicaLogDirs), version); }

}  // namespace

absl::StatusOr<AlterReplicaLogDirsRequest> ReadAlterReplicaLogDirsRequest(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  AlterReplicaLogDirsRequest req;
  int32_t dirs = r.ArrayLength(flexible, "dirs");
  for (int32_t d = 0; d < dirs && r.ok(); ++d) {
    AlterReplicaLogDirsRequest::Dir& dir = req.dirs.emplace_back();
    dir.path = r.String(flexible, "path");
    int32_t topics = r.ArrayLength(flexible, "topics");
    for (int32_t t = 0; t < topics && r.ok(); ++t) {
      AlterReplicaLogDirsRequest::Topic& topic = dir.topics.emplace_back();
      topic.name = r.String(flexible, "name");
      topic.partitions = ReadInt32Array(r, flexible, "partitions");
      if (flexible) r.SkipTaggedFields("topic tagged fields");
    }
    if (flexible) r.SkipTaggedFields("dir tagged fields");
  }
  if (flexible) r.SkipTaggedFields("AlterReplicaLogDirsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAlterReplicaLogDirsRequest(const AlterReplicaLogDirsRequest& req, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.dirs.size()), flexible);
  for (const auto& dir : req.dirs) {
    w.String(dir.path, flexible);
    w.ArrayLength(static_cast<int32_t>(dir.topics.size()), flexible);
    for (const auto& topic : dir.topics) {
      w.String(topic.name, flexible);
      WriteInt32Array(topic.partitions, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteAlterReplicaLogDirsResponse(const AlterReplicaLogDirsResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
  for (const auto& result : resp.results) {
    w.String(result.topic_name, flexible);
    w.ArrayLength(static_cast<int32_t>(result.partitions.size()), flexible);
    for (const auto& p : result.partitions) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<AlterReplicaLogDirsResponse> ReadAlterReplicaLogDirsResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  AlterReplicaLogDirsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t results = r.ArrayLength(flexible, "results");
  for (int32_t i = 0; i < results && r.ok(); ++i) {
    AlterReplicaLogDirsResponse::Result& result = resp.results.emplace_back();
    result.topic_name = r.String(flexible, "topic_name");
    int32_t partitions = r.ArrayLength(flexible, "partitions");
    for (int32_t p = 0; p < partitions && r.ok(); ++p) {
      AlterReplicaLogDirsResponse::Partition& partition = result.partitions.emplace_back();
      partition.partition_index = r.Int32("partition_index");
      partition.error_code = r.Int16("error_code");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
    }
    if (flexible) r.SkipTaggedFields("result tagged fields");
  }
  if (flexible) r.SkipTaggedFields("AlterReplicaLogDirsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
