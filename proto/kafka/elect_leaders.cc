#include "proto/kafka/elect_leaders.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr int16_t kElectionTypeAndTopLevelError = 1;  // the first version with both

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kElectLeaders), version); }

}  // namespace

absl::StatusOr<ElectLeadersRequest> ReadElectLeadersRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  ElectLeadersRequest req;
  if (version >= kElectionTypeAndTopLevelError) req.election_type = r.Int8("election_type");
  int32_t n = r.ArrayLength(flexible, "topic_partitions");
  if (n >= 0) {
    req.topic_partitions.emplace();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      ElectLeadersRequest::TopicPartitions t;
      t.topic = r.String(flexible, "topic");
      t.partitions = ReadInt32Array(r, flexible, "partitions");
      if (flexible) r.SkipTaggedFields("topic partitions tagged fields");
      req.topic_partitions->push_back(std::move(t));
    }
  }
  req.timeout_ms = r.Int32("timeout_ms");
  if (flexible) r.SkipTaggedFields("ElectLeadersRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteElectLeadersRequest(const ElectLeadersRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= kElectionTypeAndTopLevelError) w.Int8(req.election_type);
  if (!req.topic_partitions) {
    w.ArrayLength(-1, flexible);
  } else {
    w.ArrayLength(static_cast<int32_t>(req.topic_partitions->size()), flexible);
    for (const auto& t : *req.topic_partitions) {
      w.String(t.topic, flexible);
      WriteInt32Array(t.partitions, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  w.Int32(req.timeout_ms);
  if (flexible) w.EmptyTaggedFields();
}

void WriteElectLeadersResponse(const ElectLeadersResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  if (version >= kElectionTypeAndTopLevelError) w.Int16(resp.error_code);
  w.ArrayLength(static_cast<int32_t>(resp.replica_election_results.size()), flexible);
  for (const auto& t : resp.replica_election_results) {
    w.String(t.topic, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partition_result.size()), flexible);
    for (const auto& p : t.partition_result) {
      w.Int32(p.partition_id);
      w.Int16(p.error_code);
      w.NullableString(p.error_message, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<ElectLeadersResponse> ReadElectLeadersResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  ElectLeadersResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version >= kElectionTypeAndTopLevelError) resp.error_code = r.Int16("error_code");
  int32_t n = r.ArrayLength(flexible, "replica_election_results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    ElectLeadersResponse::ReplicaElectionResult t;
    t.topic = r.String(flexible, "topic");
    int32_t np = r.ArrayLength(flexible, "partition_result");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      ElectLeadersResponse::PartitionResult p;
      p.partition_id = r.Int32("partition_id");
      p.error_code = r.Int16("error_code");
      p.error_message = r.NullableString(flexible, "error_message");
      if (flexible) r.SkipTaggedFields("partition result tagged fields");
      t.partition_result.push_back(std::move(p));
    }
    if (flexible) r.SkipTaggedFields("replica election result tagged fields");
    resp.replica_election_results.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("ElectLeadersResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
