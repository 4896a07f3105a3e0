#include "proto/kafka/api_versions.h"

#include <algorithm>

#include "proto/kafka/error_code.h"

namespace strata::proto::kafka {
namespace {
constexpr int16_t kFirstFlexible = 3;
}  // namespace

absl::StatusOr<ApiVersionsRequest> ReadApiVersionsRequest(Reader& reader, int16_t version) {
  ApiVersionsRequest r;
  if (version >= kFirstFlexible) {
    r.client_software_name = reader.String(true, "client_software_name");
    r.client_software_version = reader.String(true, "client_software_version");
    reader.SkipTaggedFields("ApiVersionsRequest tagged fields");
  }
  if (!reader.ok()) return reader.status();
  return r;
}

void WriteApiVersionsRequest(const ApiVersionsRequest& r, int16_t version, Writer& writer) {
  if (version < kFirstFlexible) return;
  writer.String(r.client_software_name, true);
  writer.String(r.client_software_version, true);
  writer.EmptyTaggedFields();
}

void WriteApiVersionsResponse(const ApiVersionsResponse& r, int16_t version, Writer& writer) {
  bool flexible = version >= kFirstFlexible;
  writer.Int16(r.error_code);
  writer.ArrayLength(static_cast<int32_t>(r.api_keys.size()), flexible);
  for (const ApiVersionRange& k : r.api_keys) {
    writer.Int16(k.api_key);
    writer.Int16(k.min_version);
    writer.Int16(k.max_version);
    if (flexible) writer.EmptyTaggedFields();
  }
  if (version >= 1) writer.Int32(r.throttle_time_ms);
  if (flexible) writer.EmptyTaggedFields();
}

absl::StatusOr<ApiVersionsResponse> ReadApiVersionsResponse(Reader& reader, int16_t version) {
  bool flexible = version >= kFirstFlexible;
  ApiVersionsResponse r;
  r.error_code = reader.Int16("error_code");
  int32_t n = reader.ArrayLength(flexible, "api_keys");
  for (int32_t i = 0; i < n && reader.ok(); ++i) {
    ApiVersionRange k{reader.Int16("api_key"), reader.Int16("min_version"), reader.Int16("max_version")};
    if (flexible) reader.SkipTaggedFields("api_keys tagged fields");
    r.api_keys.push_back(k);
  }
  if (version >= 1) r.throttle_time_ms = reader.Int32("throttle_time_ms");
  if (flexible) reader.SkipTaggedFields("ApiVersionsResponse tagged fields");
  if (!reader.ok()) return reader.status();
  return r;
}

ApiVersionsResponse AnswerApiVersions(const std::vector<ApiVersionRange>& supported, int16_t request_version,
                                      int16_t* response_version) {
  ApiVersionsResponse r;
  r.api_keys = supported;
  auto own = std::find_if(supported.begin(), supported.end(), [](const ApiVersionRange& range) {
    return range.api_key == static_cast<int16_t>(ApiKey::kApiVersions);
  });
  if (own == supported.end() || request_version < own->min_version || request_version > own->max_version) {
    r.error_code = static_cast<int16_t>(ErrorCode::kUnsupportedVersion);
    *response_version = 0;
  } else {
    *response_version = request_version;
  }
  return r;
}

}  // namespace strata::proto::kafka
