#include "proto/kafka/share_fetch.h"

#include <utility>

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // every version
constexpr int16_t kV2 = 2;        // acquire mode, renew acknowledgements, ShareAcknowledge's lock timeout

// ---- acknowledgements: the request side of both APIs ------------------------------------

void WriteAcknowledgements(const std::vector<ShareTopicAcknowledgements>& topics, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(topics.size()), kFlexible);
  for (const ShareTopicAcknowledgements& t : topics) {
    w.Uuid(t.topic_id);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const SharePartitionAcknowledgements& p : t.partitions) {
      w.Int32(p.partition_index);
      w.ArrayLength(static_cast<int32_t>(p.acknowledgement_batches.size()), kFlexible);
      for (const AcknowledgementBatch& b : p.acknowledgement_batches) {
        w.Int64(b.first_offset);
        w.Int64(b.last_offset);
        w.ArrayLength(static_cast<int32_t>(b.acknowledge_types.size()), kFlexible);
        for (int8_t type : b.acknowledge_types) w.Int8(type);
        w.EmptyTaggedFields();
      }
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
}

std::vector<ShareTopicAcknowledgements> ReadAcknowledgements(Reader& r) {
  std::vector<ShareTopicAcknowledgements> topics;
  int32_t nt = r.ArrayLength(kFlexible, "topics");
  for (int32_t i = 0; r.ok() && i < nt; ++i) {
    ShareTopicAcknowledgements t;
    t.topic_id = r.Uuid("topic_id");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; r.ok() && j < np; ++j) {
      SharePartitionAcknowledgements p;
      p.partition_index = r.Int32("partition_index");
      int32_t nb = r.ArrayLength(kFlexible, "acknowledgement_batches");
      for (int32_t k = 0; r.ok() && k < nb; ++k) {
        AcknowledgementBatch b;
        b.first_offset = r.Int64("first_offset");
        b.last_offset = r.Int64("last_offset");
        int32_t n = r.ArrayLength(kFlexible, "acknowledge_types");
        for (int32_t m = 0; r.ok() && m < n; ++m) b.acknowledge_types.push_back(r.Int8("acknowledge_type"));
        r.SkipTaggedFields("AcknowledgementBatch tagged fields");
        p.acknowledgement_batches.push_back(std::move(b));
      }
      r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    r.SkipTaggedFields("topic tagged fields");
    topics.push_back(std::move(t));
  }
  return topics;
}

// ---- what both responses end with, and their partitions' leader ------------------------

void WriteLeader(const ShareLeaderIdAndEpoch& l, Writer& w) {
  w.Int32(l.leader_id);
  w.Int32(l.leader_epoch);
  w.EmptyTaggedFields();
}

ShareLeaderIdAndEpoch ReadLeader(Reader& r) {
  ShareLeaderIdAndEpoch l;
  l.leader_id = r.Int32("leader_id");
  l.leader_epoch = r.Int32("leader_epoch");
  r.SkipTaggedFields("CurrentLeader tagged fields");
  return l;
}

void WriteNodeEndpoints(const std::vector<ShareNodeEndpoint>& nodes, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(nodes.size()), kFlexible);
  for (const ShareNodeEndpoint& n : nodes) {
    w.Int32(n.node_id);
    w.String(n.host, kFlexible);
    w.Int32(n.port);
    w.NullableString(n.rack, kFlexible);
    w.EmptyTaggedFields();
  }
}

std::vector<ShareNodeEndpoint> ReadNodeEndpoints(Reader& r) {
  std::vector<ShareNodeEndpoint> nodes;
  int32_t n = r.ArrayLength(kFlexible, "node_endpoints");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    ShareNodeEndpoint e;
    e.node_id = r.Int32("node_id");
    e.host = r.String(kFlexible, "host");
    e.port = r.Int32("port");
    e.rack = r.NullableString(kFlexible, "rack");
    r.SkipTaggedFields("NodeEndpoint tagged fields");
    nodes.push_back(std::move(e));
  }
  return nodes;
}

