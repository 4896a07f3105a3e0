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
  if (!flexible) return;
  std::vector<TaggedField> tagged;
  std::vector<const SupportedFeatureKey*> supported;
  for (const SupportedFeatureKey& f : r.supported_features) {
    if (version >= 4 || f.min_version > 0) supported.push_back(&f);
  }
  if (!supported.empty()) {
    TaggedField field{.tag = 0};
    Writer w(&field.data);
    w.ArrayLength(static_cast<int32_t>(supported.size()), true);
    for (const SupportedFeatureKey* f : supported) {
      w.String(f->name, true);
      w.Int16(f->min_version);
      w.Int16(f->max_version);
      w.EmptyTaggedFields();
    }
    tagged.push_back(std::move(field));
  }
  if (r.finalized_features_epoch != -1) {
    TaggedField field{.tag = 1};
    Writer(&field.data).Int64(r.finalized_features_epoch);
    tagged.push_back(std::move(field));
  }
  if (!r.finalized_features.empty()) {
    TaggedField field{.tag = 2};
    Writer w(&field.data);
    w.ArrayLength(static_cast<int32_t>(r.finalized_features.size()), true);
    for (const FinalizedFeatureKey& f : r.finalized_features) {
      w.String(f.name, true);
      w.Int16(f.max_version_level);
      w.Int16(f.min_version_level);
      w.EmptyTaggedFields();
    }
    tagged.push_back(std::move(field));
  }
  writer.TaggedFields(tagged);
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
  if (flexible) {
    reader.ReadTaggedFields("ApiVersionsResponse tagged fields", [&](uint32_t tag, Reader& field) {
      if (tag == 0) {
        int32_t count = field.ArrayLength(true, "supported_features");
        for (int32_t i = 0; i < count && field.ok(); ++i) {
          SupportedFeatureKey f;
          f.name = field.String(true, "supported feature name");
          f.min_version = field.Int16("min_version");
          f.max_version = field.Int16("max_version");
          field.SkipTaggedFields("supported feature tagged fields");
          r.supported_features.push_back(std::move(f));
        }
      } else if (tag == 1) {
        r.finalized_features_epoch = field.Int64("finalized_features_epoch");
      } else if (tag == 2) {
        int32_t count = field.ArrayLength(true, "finalized_features");
        for (int32_t i = 0; i < count && field.ok(); ++i) {
          FinalizedFeatureKey f;
          f.name = field.String(true, "finalized feature name");
          f.max_version_level = field.Int16("max_version_level");
          f.min_version_level = field.Int16("min_version_level");
          field.SkipTaggedFields("finalized feature tagged fields");
          r.finalized_features.push_back(std::move(f));
        }
      }
    });
  }
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
