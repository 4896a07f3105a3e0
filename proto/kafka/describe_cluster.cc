#include "proto/kafka/describe_cluster.h"

namespace strata::proto::kafka {

// Every version is flexible.

absl::StatusOr<DescribeClusterRequest> ReadDescribeClusterRequest(Reader& r, int16_t version) {
  DescribeClusterRequest req;
  req.include_cluster_authorized_operations = r.Bool("include_cluster_authorized_operations");
  if (version >= 1) req.endpoint_type = r.Int8("endpoint_type");
  r.SkipTaggedFields("DescribeClusterRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeClusterRequest(const DescribeClusterRequest& req, int16_t version, Writer& w) {
  w.Bool(req.include_cluster_authorized_operations);
  if (version >= 1) w.Int8(req.endpoint_type);
  w.EmptyTaggedFields();
}

void WriteDescribeClusterResponse(const DescribeClusterResponse& resp, int16_t version, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, true);
  if (version >= 1) w.Int8(resp.endpoint_type);
  w.String(resp.cluster_id, true);
  w.Int32(resp.controller_id);
  w.ArrayLength(static_cast<int32_t>(resp.brokers.size()), true);
  for (const auto& b : resp.brokers) {
    w.Int32(b.broker_id);
    w.String(b.host, true);
    w.Int32(b.port);
    w.NullableString(b.rack, true);
    w.EmptyTaggedFields();
  }
  w.Int32(resp.cluster_authorized_operations);
  w.EmptyTaggedFields();
}

absl::StatusOr<DescribeClusterResponse> ReadDescribeClusterResponse(Reader& r, int16_t version) {
  DescribeClusterResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(true, "error_message");
  if (version >= 1) resp.endpoint_type = r.Int8("endpoint_type");
  resp.cluster_id = r.String(true, "cluster_id");
  resp.controller_id = r.Int32("controller_id");
  int32_t n = r.ArrayLength(true, "brokers");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DescribeClusterResponse::Broker b;
    b.broker_id = r.Int32("broker_id");
    b.host = r.String(true, "host");
    b.port = r.Int32("port");
    b.rack = r.NullableString(true, "rack");
    r.SkipTaggedFields("broker tagged fields");
    resp.brokers.push_back(std::move(b));
  }
  resp.cluster_authorized_operations = r.Int32("cluster_authorized_operations");
  r.SkipTaggedFields("DescribeClusterResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
