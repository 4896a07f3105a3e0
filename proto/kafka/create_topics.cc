#include "proto/kafka/create_topics.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kCreateTopics), version); }

constexpr uint32_t kTopicConfigErrorCodeTag = 0;

}  // namespace

absl::StatusOr<CreateTopicsRequest> ReadCreateTopicsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  CreateTopicsRequest req;
  int32_t n = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    CreateTopicsRequest::Topic t;
    t.name = r.String(flexible, "name");
    t.num_partitions = r.Int32("num_partitions");
    t.replication_factor = r.Int16("replication_factor");
    int32_t na = r.ArrayLength(flexible, "assignments");
    for (int32_t j = 0; j < na && r.ok(); ++j) {
      CreateTopicsRequest::Assignment a;
      a.partition_index = r.Int32("partition_index");
      a.broker_ids = ReadInt32Array(r, flexible, "broker_ids");
      if (flexible) r.SkipTaggedFields("assignment tagged fields");
      t.assignments.push_back(std::move(a));
    }
    int32_t nc = r.ArrayLength(flexible, "configs");
    for (int32_t j = 0; j < nc && r.ok(); ++j) {
      CreateTopicsRequest::Config c;
      c.name = r.String(flexible, "config name");
      c.value = r.NullableString(flexible, "config value");
      if (flexible) r.SkipTaggedFields("config tagged fields");
      t.configs.push_back(std::move(c));
    }
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    req.topics.push_back(std::move(t));
  }
  req.timeout_ms = r.Int32("timeout_ms");
  if (version >= 1) req.validate_only = r.Bool("validate_only");
  if (flexible) r.SkipTaggedFields("CreateTopicsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteCreateTopicsRequest(const CreateTopicsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.topics.size()), flexible);
  for (const auto& t : req.topics) {
    w.String(t.name, flexible);
    w.Int32(t.num_partitions);
    w.Int16(t.replication_factor);
    w.ArrayLength(static_cast<int32_t>(t.assignments.size()), flexible);
    for (const auto& a : t.assignments) {
      w.Int32(a.partition_index);
      WriteInt32Array(a.broker_ids, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
    w.ArrayLength(static_cast<int32_t>(t.configs.size()), flexible);
    for (const auto& c : t.configs) {
      w.String(c.name, flexible);
      w.NullableString(c.value, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  w.Int32(req.timeout_ms);
  if (version >= 1) w.Bool(req.validate_only);
  if (flexible) w.EmptyTaggedFields();
}

void WriteCreateTopicsResponse(const CreateTopicsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= 2) w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& t : resp.topics) {
    w.String(t.name, flexible);
    if (version >= 7) w.Uuid(t.topic_id);
    w.Int16(t.error_code);
    if (version >= 1) w.NullableString(t.error_message, flexible);
    if (version >= 5) {
      w.Int32(t.num_partitions);
      w.Int16(t.replication_factor);
      if (!t.configs) {
        w.ArrayLength(-1, flexible);
      } else {
        w.ArrayLength(static_cast<int32_t>(t.configs->size()), flexible);
        for (const auto& c : *t.configs) {
          w.String(c.name, flexible);
          w.NullableString(c.value, flexible);
          w.Bool(c.read_only);
          w.Int8(c.config_source);
          w.Bool(c.is_sensitive);
          if (flexible) w.EmptyTaggedFields();
        }
      }
    }
    if (flexible) {
      std::vector<TaggedField> tagged;
      if (t.topic_config_error_code) {
        std::string code;
        Writer(&code).Int16(*t.topic_config_error_code);
        tagged.push_back({kTopicConfigErrorCodeTag, std::move(code)});
      }
      w.TaggedFields(tagged);
    }
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<CreateTopicsResponse> ReadCreateTopicsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  CreateTopicsResponse resp;
  if (version >= 2) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    CreateTopicsResponse::Topic t;
    t.name = r.String(flexible, "name");
    if (version >= 7) t.topic_id = r.Uuid("topic_id");
    t.error_code = r.Int16("error_code");
    if (version >= 1) t.error_message = r.NullableString(flexible, "error_message");
    if (version >= 5) {
      t.num_partitions = r.Int32("num_partitions");
      t.replication_factor = r.Int16("replication_factor");
      int32_t nc = r.ArrayLength(flexible, "configs");
      if (nc < 0) {
        t.configs.reset();
      } else {
        for (int32_t j = 0; j < nc && r.ok(); ++j) {
          CreateTopicsResponse::Config c;
          c.name = r.String(flexible, "config name");
          c.value = r.NullableString(flexible, "config value");
          c.read_only = r.Bool("read_only");
          c.config_source = r.Int8("config_source");
          c.is_sensitive = r.Bool("is_sensitive");
          if (flexible) r.SkipTaggedFields("config tagged fields");
          t.configs->push_back(std::move(c));
        }
      }
    }
    if (flexible) {
      r.ReadTaggedFields("topic tagged fields", [&](uint32_t tag, Reader& field) {
        if (tag == kTopicConfigErrorCodeTag) t.topic_config_error_code = field.Int16("topic_config_error_code");
      });
    }
    resp.topics.push_back(std::move(t));
  }
  if (flexible) r.SkipTaggedFields("CreateTopicsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
