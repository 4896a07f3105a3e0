#include "proto/kafka/describe_configs.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kDescribeConfigs), version); }

}  // namespace

absl::StatusOr<DescribeConfigsRequest> ReadDescribeConfigsRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DescribeConfigsRequest req;
  int32_t n = r.ArrayLength(flexible, "resources");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DescribeConfigsRequest::Resource res;
    res.resource_type = r.Int8("resource_type");
    res.resource_name = r.String(flexible, "resource_name");
    res.configuration_keys = ReadNullableStringArray(r, flexible, "configuration_keys");
    if (flexible) r.SkipTaggedFields("resource tagged fields");
    req.resources.push_back(std::move(res));
  }
  if (version >= 1) req.include_synonyms = r.Bool("include_synonyms");
  if (version >= 3) req.include_documentation = r.Bool("include_documentation");
  if (flexible) r.SkipTaggedFields("DescribeConfigsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeConfigsRequest(const DescribeConfigsRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.ArrayLength(static_cast<int32_t>(req.resources.size()), flexible);
  for (const auto& res : req.resources) {
    w.Int8(res.resource_type);
    w.String(res.resource_name, flexible);
    WriteNullableStringArray(res.configuration_keys, flexible, w);
    if (flexible) w.EmptyTaggedFields();
  }
  if (version >= 1) w.Bool(req.include_synonyms);
  if (version >= 3) w.Bool(req.include_documentation);
  if (flexible) w.EmptyTaggedFields();
}

void WriteDescribeConfigsResponse(const DescribeConfigsResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
  for (const auto& res : resp.results) {
    w.Int16(res.error_code);
    w.NullableString(res.error_message, flexible);
    w.Int8(res.resource_type);
    w.String(res.resource_name, flexible);
    w.ArrayLength(static_cast<int32_t>(res.configs.size()), flexible);
    for (const auto& c : res.configs) {
      w.String(c.name, flexible);
      w.NullableString(c.value, flexible);
      w.Bool(c.read_only);
      if (version == 0) w.Bool(c.is_default);
      if (version >= 1) w.Int8(c.config_source);
      w.Bool(c.is_sensitive);
      if (version >= 1) {
        w.ArrayLength(static_cast<int32_t>(c.synonyms.size()), flexible);
        for (const auto& s : c.synonyms) {
          w.String(s.name, flexible);
          w.NullableString(s.value, flexible);
          w.Int8(s.source);
          if (flexible) w.EmptyTaggedFields();
        }
      }
      if (version >= 3) {
        w.Int8(c.config_type);
        w.NullableString(c.documentation, flexible);
      }
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<DescribeConfigsResponse> ReadDescribeConfigsResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  DescribeConfigsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DescribeConfigsResponse::Result res;
    res.error_code = r.Int16("error_code");
    res.error_message = r.NullableString(flexible, "error_message");
    res.resource_type = r.Int8("resource_type");
    res.resource_name = r.String(flexible, "resource_name");
    int32_t nc = r.ArrayLength(flexible, "configs");
    for (int32_t j = 0; j < nc && r.ok(); ++j) {
      DescribeConfigsResponse::Config c;
      c.name = r.String(flexible, "config name");
      c.value = r.NullableString(flexible, "config value");
      c.read_only = r.Bool("read_only");
      if (version == 0) c.is_default = r.Bool("is_default");
      if (version >= 1) c.config_source = r.Int8("config_source");
      c.is_sensitive = r.Bool("is_sensitive");
      if (version >= 1) {
        int32_t ns = r.ArrayLength(flexible, "synonyms");
        for (int32_t k = 0; k < ns && r.ok(); ++k) {
          DescribeConfigsResponse::Synonym s;
          s.name = r.String(flexible, "synonym name");
          s.value = r.NullableString(flexible, "synonym value");
          s.source = r.Int8("synonym source");
          if (flexible) r.SkipTaggedFields("synonym tagged fields");
          c.synonyms.push_back(std::move(s));
        }
      }
      if (version >= 3) {
        c.config_type = r.Int8("config_type");
        c.documentation = r.NullableString(flexible, "documentation");
      }
      if (flexible) r.SkipTaggedFields("config tagged fields");
      res.configs.push_back(std::move(c));
    }
    if (flexible) r.SkipTaggedFields("result tagged fields");
    resp.results.push_back(std::move(res));
  }
  if (flexible) r.SkipTaggedFields("DescribeConfigsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