void WriteShareFetchPartition(const ShareFetchResponse::Partition& p, Writer& w) {
  w.Int32(p.partition_index);
  w.Int16(p.error_code);
  w.NullableString(p.error_message, kFlexible);
  w.Int16(p.acknowledge_error_code);
  w.NullableString(p.acknowledge_error_message, kFlexible);
  WriteLeader(p.current_leader, w);
  if (p.records_splice >= 0) {
    w.SplicedBytes(p.records_splice, p.records_splice_sizes, kFlexible);
  } else {
    w.NullableBytes(p.records, kFlexible);
  }
  w.ArrayLength(static_cast<int32_t>(p.acquired_records.size()), kFlexible);
  for (const ShareFetchResponse::AcquiredRecords& a : p.acquired_records) {
    w.Int64(a.first_offset);
    w.Int64(a.last_offset);
    w.Int16(a.delivery_count);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

ShareFetchResponse::Partition ReadShareFetchPartition(Reader& r) {
  ShareFetchResponse::Partition p;
  p.partition_index = r.Int32("partition_index");
  p.error_code = r.Int16("error_code");
  p.error_message = r.NullableString(kFlexible, "error_message");
  p.acknowledge_error_code = r.Int16("acknowledge_error_code");
  p.acknowledge_error_message = r.NullableString(kFlexible, "acknowledge_error_message");
  p.current_leader = ReadLeader(r);
  p.records = r.NullableBytes(kFlexible, "records");
  int32_t n = r.ArrayLength(kFlexible, "acquired_records");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    ShareFetchResponse::AcquiredRecords a;
    a.first_offset = r.Int64("first_offset");
    a.last_offset = r.Int64("last_offset");
    a.delivery_count = r.Int16("delivery_count");
    r.SkipTaggedFields("AcquiredRecords tagged fields");
    p.acquired_records.push_back(a);
  }
  r.SkipTaggedFields("PartitionData tagged fields");
  return p;
}

}  // namespace

// ---- ShareFetch ---------------------------------------------------------------------------

