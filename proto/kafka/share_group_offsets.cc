#include "proto/kafka/share_group_offsets.h"

#include <utility>

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // every version
constexpr int16_t kLag = 1;       // DescribeShareGroupOffsets' lag

enum class TopicResult { kPartitions, kError };  // Alter's topics hold partitions, Delete's an error

void WriteOffsetsResponse(const ShareGroupOffsetsResponse& resp, TopicResult kind, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  w.ArrayLength(static_cast<int32_t>(resp.responses.size()), kFlexible);
  for (const ShareGroupOffsetsTopicResult& t : resp.responses) {
    w.String(t.topic_name, kFlexible);
    w.Uuid(t.topic_id);
    if (kind == TopicResult::kPartitions) {
      w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
      for (const ShareGroupOffsetsTopicResult::Partition& p : t.partitions) {
        w.Int32(p.partition_index);
        w.Int16(p.error_code);
        w.NullableString(p.error_message, kFlexible);
        w.EmptyTaggedFields();
      }
    } else {
      w.Int16(t.error_code);
      w.NullableString(t.error_message, kFlexible);
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<ShareGroupOffsetsResponse> ReadOffsetsResponse(Reader& r, TopicResult kind) {
  ShareGroupOffsetsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  int32_t n = r.ArrayLength(kFlexible, "responses");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    ShareGroupOffsetsTopicResult t;
    t.topic_name = r.String(kFlexible, "topic_name");
    t.topic_id = r.Uuid("topic_id");
    if (kind == TopicResult::kPartitions) {
      int32_t np = r.ArrayLength(kFlexible, "partitions");
      for (int32_t j = 0; r.ok() && j < np; ++j) {
        ShareGroupOffsetsTopicResult::Partition p;
        p.partition_index = r.Int32("partition_index");
        p.error_code = r.Int16("error_code");
        p.error_message = r.NullableString(kFlexible, "error_message");
        r.SkipTaggedFields("partition tagged fields");
        t.partitions.push_back(std::move(p));
      }
    } else {
      t.error_code = r.Int16("error_code");
      t.error_message = r.NullableString(kFlexible, "error_message");
    }
    r.SkipTaggedFields("topic tagged fields");
    resp.responses.push_back(std::move(t));
  }
  r.SkipTaggedFields("response tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace

// ---- DescribeShareGroupOffsets -------------------------------------------------------------

absl::StatusOr<DescribeShareGroupOffsetsRequest> ReadDescribeShareGroupOffsetsRequest(Reader& r, int16_t /*version*/) {
  DescribeShareGroupOffsetsRequest req;
  int32_t n = r.ArrayLength(kFlexible, "groups");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    DescribeShareGroupOffsetsRequest::Group g;
    g.group_id = r.String(kFlexible, "group_id");
    int32_t nt = r.ArrayLength(kFlexible, "topics");
    if (nt >= 0) {
      g.topics.emplace();
      for (int32_t j = 0; r.ok() && j < nt; ++j) {
        DescribeShareGroupOffsetsRequest::Topic t;
        t.topic_name = r.String(kFlexible, "topic_name");
        t.partitions = ReadInt32Array(r, kFlexible, "partitions");
        r.SkipTaggedFields("topic tagged fields");
        g.topics->push_back(std::move(t));
      }
    }
    r.SkipTaggedFields("group tagged fields");
    req.groups.push_back(std::move(g));
  }
  r.SkipTaggedFields("request tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeShareGroupOffsetsRequest(const DescribeShareGroupOffsetsRequest& req, int16_t /*version*/,
                                           Writer& w) {
  w.ArrayLength(static_cast<int32_t>(req.groups.size()), kFlexible);
  for (const DescribeShareGroupOffsetsRequest::Group& g : req.groups) {
    w.String(g.group_id, kFlexible);
    if (g.topics) {
      w.ArrayLength(static_cast<int32_t>(g.topics->size()), kFlexible);
      for (const DescribeShareGroupOffsetsRequest::Topic& t : *g.topics) {
        w.String(t.topic_name, kFlexible);
        WriteInt32Array(t.partitions, kFlexible, w);
        w.EmptyTaggedFields();
      }
    } else {
      w.ArrayLength(-1, kFlexible);
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteDescribeShareGroupOffsetsResponse(const DescribeShareGroupOffsetsResponse& resp, int16_t version,
                                            Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.groups.size()), kFlexible);
  for (const DescribeShareGroupOffsetsResponse::Group& g : resp.groups) {
    w.String(g.group_id, kFlexible);
    w.ArrayLength(static_cast<int32_t>(g.topics.size()), kFlexible);
    for (const DescribeShareGroupOffsetsResponse::Topic& t : g.topics) {
      w.String(t.topic_name, kFlexible);
      w.Uuid(t.topic_id);
      w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
      for (const DescribeShareGroupOffsetsResponse::Partition& p : t.partitions) {
        w.Int32(p.partition_index);
        w.Int64(p.start_offset);
        w.Int32(p.leader_epoch);
        if (version >= kLag) w.Int64(p.lag);
        w.Int16(p.error_code);
        w.NullableString(p.error_message, kFlexible);
        w.EmptyTaggedFields();
      }
      w.EmptyTaggedFields();
    }
    w.Int16(g.error_code);
    w.NullableString(g.error_message, kFlexible);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<DescribeShareGroupOffsetsResponse> ReadDescribeShareGroupOffsetsResponse(Reader& r, int16_t version) {
  DescribeShareGroupOffsetsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(kFlexible, "groups");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    DescribeShareGroupOffsetsResponse::Group g;
    g.group_id = r.String(kFlexible, "group_id");
    int32_t nt = r.ArrayLength(kFlexible, "topics");
    for (int32_t j = 0; r.ok() && j < nt; ++j) {
      DescribeShareGroupOffsetsResponse::Topic t;
      t.topic_name = r.String(kFlexible, "topic_name");
      t.topic_id = r.Uuid("topic_id");
      int32_t np = r.ArrayLength(kFlexible, "partitions");
      for (int32_t k = 0; r.ok() && k < np; ++k) {
        DescribeShareGroupOffsetsResponse::Partition p;
        p.partition_index = r.Int32("partition_index");
        p.start_offset = r.Int64("start_offset");
        p.leader_epoch = r.Int32("leader_epoch");
        if (version >= kLag) p.lag = r.Int64("lag");
        p.error_code = r.Int16("error_code");
        p.error_message = r.NullableString(kFlexible, "error_message");
        r.SkipTaggedFields("partition tagged fields");
        t.partitions.push_back(std::move(p));
      }
      r.SkipTaggedFields("topic tagged fields");
      g.topics.push_back(std::move(t));
    }
    g.error_code = r.Int16("error_code");
    g.error_message = r.NullableString(kFlexible, "error_message");
    r.SkipTaggedFields("group tagged fields");
    resp.groups.push_back(std::move(g));
  }
  r.SkipTaggedFields("response tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

// ---- AlterShareGroupOffsets ----------------------------------------------------------------

absl::StatusOr<AlterShareGroupOffsetsRequest> ReadAlterShareGroupOffsetsRequest(Reader& r, int16_t /*version*/) {
  AlterShareGroupOffsetsRequest req;
  req.group_id = r.String(kFlexible, "group_id");
  int32_t nt = r.ArrayLength(kFlexible, "topics");
  for (int32_t i = 0; r.ok() && i < nt; ++i) {
    AlterShareGroupOffsetsRequest::Topic t;
    t.topic_name = r.String(kFlexible, "topic_name");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; r.ok() && j < np; ++j) {
      AlterShareGroupOffsetsRequest::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.start_offset = r.Int64("start_offset");
      r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(p);
    }
    r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  r.SkipTaggedFields("request tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAlterShareGroupOffsetsRequest(const AlterShareGroupOffsetsRequest& req, int16_t /*version*/, Writer& w) {
  w.String(req.group_id, kFlexible);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), kFlexible);
  for (const AlterShareGroupOffsetsRequest::Topic& t : req.topics) {
    w.String(t.topic_name, kFlexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const AlterShareGroupOffsetsRequest::Partition& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int64(p.start_offset);
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteAlterShareGroupOffsetsResponse(const ShareGroupOffsetsResponse& resp, int16_t /*version*/, Writer& w) {
  WriteOffsetsResponse(resp, TopicResult::kPartitions, w);
}

absl::StatusOr<ShareGroupOffsetsResponse> ReadAlterShareGroupOffsetsResponse(Reader& r, int16_t /*version*/) {
  return ReadOffsetsResponse(r, TopicResult::kPartitions);
}

// ---- DeleteShareGroupOffsets ---------------------------------------------------------------

absl::StatusOr<DeleteShareGroupOffsetsRequest> ReadDeleteShareGroupOffsetsRequest(Reader& r, int16_t /*version*/) {
  DeleteShareGroupOffsetsRequest req;
  req.group_id = r.String(kFlexible, "group_id");
  int32_t nt = r.ArrayLength(kFlexible, "topics");
  for (int32_t i = 0; r.ok() && i < nt; ++i) {
    req.topic_names.push_back(r.String(kFlexible, "topic_name"));
    r.SkipTaggedFields("topic tagged fields");
  }
  r.SkipTaggedFields("request tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDeleteShareGroupOffsetsRequest(const DeleteShareGroupOffsetsRequest& req, int16_t /*version*/, Writer& w) {
  w.String(req.group_id, kFlexible);
  w.ArrayLength(static_cast<int32_t>(req.topic_names.size()), kFlexible);
  for (const std::string& name : req.topic_names) {
    w.String(name, kFlexible);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteDeleteShareGroupOffsetsResponse(const ShareGroupOffsetsResponse& resp, int16_t /*version*/, Writer& w) {
  WriteOffsetsResponse(resp, TopicResult::kError, w);
}

absl::StatusOr<ShareGroupOffsetsResponse> ReadDeleteShareGroupOffsetsResponse(Reader& r, int16_t /*version*/) {
  return ReadOffsetsResponse(r, TopicResult::kError);
}

}  // namespace strata::proto::kafka
