#include "proto/kafka/partition_reassignments.h"

#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;            // both APIs, every version
constexpr int16_t kAllowFactorChange = 1;   // AlterPartitionReassignments v1 (KIP-860)

// Reads an array of `n` items with read_one(item), each followed by its tagged fields.
template <typename T, typename ReadOne>
std::vector<T> ReadItems(Reader& r, const char* field, ReadOne read_one) {
  std::vector<T> items;
  int32_t n = r.ArrayLength(kFlexible, field);
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    T item;
    read_one(item);
    r.SkipTaggedFields(field);
    items.push_back(std::move(item));
  }
  return items;
}

template <typename T, typename WriteOne>
void WriteItems(const std::vector<T>& items, Writer& w, WriteOne write_one) {
  w.ArrayLength(static_cast<int32_t>(items.size()), kFlexible);
  for (const T& item : items) {
    write_one(item);
    w.EmptyTaggedFields();
  }
}

}  // namespace

absl::StatusOr<AlterPartitionReassignmentsRequest> ReadAlterPartitionReassignmentsRequest(Reader& r,
                                                                                         int16_t version) {
  using Request = AlterPartitionReassignmentsRequest;
  Request req;
  req.timeout_ms = r.Int32("timeout_ms");
  if (version >= kAllowFactorChange) req.allow_replication_factor_change = r.Bool("allow_replication_factor_change");
  req.topics = ReadItems<Request::Topic>(r, "topics", [&](Request::Topic& t) {
    t.name = r.String(kFlexible, "name");
    t.partitions = ReadItems<Request::Partition>(r, "partitions", [&](Request::Partition& p) {
      p.partition_index = r.Int32("partition_index");
      p.replicas = ReadNullableInt32Array(r, kFlexible, "replicas");
    });
  });
  r.SkipTaggedFields("AlterPartitionReassignmentsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAlterPartitionReassignmentsRequest(const AlterPartitionReassignmentsRequest& req, int16_t version,
                                             Writer& w) {
  using Request = AlterPartitionReassignmentsRequest;
  w.Int32(req.timeout_ms);
  if (version >= kAllowFactorChange) w.Bool(req.allow_replication_factor_change);
  WriteItems(req.topics, w, [&](const Request::Topic& t) {
    w.String(t.name, kFlexible);
    WriteItems(t.partitions, w, [&](const Request::Partition& p) {
      w.Int32(p.partition_index);
      WriteNullableInt32Array(p.replicas, kFlexible, w);
    });
  });
  w.EmptyTaggedFields();
}

void WriteAlterPartitionReassignmentsResponse(const AlterPartitionReassignmentsResponse& resp, int16_t version,
                                              Writer& w) {
  using Response = AlterPartitionReassignmentsResponse;
  w.Int32(resp.throttle_time_ms);
  if (version >= kAllowFactorChange) w.Bool(resp.allow_replication_factor_change);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  WriteItems(resp.responses, w, [&](const Response::Topic& t) {
    w.String(t.name, kFlexible);
    WriteItems(t.partitions, w, [&](const Response::Partition& p) {
      w.Int32(p.partition_index);
      w.Int16(p.error_code);
      w.NullableString(p.error_message, kFlexible);
    });
  });
  w.EmptyTaggedFields();
}

absl::StatusOr<AlterPartitionReassignmentsResponse> ReadAlterPartitionReassignmentsResponse(Reader& r,
                                                                                           int16_t version) {
  using Response = AlterPartitionReassignmentsResponse;
  Response resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version >= kAllowFactorChange) resp.allow_replication_factor_change = r.Bool("allow_replication_factor_change");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  resp.responses = ReadItems<Response::Topic>(r, "responses", [&](Response::Topic& t) {
    t.name = r.String(kFlexible, "name");
    t.partitions = ReadItems<Response::Partition>(r, "partitions", [&](Response::Partition& p) {
      p.partition_index = r.Int32("partition_index");
      p.error_code = r.Int16("error_code");
      p.error_message = r.NullableString(kFlexible, "error_message");
    });
  });
  r.SkipTaggedFields("AlterPartitionReassignmentsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

absl::StatusOr<ListPartitionReassignmentsRequest> ReadListPartitionReassignmentsRequest(Reader& r, int16_t) {
  using Request = ListPartitionReassignmentsRequest;
  Request req;
  req.timeout_ms = r.Int32("timeout_ms");
  int32_t n = r.ArrayLength(kFlexible, "topics");
  if (n >= 0) {
    req.topics.emplace();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      Request::Topic t;
      t.name = r.String(kFlexible, "name");
      t.partition_indexes = ReadInt32Array(r, kFlexible, "partition_indexes");
      r.SkipTaggedFields("topics");
      req.topics->push_back(std::move(t));
    }
  }
  r.SkipTaggedFields("ListPartitionReassignmentsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteListPartitionReassignmentsRequest(const ListPartitionReassignmentsRequest& req, int16_t, Writer& w) {
  using Request = ListPartitionReassignmentsRequest;
  w.Int32(req.timeout_ms);
  if (!req.topics) {
    w.ArrayLength(-1, kFlexible);
  } else {
    WriteItems(*req.topics, w, [&](const Request::Topic& t) {
      w.String(t.name, kFlexible);
      WriteInt32Array(t.partition_indexes, kFlexible, w);
    });
  }
  w.EmptyTaggedFields();
}

void WriteListPartitionReassignmentsResponse(const ListPartitionReassignmentsResponse& resp, int16_t, Writer& w) {
  using Response = ListPartitionReassignmentsResponse;
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  WriteItems(resp.topics, w, [&](const Response::Topic& t) {
    w.String(t.name, kFlexible);
    WriteItems(t.partitions, w, [&](const Response::Partition& p) {
      w.Int32(p.partition_index);
      WriteInt32Array(p.replicas, kFlexible, w);
      WriteInt32Array(p.adding_replicas, kFlexible, w);
      WriteInt32Array(p.removing_replicas, kFlexible, w);
    });
  });
  w.EmptyTaggedFields();
}

absl::StatusOr<ListPartitionReassignmentsResponse> ReadListPartitionReassignmentsResponse(Reader& r, int16_t) {
  using Response = ListPartitionReassignmentsResponse;
  Response resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  resp.topics = ReadItems<Response::Topic>(r, "topics", [&](Response::Topic& t) {
    t.name = r.String(kFlexible, "name");
    t.partitions = ReadItems<Response::Partition>(r, "partitions", [&](Response::Partition& p) {
      p.partition_index = r.Int32("partition_index");
      p.replicas = ReadInt32Array(r, kFlexible, "replicas");
      p.adding_replicas = ReadInt32Array(r, kFlexible, "adding_replicas");
      p.removing_replicas = ReadInt32Array(r, kFlexible, "removing_replicas");
    });
  });
  r.SkipTaggedFields("ListPartitionReassignmentsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
