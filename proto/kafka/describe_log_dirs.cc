#include "proto/kafka/describe_log_dirs.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr int16_t kTopLevelError = 3;
constexpr int16_t kVolumeBytes = 4;
constexpr int16_t kCordoned = 5;

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kDescribeLogDirs), version); }

}  // namespace

absl::StatusOr<DescribeLogDirsRequest> ReadDescribeLogDirsRequest(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  DescribeLogDirsRequest req;
  int32_t n = r.ArrayLength(flexible, "topics");
  if (n >= 0) {
    req.topics.emplace();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      DescribeLogDirsRequest::Topic& t = req.topics->emplace_back();
      t.topic = r.String(flexible, "topic");
      t.partitions = ReadInt32Array(r, flexible, "partitions");
      if (flexible) r.SkipTaggedFields("topic tagged fields");
    }
  }
  if (flexible) r.SkipTaggedFields("DescribeLogDirsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeLogDirsRequest(const DescribeLogDirsRequest& req, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  if (!req.topics) {
    w.ArrayLength(-1, flexible);
  } else {
    w.ArrayLength(static_cast<int32_t>(req.topics->size()), flexible);
    for (const auto& t : *req.topics) {
      w.String(t.topic, flexible);
      WriteInt32Array(t.partitions, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteDescribeLogDirsResponse(const DescribeLogDirsResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  if (version >= kTopLevelError) w.Int16(resp.error_code);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
  for (const auto& result : resp.results) {
    w.Int16(result.error_code);
    w.String(result.log_dir, flexible);
    w.ArrayLength(static_cast<int32_t>(result.topics.size()), flexible);
    for (const auto& topic : result.topics) {
      w.String(topic.name, flexible);
      w.ArrayLength(static_cast<int32_t>(topic.partitions.size()), flexible);
      for (const auto& p : topic.partitions) {
        w.Int32(p.partition_index);
        w.Int64(p.partition_size);
        w.Int64(p.offset_lag);
        w.Bool(p.is_future_key);
        if (flexible) w.EmptyTaggedFields();
      }
      if (flexible) w.EmptyTaggedFields();
    }
    if (version >= kVolumeBytes) {
      w.Int64(result.total_bytes);
      w.Int64(result.usable_bytes);
    }
    if (version >= kCordoned) w.Bool(result.is_cordoned);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<DescribeLogDirsResponse> ReadDescribeLogDirsResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  DescribeLogDirsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version >= kTopLevelError) resp.error_code = r.Int16("error_code");
  int32_t results = r.ArrayLength(flexible, "results");
  for (int32_t i = 0; i < results && r.ok(); ++i) {
    DescribeLogDirsResponse::Result& result = resp.results.emplace_back();
    result.error_code = r.Int16("error_code");
    result.log_dir = r.String(flexible, "log_dir");
    int32_t topics = r.ArrayLength(flexible, "topics");
    for (int32_t t = 0; t < topics && r.ok(); ++t) {
      DescribeLogDirsResponse::Topic& topic = result.topics.emplace_back();
      topic.name = r.String(flexible, "name");
      int32_t partitions = r.ArrayLength(flexible, "partitions");
      for (int32_t p = 0; p < partitions && r.ok(); ++p) {
        DescribeLogDirsResponse::Partition& partition = topic.partitions.emplace_back();
        partition.partition_index = r.Int32("partition_index");
        partition.partition_size = r.Int64("partition_size");
        partition.offset_lag = r.Int64("offset_lag");
        partition.is_future_key = r.Bool("is_future_key");
        if (flexible) r.SkipTaggedFields("partition tagged fields");
      }
      if (flexible) r.SkipTaggedFields("topic tagged fields");
    }
    if (version >= kVolumeBytes) {
      result.total_bytes = r.Int64("total_bytes");
      result.usable_bytes = r.Int64("usable_bytes");
    }
    if (version >= kCordoned) result.is_cordoned = r.Bool("is_cordoned");
    if (flexible) r.SkipTaggedFields("result tagged fields");
  }
  if (flexible) r.SkipTaggedFields("DescribeLogDirsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