absl::StatusOr<ShareFetchRequest> ReadShareFetchRequest(Reader& r, int16_t version) {
  ShareFetchRequest req;
  req.group_id = r.NullableString(kFlexible, "group_id");
  req.member_id = r.NullableString(kFlexible, "member_id");
  req.share_session_epoch = r.Int32("share_session_epoch");
  req.max_wait_ms = r.Int32("max_wait_ms");
  req.min_bytes = r.Int32("min_bytes");
  req.max_bytes = r.Int32("max_bytes");
  req.max_records = r.Int32("max_records");
  req.batch_size = r.Int32("batch_size");
  if (version >= kV2) {
    req.share_acquire_mode = r.Int8("share_acquire_mode");
    req.is_renew_ack = r.Bool("is_renew_ack");
  }
  req.topics = ReadAcknowledgements(r);
  int32_t nf = r.ArrayLength(kFlexible, "forgotten_topics_data");
  for (int32_t i = 0; r.ok() && i < nf; ++i) {
    ShareFetchRequest::ForgottenTopic f;
    f.topic_id = r.Uuid("topic_id");
    f.partitions = ReadInt32Array(r, kFlexible, "partitions");
    r.SkipTaggedFields("ForgottenTopic tagged fields");
    req.forgotten_topics.push_back(std::move(f));
  }
  r.SkipTaggedFields("ShareFetchRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteShareFetchRequest(const ShareFetchRequest& req, int16_t version, Writer& w) {
  w.NullableString(req.group_id, kFlexible);
  w.NullableString(req.member_id, kFlexible);
  w.Int32(req.share_session_epoch);
  w.Int32(req.max_wait_ms);
  w.Int32(req.min_bytes);
  w.Int32(req.max_bytes);
  w.Int32(req.max_records);
  w.Int32(req.batch_size);
  if (version >= kV2) {
    w.Int8(req.share_acquire_mode);
    w.Bool(req.is_renew_ack);
  }
  WriteAcknowledgements(req.topics, w);
  w.ArrayLength(static_cast<int32_t>(req.forgotten_topics.size()), kFlexible);
  for (const ShareFetchRequest::ForgottenTopic& f : req.forgotten_topics) {
    w.Uuid(f.topic_id);
    WriteInt32Array(f.partitions, kFlexible, w);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteShareFetchResponse(const ShareFetchResponse& resp, int16_t /*version*/, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  w.Int32(resp.acquisition_lock_timeout_ms);
  w.ArrayLength(static_cast<int32_t>(resp.responses.size()), kFlexible);
  for (const ShareFetchResponse::Topic& t : resp.responses) {
    w.Uuid(t.topic_id);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const ShareFetchResponse::Partition& p : t.partitions) WriteShareFetchPartition(p, w);
    w.EmptyTaggedFields();
  }
  WriteNodeEndpoints(resp.node_endpoints, w);
  w.EmptyTaggedFields();
}

absl::StatusOr<ShareFetchResponse> ReadShareFetchResponse(Reader& r, int16_t /*version*/) {
  ShareFetchResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  resp.acquisition_lock_timeout_ms = r.Int32("acquisition_lock_timeout_ms");
  int32_t nt = r.ArrayLength(kFlexible, "responses");
  for (int32_t i = 0; r.ok() && i < nt; ++i) {
    ShareFetchResponse::Topic t;
    t.topic_id = r.Uuid("topic_id");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; r.ok() && j < np; ++j) t.partitions.push_back(ReadShareFetchPartition(r));
    r.SkipTaggedFields("ShareFetchableTopicResponse tagged fields");
    resp.responses.push_back(std::move(t));
  }
  resp.node_endpoints = ReadNodeEndpoints(r);
  r.SkipTaggedFields("ShareFetchResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

// ---- ShareAcknowledge ---------------------------------------------------------------------

absl::StatusOr<ShareAcknowledgeRequest> ReadShareAcknowledgeRequest(Reader& r, int16_t version) {
  ShareAcknowledgeRequest req;
  req.group_id = r.NullableString(kFlexible, "group_id");
  req.member_id = r.NullableString(kFlexible, "member_id");
  req.share_session_epoch = r.Int32("share_session_epoch");
  if (version >= kV2) req.is_renew_ack = r.Bool("is_renew_ack");
  req.topics = ReadAcknowledgements(r);
  r.SkipTaggedFields("ShareAcknowledgeRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteShareAcknowledgeRequest(const ShareAcknowledgeRequest& req, int16_t version, Writer& w) {
  w.NullableString(req.group_id, kFlexible);
  w.NullableString(req.member_id, kFlexible);
  w.Int32(req.share_session_epoch);
  if (version >= kV2) w.Bool(req.is_renew_ack);
  WriteAcknowledgements(req.topics, w);
  w.EmptyTaggedFields();
}

void WriteShareAcknowledgeResponse(const ShareAcknowledgeResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  if (version >= kV2) w.Int32(resp.acquisition_lock_timeout_ms);
  w.ArrayLength(static_cast<int32_t>(resp.responses.size()), kFlexible);
  for (const ShareAcknowledgeResponse::Topic& t : resp.responses) {
    w.Uuid(t.topic_id);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const ShareAcknowledgeResponse::Partition& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
      w.NullableString(p.error_message, kFlexible);
      WriteLeader(p.current_leader, w);
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  WriteNodeEndpoints(resp.node_endpoints, w);
  w.EmptyTaggedFields();
}

absl::StatusOr<ShareAcknowledgeResponse> ReadShareAcknowledgeResponse(Reader& r, int16_t version) {
  ShareAcknowledgeResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  if (version >= kV2) resp.acquisition_lock_timeout_ms = r.Int32("acquisition_lock_timeout_ms");
  int32_t nt = r.ArrayLength(kFlexible, "responses");
  for (int32_t i = 0; r.ok() && i < nt; ++i) {
    ShareAcknowledgeResponse::Topic t;
    t.topic_id = r.Uuid("topic_id");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; r.ok() && j < np; ++j) {
      ShareAcknowledgeResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      p.error_message = r.NullableString(kFlexible, "error_message");
      p.current_leader = ReadLeader(r);
      r.SkipTaggedFields("PartitionData tagged fields");
      t.partitions.push_back(std::move(p));
    }
    r.SkipTaggedFields("ShareAcknowledgeTopicResponse tagged fields");
    resp.responses.push_back(std::move(t));
  }
  resp.node_endpoints = ReadNodeEndpoints(r);
  r.SkipTaggedFields("ShareAcknowledgeResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
