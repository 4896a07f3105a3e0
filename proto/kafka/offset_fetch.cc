#include "proto/kafka/offset_fetch.h"

#include "absl/strings/str_cat.h"
#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kOffsetFetch), version); }

constexpr int16_t kNullTopics = 2;     // the request's topics nullable
constexpr int16_t kTopLevelError = 2;  // the response's error_code
constexpr int16_t kLeaderEpoch = 5;
constexpr int16_t kRequireStable = 7;
constexpr int16_t kBatched = 8;  // groups instead of one group
constexpr int16_t kMember = 9;   // member_id and member_epoch

// A request's topics array; a null array (count -1) reads as nullopt.
std::optional<std::vector<OffsetFetchRequest::Topic>> ReadRequestTopics(Reader& r, bool flexible) {
  int32_t n = r.ArrayLength(flexible, "topics");
  if (n < 0) return std::nullopt;
  std::vector<OffsetFetchRequest::Topic> topics;
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    OffsetFetchRequest::Topic t;
    t.name = r.String(flexible, "name");
    t.partition_indexes = ReadInt32Array(r, flexible, "partition_indexes");
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    topics.push_back(std::move(t));
  }
  return topics;
}

void WriteRequestTopics(const std::optional<std::vector<OffsetFetchRequest::Topic>>& topics, bool nullable,
                        bool flexible, Writer& w) {
  if (!topics) {
    w.ArrayLength(nullable ? -1 : 0, flexible);
    return;
  }
  w.ArrayLength(static_cast<int32_t>(topics->size()), flexible);
  for (const auto& t : *topics) {
    w.String(t.name, flexible);
    WriteInt32Array(t.partition_indexes, flexible, w);
    if (flexible) w.EmptyTaggedFields();
  }
}

std::vector<OffsetFetchResponse::Topic> ReadResponseTopics(Reader& r, int16_t version, bool flexible) {
  std::vector<OffsetFetchResponse::Topic> topics;
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    OffsetFetchResponse::Topic t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      OffsetFetchResponse::Partition p;
      p.partition_index = r.Int32("partition_index");
      p.committed_offset = r.Int64("committed_offset");
      if (version >= kLeaderEpoch) p.committed_leader_epoch = r.Int32("committed_leader_epoch");
      p.metadata = r.NullableString(flexible, "metadata");
      p.error_code = r.Int16("error_code");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    topics.push_back(std::move(t));
  }
  return topics;
}

void WriteResponseTopics(const std::vector<OffsetFetchResponse::Topic>& topics, int16_t version, bool flexible,
                         Writer& w) {
  w.ArrayLength(static_cast<int32_t>(topics.size()), flexible);
  for (const auto& t : topics) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int32(p.partition_index);
      w.Int64(p.committed_offset);
      if (version >= kLeaderEpoch) w.Int32(p.committed_leader_epoch);
      w.NullableString(p.metadata, flexible);
      w.Int16(p.error_code);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
}

}  // namespace

absl::StatusOr<OffsetFetchRequest> ReadOffsetFetchRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  OffsetFetchRequest req;
  if (version < kBatched) {
    req.group_id = r.String(flexible, "group_id");
    req.topics = ReadRequestTopics(r, flexible);
    if (!req.topics && r.ok() && version < kNullTopics) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed request: OffsetFetch v", version, " topics may not be null"));
    }
  } else {
    int32_t n = r.ArrayLength(flexible, "groups");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      OffsetFetchRequest::Group g;
      g.group_id = r.String(flexible, "group_id");
      if (version >= kMember) {
        g.member_id = r.NullableString(flexible, "member_id");
        g.member_epoch = r.Int32("member_epoch");
      }
      g.topics = ReadRequestTopics(r, flexible);
      if (flexible) r.SkipTaggedFields("group tagged fields");
      req.groups.push_back(std::move(g));
    }
  }
  if (version >= kRequireStable) req.require_stable = r.Bool("require_stable");
  if (flexible) r.SkipTaggedFields("OffsetFetchRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteOffsetFetchRequest(const OffsetFetchRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version < kBatched) {
    w.String(req.group_id, flexible);
    WriteRequestTopics(req.topics, version >= kNullTopics, flexible, w);
  } else {
    w.ArrayLength(static_cast<int32_t>(req.groups.size()), flexible);
    for (const auto& g : req.groups) {
      w.String(g.group_id, flexible);
      if (version >= kMember) {
        w.NullableString(g.member_id, flexible);
        w.Int32(g.member_epoch);
      }
      WriteRequestTopics(g.topics, /*nullable=*/true, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (version >= kRequireStable) w.Bool(req.require_stable);
  if (flexible) w.EmptyTaggedFields();
}

void WriteOffsetFetchResponse(const OffsetFetchResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 3) w.Int32(resp.throttle_time_ms);
  if (version < kBatched) {
    WriteResponseTopics(resp.topics, version, flexible, w);
    if (version >= kTopLevelError) w.Int16(resp.error_code);
  } else {
    w.ArrayLength(static_cast<int32_t>(resp.groups.size()), flexible);
    for (const auto& g : resp.groups) {
      w.String(g.group_id, flexible);
      WriteResponseTopics(g.topics, version, flexible, w);
      w.Int16(g.error_code);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<OffsetFetchResponse> ReadOffsetFetchResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  OffsetFetchResponse resp;
  if (version >= 3) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version < kBatched) {
    resp.topics = ReadResponseTopics(r, version, flexible);
    if (version >= kTopLevelError) resp.error_code = r.Int16("error_code");
  } else {
    int32_t n = r.ArrayLength(flexible, "groups");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      OffsetFetchResponse::Group g;
      g.group_id = r.String(flexible, "group_id");
      g.topics = ReadResponseTopics(r, version, flexible);
      g.error_code = r.Int16("error_code");
      if (flexible) r.SkipTaggedFields("group tagged fields");
      resp.groups.push_back(std::move(g));
    }
  }
  if (flexible) r.SkipTaggedFields("OffsetFetchResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
