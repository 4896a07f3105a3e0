#include "proto/kafka/describe_quorum.h"

namespace strata::proto::kafka {

// Every version is flexible.

namespace {

void WriteReplicaStates(const std::vector<DescribeQuorumResponse::ReplicaState>& states, int16_t version,
                        Writer& w) {
  w.ArrayLength(static_cast<int32_t>(states.size()), true);
  for (const auto& s : states) {
    w.Int32(s.replica_id);
    if (version >= 2) w.Uuid(s.replica_directory_id);
    w.Int64(s.log_end_offset);
    if (version >= 1) {
      w.Int64(s.last_fetch_timestamp);
      w.Int64(s.last_caught_up_timestamp);
    }
    w.EmptyTaggedFields();
  }
}

std::vector<DescribeQuorumResponse::ReplicaState> ReadReplicaStates(Reader& r, int16_t version, const char* field) {
  std::vector<DescribeQuorumResponse::ReplicaState> out;
  int32_t n = r.ArrayLength(true, field);
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DescribeQuorumResponse::ReplicaState s;
    s.replica_id = r.Int32("replica_id");
    if (version >= 2) s.replica_directory_id = r.Uuid("replica_directory_id");
    s.log_end_offset = r.Int64("log_end_offset");
    if (version >= 1) {
      s.last_fetch_timestamp = r.Int64("last_fetch_timestamp");
      s.last_caught_up_timestamp = r.Int64("last_caught_up_timestamp");
    }
    r.SkipTaggedFields("replica state tagged fields");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

absl::StatusOr<DescribeQuorumRequest> ReadDescribeQuorumRequest(Reader& r, int16_t version) {
  DescribeQuorumRequest req;
  int32_t topics = r.ArrayLength(true, "topics");
  for (int32_t i = 0; i < topics && r.ok(); ++i) {
    DescribeQuorumRequest::Topic t;
    t.topic_name = r.String(true, "topic_name");
    int32_t partitions = r.ArrayLength(true, "partitions");
    for (int32_t j = 0; j < partitions && r.ok(); ++j) {
      t.partitions.push_back(r.Int32("partition_index"));
      r.SkipTaggedFields("partition tagged fields");
    }
    r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  r.SkipTaggedFields("DescribeQuorumRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeQuorumRequest(const DescribeQuorumRequest& req, int16_t version, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), true);
  for (const auto& t : req.topics) {
    w.String(t.topic_name, true);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), true);
    for (int32_t p : t.partitions) {
      w.Int32(p);
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteDescribeQuorumResponse(const DescribeQuorumResponse& resp, int16_t version, Writer& w) {
  w.Int16(resp.error_code);
  if (version >= 2) w.NullableString(resp.error_message, true);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), true);
  for (const auto& t : resp.topics) {
    w.String(t.topic_name, true);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), true);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
      if (version >= 2) w.NullableString(p.error_message, true);
      w.Int32(p.leader_id);
      w.Int32(p.leader_epoch);
      w.Int64(p.high_watermark);
      WriteReplicaStates(p.current_voters, version, w);
      WriteReplicaStates(p.observers, version, w);
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  if (version >= 2) {
    w.ArrayLength(static_cast<int32_t>(resp.nodes.size()), true);
    for (const auto& n : resp.nodes) {
      w.Int32(n.node_id);
      WriteListeners(n.listeners, w);
      w.EmptyTaggedFields();
    }
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<DescribeQuorumResponse> ReadDescribeQuorumResponse(Reader& r, int16_t version) {
  DescribeQuorumResponse resp;
  resp.error_code = r.Int16("error_code");
  if (version >= 2) resp.error_message = r.NullableString(true, "error_message");
  int32_t topics = r.ArrayLength(true, "topics");
  for (int32_t i = 0; i < topics && r.ok(); ++i) {
    DescribeQuorumResponse::Topic t;
    t.topic_name = r.String(true, "topic_name");
    int32_t partitions = r.ArrayLength(true, "partitions");
    for (int32_t j = 0; j < partitions && r.ok(); ++j) {
      DescribeQuorumResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      if (version >= 2) p.error_message = r.NullableString(true, "error_message");
      p.leader_id = r.Int32("leader_id");
      p.leader_epoch = r.Int32("leader_epoch");
      p.high_watermark = r.Int64("high_watermark");
      p.current_voters = ReadReplicaStates(r, version, "current_voters");
      p.observers = ReadReplicaStates(r, version, "observers");
      r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    r.SkipTaggedFields("topic tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (version >= 2) {
    int32_t nodes = r.ArrayLength(true, "nodes");
    for (int32_t i = 0; i < nodes && r.ok(); ++i) {
      DescribeQuorumResponse::Node n;
      n.node_id = r.Int32("node_id");
      n.listeners = ReadListeners(r);
      r.SkipTaggedFields("node tagged fields");
      resp.nodes.push_back(std::move(n));
    }
  }
  r.SkipTaggedFields("DescribeQuorumResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
