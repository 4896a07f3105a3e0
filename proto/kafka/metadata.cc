#include "proto/kafka/metadata.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFlexible = 9;
}  // namespace

absl::StatusOr<MetadataRequest> ReadMetadataRequest(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  MetadataRequest req;
  int32_t n = r.ArrayLength(flexible, "topics");
  if (n >= 0 && !(version == 0 && n == 0)) {
    req.topics.emplace();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      MetadataRequest::Topic t;
      if (version >= 10) {
        t.topic_id = r.Uuid("topic_id");
        t.name = r.NullableString(flexible, "name");
      } else {
        t.name = r.String(flexible, "name");
      }
      if (flexible) r.SkipTaggedFields("topic tagged fields");
      req.topics->push_back(std::move(t));
    }
  } else if (n < 0 && version == 0) {
    return absl::InvalidArgumentError("malformed request: Metadata v0 topics may not be null");
  }
  if (version >= 4) req.allow_auto_topic_creation = r.Bool("allow_auto_topic_creation");
  if (version >= 8 && version <= 10) req.include_cluster_authorized_operations = r.Bool("include_cluster_authorized_operations");
  if (version >= 8) req.include_topic_authorized_operations = r.Bool("include_topic_authorized_operations");
  if (flexible) r.SkipTaggedFields("MetadataRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteMetadataRequest(const MetadataRequest& req, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  if (!req.topics) {
    w.ArrayLength(version == 0 ? 0 : -1, flexible);
  } else {
    w.ArrayLength(static_cast<int32_t>(req.topics->size()), flexible);
    for (const auto& t : *req.topics) {
      if (version >= 10) {
        w.Uuid(t.topic_id);
        w.NullableString(t.name, flexible);
      } else {
        w.String(t.name.value_or(""), flexible);
      }
      if (flexible) w.EmptyTaggedFields();
    }
  }
  if (version >= 4) w.Bool(req.allow_auto_topic_creation);
  if (version >= 8 && version <= 10) w.Bool(req.include_cluster_authorized_operations);
  if (version >= 8) w.Bool(req.include_topic_authorized_operations);
  if (flexible) w.EmptyTaggedFields();
}

void WriteMetadataResponse(const MetadataResponse& resp, int16_t version, Writer& w) {
  bool flexible = version >= kFlexible;
  if (version >= 3) w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.brokers.size()), flexible);
  for (const auto& b : resp.brokers) {
    w.Int32(b.node_id);
    w.String(b.host, flexible);
    w.Int32(b.port);
    if (version >= 1) w.NullableString(b.rack, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= 2) w.NullableString(resp.cluster_id, flexible);
  if (version >= 1) w.Int32(resp.controller_id);
  w.ArrayLength(static_cast<int32_t>(resp.topics.size()), flexible);
  for (const auto& t : resp.topics) {
    w.Int16(t.error_code);
    if (version >= 12) {
      w.NullableString(t.name, flexible);
    } else {
      w.String(t.name.value_or(""), flexible);
    }
    if (version >= 10) w.Uuid(t.topic_id);
    if (version >= 1) w.Bool(t.is_internal);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), flexible);
    for (const auto& p : t.partitions) {
      w.Int16(p.error_code);
      w.Int32(p.partition_index);
      w.Int32(p.leader_id);
      if (version >= 7) w.Int32(p.leader_epoch);
      WriteInt32Array(p.replica_nodes, flexible, w);
      WriteInt32Array(p.isr_nodes, flexible, w);
      if (version >= 5) WriteInt32Array(p.offline_replicas, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
    if (version >= 8) w.Int32(t.topic_authorized_operations);
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= 8 && version <= 10) w.Int32(resp.cluster_authorized_operations);
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<MetadataResponse> ReadMetadataResponse(Reader& r, int16_t version) {
  bool flexible = version >= kFlexible;
  MetadataResponse resp;
  if (version >= 3) resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t nb = r.ArrayLength(flexible, "brokers");
  for (int32_t i = 0; i < nb && r.ok(); ++i) {
    MetadataResponse::Broker b;
    b.node_id = r.Int32("node_id");
    b.host = r.String(flexible, "host");
    b.port = r.Int32("port");
    if (version >= 1) b.rack = r.NullableString(flexible, "rack");
    if (flexible) r.SkipTaggedFields("broker tagged fields");
    resp.brokers.push_back(std::move(b));
  }
  if (version >= 2) resp.cluster_id = r.NullableString(flexible, "cluster_id");
  if (version >= 1) resp.controller_id = r.Int32("controller_id");
  int32_t nt = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    MetadataResponse::Topic t;
    t.error_code = r.Int16("error_code");
    t.name = version >= 12 ? r.NullableString(flexible, "name") : std::optional<std::string>(r.String(flexible, "name"));
    if (version >= 10) t.topic_id = r.Uuid("topic_id");
    if (version >= 1) t.is_internal = r.Bool("is_internal");
    int32_t np = r.ArrayLength(flexible, "partitions");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      MetadataResponse::Partition p;
      p.error_code = r.Int16("error_code");
      p.partition_index = r.Int32("partition_index");
      p.leader_id = r.Int32("leader_id");
      if (version >= 7) p.leader_epoch = r.Int32("leader_epoch");
      p.replica_nodes = ReadInt32Array(r, flexible, "replica_nodes");
      p.isr_nodes = ReadInt32Array(r, flexible, "isr_nodes");
      if (version >= 5) p.offline_replicas = ReadInt32Array(r, flexible, "offline_replicas");
      if (flexible) r.SkipTaggedFields("partition tagged fields");
      t.partitions.push_back(std::move(p));
    }
    if (version >= 8) t.topic_authorized_operations = r.Int32("topic_authorized_operations");
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    resp.topics.push_back(std::move(t));
  }
  if (version >= 8 && version <= 10) resp.cluster_authorized_operations = r.Int32("cluster_authorized_operations");
  if (flexible) r.SkipTaggedFields("MetadataResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
