#include "proto/kafka/fetch.h"

#include "absl/functional/function_ref.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFlexible = 12;
constexpr int16_t kTopicIds = 13;

// Request tags.
constexpr uint32_t kClusterIdTag = 0;
// Partition response tags.
constexpr uint32_t kDivergingEpochTag = 0;
constexpr uint32_t kCurrentLeaderTag = 1;
constexpr uint32_t kSnapshotIdTag = 2;

TaggedField EncodeTaggedField(uint32_t tag, absl::FunctionRef<void(Writer&)> write) {
  TaggedField field{tag, {}};
  Writer w(&field.data);
  write(w);
  return field;
}

void WriteTopicName(const std::string& topic, const std::string& topic_id, int16_t version, Writer& w) {
  if (version >= kTopicIds) {
    w.Uuid(topic_id);
  } else {
    w.String(topic, version >= kFlexible);
  }
}

void ReadTopicName(Reader& r, int16_t version, std::string* topic, std::string* topic_id) {
  if (version >= kTopicIds) {
    *topic_id = r.Uuid("topic_id");
  } else {
    *topic = r.String(version >= kFlexible, "topic");
  }
}

void WritePartitionResponse(const FetchResponse::Partition& p, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.Int32(p.partition_index);
  w.Int16(p.error_code);
  w.Int64(p.high_watermark);
  w.Int64(p.last_stable_offset);
  if (version >= 5) w.Int64(p.log_start_offset);
  if (!p.aborted_transactions) {
    w.ArrayLength(-1, flexible);
  } else {
    w.ArrayLength(static_cast<int32_t>(p.aborted_transactions->size()), flexible);
    for (const auto& a : *p.aborted_transactions) {
      w.Int64(a.producer_id);
      w.Int64(a.first_offset);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (version >= 11) w.Int32(p.preferred_read_replica);
  if (p.records_splice >= 0) {
    w.SplicedBytes(p.records_splice, p.records_splice_sizes, flexible);
  } else {
    w.NullableBytes(p.records, flexible);
  }
  if (!flexible) return;
  std::vector<TaggedField> tagged;
  if (p.diverging_epoch) {
    tagged.push_back(EncodeTaggedField(kDivergingEpochTag, [&](Writer& f) {
      f.Int32(p.diverging_epoch->epoch);
      f.Int64(p.diverging_epoch->end_offset);
      f.EmptyTaggedFields();
    }));
  }
  if (p.current_leader) {
    tagged.push_back(EncodeTaggedField(kCurrentLeaderTag, [&](Writer& f) {
      f.Int32(p.current_leader->leader_id);
      f.Int32(p.current_leader->leader_epoch);
      f.EmptyTaggedFields();
    }));
  }
  if (p.snapshot_id) {
    tagged.push_back(EncodeTaggedField(kSnapshotIdTag, [&](Writer& f) {
      f.Int64(p.snapshot_id->end_offset);
      f.Int32(p.snapshot_id->epoch);
      f.EmptyTaggedFields();
    }));
  }
  w.TaggedFields(tagged);
}

FetchResponse::Partition ReadPartitionResponse(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  FetchResponse::Partition p;
  p.partition_index = r.Int32("partition_index");
  p.error_code = r.Int16("error_code");
  p.high_watermark = r.Int64("high_watermark");
  p.last_stable_offset = r.Int64("last_stable_offset");
  if (version >= 5) p.log_start_offset = r.Int64("log_start_offset");
  int32_t na = r.ArrayLength(flexible, "aborted_transactions");
  if (na >= 0 && r.ok()) {
    p.aborted_transactions.emplace();
    for (int32_t i = 0; i < na && r.ok(); ++i) {
      FetchResponse::AbortedTransaction a;
      a.producer_id = r.Int64("producer_id");
      a.first_offset = r.Int64("first_offset");
      if (flexible) r.SkipTaggedFields("aborted_transactions tagged fields");
      p.aborted_transactions->push_back(a);
    }
  }
  if (version >= 11) p.preferred_read_replica = r.Int32("preferred_read_replica");
  p.records = r.NullableBytes(flexible, "records");
  if (!flexible) return p;
  r.ReadTaggedFields("partitions tagged fields", [&](uint32_t tag, Reader& f) {
    switch (tag) {
      case kDivergingEpochTag: {
        FetchResponse::EpochEndOffset e;
        e.epoch = f.Int32("diverging_epoch.epoch");
        e.end_offset = f.Int64("diverging_epoch.end_offset");
        f.SkipTaggedFields("diverging_epoch tagged fields");
        p.diverging_epoch = e;
        break;
      }
      case kCurrentLeaderTag: {
        FetchResponse::LeaderIdAndEpoch l;
        l.leader_id = f.Int32("current_leader.leader_id");
        l.leader_epoch = f.Int32("current_leader.leader_epoch");
        f.SkipTaggedFields("current_leader tagged fields");
        p.current_leader = l;
        break;
      }
      case kSnapshotIdTag: {
        FetchResponse::SnapshotId s;
        s.end_offset = f.Int64("snapshot_id.end_offset");
        s.epoch = f.Int32("snapshot_id.epoch");
        f.SkipTaggedFields("snapshot_id tagged fields");
        p.snapshot_id = s;
        break;
      }
      default:
        break;  // a tag from a newer version: skipped
    }
  });
  return p;
}

}  // namespace

absl::StatusOr<FetchRequest> ReadFetchRequest(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  FetchRequest req;
  req.replica_id = r.Int32("replica_id");
  req.max_wait_ms = r.Int32("max_wait_ms");
  req.min_bytes = r.Int32("min_bytes");
  req.max_bytes = r.Int32("max_bytes");
  req.isolation_level = r.Int8("isolation_level");
  if (version >= 7) {
    req.session_id = r.Int32("session_id");
    req.session_epoch = r.Int32("session_epoch");
  }
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    FetchRequest::Topic t;
    ReadTopicName(r, version, &t.topic, &t.topic_id);
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      FetchRequest::Partition p;
      p.partition = r.Int32("partition");
      if (version >= 9) p.current_leader_epoch = r.Int32("current_leader_epoch");
      p.fetch_offset = r.Int64("fetch_offset");
      if (version >= 12) p.last_fetched_epoch = r.Int32("last_fetched_epoch");
      if (version >= 5) p.log_start_offset = r.Int64("log_start_offset");
      p.partition_max_bytes = r.Int32("partition_max_bytes");
      if (flexible) r.SkipTaggedFields("partitions tagged fields");
      t.partitions.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topics tagged fields");
    req.topics.push_back(std::move(t));
  }
  if (version >= 7) {
    int32_t nf = r.ArrayLength(flexible, "forgotten_topics_data");
    for (int32_t i = 0; i < nf && r.ok(); ++i) {
      FetchRequest::ForgottenTopic t;
      ReadTopicName(r, version, &t.topic, &t.topic_id);
      t.partitions = ReadInt32Array(r, flexible, "partitions");
      if (flexible) r.SkipTaggedFields("forgotten_topics_data tagged fields");
      req.forgotten_topics_data.push_back(std::move(t));
    }
  }
  if (version >= 11) req.rack_id = r.String(flexible, "rack_id");
  if (flexible) {
    r.ReadTaggedFields("FetchRequest tagged fields", [&](uint32_t tag, Reader& f) {
      if (tag == kClusterIdTag) req.cluster_id = f.NullableString(true, "cluster_id");
    });
  }
  if (!r.ok()) return r.status();
  return req;
}

