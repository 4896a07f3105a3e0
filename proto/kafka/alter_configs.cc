#include "proto/kafka/alter_configs.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Incremental(int16_t api_key) { return api_key == static_cast<int16_t>(ApiKey::kIncrementalAlterConfigs); }

}  // namespace

absl::StatusOr<AlterConfigsRequest> ReadAlterConfigsRequest(Reader& r, int16_t api_key, int16_t version) {
  const bool flexible = IsFlexible(api_key, version);
  AlterConfigsRequest req;
  int32_t resources = r.ArrayLength(flexible, "resources");
  for (int32_t i = 0; i < resources && r.ok(); ++i) {
    AlterConfigsRequest::Resource& res = req.resources.emplace_back();
    res.resource_type = r.Int8("resource_type");
    res.resource_name = r.String(flexible, "resource_name");
    int32_t configs = r.ArrayLength(flexible, "configs");
    for (int32_t c = 0; c < configs && r.ok(); ++c) {
      AlterConfigsRequest::Config& config = res.configs.emplace_back();
      config.name = r.String(flexible, "name");
      if (Incremental(api_key)) config.operation = r.Int8("config_operation");
      config.value = r.NullableString(flexible, "value");
      if (flexible) r.SkipTaggedFields("config tagged fields");
    }
    if (flexible) r.SkipTaggedFields("resource tagged fields");
  }
  req.validate_only = r.Bool("validate_only");
  if (flexible) r.SkipTaggedFields("AlterConfigsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAlterConfigsRequest(const AlterConfigsRequest& req, int16_t api_key, int16_t version, Writer& w) {
  const bool flexible = IsFlexible(api_key, version);
  w.ArrayLength(static_cast<int32_t>(req.resources.size()), flexible);
  for (const auto& res : req.resources) {
    w.Int8(res.resource_type);
    w.String(res.resource_name, flexible);
    w.ArrayLength(static_cast<int32_t>(res.configs.size()), flexible);
    for (const auto& config : res.configs) {
      w.String(config.name, flexible);
      if (Incremental(api_key)) w.Int8(config.operation);
      w.NullableString(config.value, flexible);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  w.Bool(req.validate_only);
  if (flexible) w.EmptyTaggedFields();
}

void WriteAlterConfigsResponse(const AlterConfigsResponse& resp, int16_t api_key, int16_t version, Writer& w) {
  const bool flexible = IsFlexible(api_key, version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.responses.size()), flexible);
  for (const auto& res : resp.responses) {
    w.Int16(res.error_code);
    w.NullableString(res.error_message, flexible);
    w.Int8(res.resource_type);
    w.String(res.resource_name, flexible);
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<AlterConfigsResponse> ReadAlterConfigsResponse(Reader& r, int16_t api_key, int16_t version) {
  const bool flexible = IsFlexible(api_key, version);
  AlterConfigsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "responses");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    AlterConfigsResponse::Result& res = resp.responses.emplace_back();
    res.error_code = r.Int16("error_code");
    res.error_message = r.NullableString(flexible, "error_message");
    res.resource_type = r.Int8("resource_type");
    res.resource_name = r.String(flexible, "resource_name");
    if (flexible) r.SkipTaggedFields("response tagged fields");
  }
  if (flexible) r.SkipTaggedFields("AlterConfigsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