void WriteFetchRequest(const FetchRequest& req, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.Int32(req.replica_id);
  w.Int32(req.max_wait_ms);
  w.Int32(req.min_bytes);
  w.Int32(req.max_bytes);
  w.Int8(req.isolation_level);
  if (version >= 7) {
    w.Int32(req.session_id);
    w.Int32(req.session_epoch);
  }
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    WriteTopicName(t.topic, t.topic_id, version, w);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition);
      if (version >= 9) w.Int32(p.current_leader_epoch);
      w.Int64(p.fetch_offset);
      if (version >= 12) w.Int32(p.last_fetched_epoch);
      if (version >= 5) w.Int64(p.log_start_offset);
      w.Int32(p.partition_max_bytes);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= 7) {
    w.ArrayLength(static_cast<int32_t>(req.forgotten_topics_data.size()), flexible);
    for (const auto& t : req.forgotten_topics_data) {
      WriteTopicName(t.topic, t.topic_id, version, w);
      WriteInt32Array(t.partitions, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (version >= 11) w.String(req.rack_id, flexible);
  if (!flexible) return;
  std::vector<TaggedField> tagged;
  if (req.cluster_id) {
    tagged.push_back(EncodeTaggedField(kClusterIdTag, [&](Writer& f) { f.NullableString(req.cluster_id, true); }));
  }
  w.TaggedFields(tagged);
}

void WriteFetchResponse(const FetchResponse& resp, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  w.Int32(resp.throttle_time_ms);
  if (version >= 7) {
    w.Int16(resp.error_code);
    w.Int32(resp.session_id);
  }
  w.ArrayLength(static_cast<int32_t>(resp.responses.size()), flexible);
  for (const auto& t : resp.responses) {
    WriteTopicName(t.topic, t.topic_id, version, w);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) WritePartitionResponse(p, version, w);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<FetchResponse> ReadFetchResponse(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  FetchResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version >= 7) {
    resp.error_code = r.Int16("error_code");
    resp.session_id = r.Int32("session_id");
  }
  int32_t nt = r.ArrayLength(flexible, "responses");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    FetchResponse::Topic t;
    ReadTopicName(r, version, &t.topic, &t.topic_id);
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) t.partitions.push_back(ReadPartitionResponse(r, version));
    if (flexible) r.SkipTaggedFields("responses tagged fields");
    resp.responses.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("FetchResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
