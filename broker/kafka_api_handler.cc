#include "broker/kafka_api_handler.h"

#include "absl/strings/str_cat.h"
#include "broker/metadata_handler.h"
#include "proto/kafka/api.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/metadata.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

absl::StatusOr<std::optional<std::string>> KafkaApis::Handle(const kafka::RequestHeader& header,
                                                             absl::string_view body) const {
  std::string out;
  kafka::Writer writer(&out);
  kafka::Reader reader(body);
  if (header.api_key == static_cast<int16_t>(kafka::ApiKey::kApiVersions)) {
    int16_t version = 0;
    kafka::ApiVersionsResponse response = kafka::AnswerApiVersions(header.api_version, &version);
    if (response.error_code == 0) {
      auto request = kafka::ReadApiVersionsRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
    }
    kafka::WriteApiVersionsResponse(response, version, writer);
    return std::optional<std::string>(std::move(out));
  }
  auto range = kafka::SupportedRange(header.api_key);
  if (!range) {
    return absl::UnimplementedError(absl::StrCat("api key ", header.api_key, " (", kafka::ApiName(header.api_key),
                                                 ") is not served by this broker"));
  }
  if (header.api_version < range->min_version || header.api_version > range->max_version) {
    return absl::UnimplementedError(absl::StrCat(kafka::ApiName(header.api_key), " v", header.api_version,
                                                 " is outside the advertised ", range->min_version, "..",
                                                 range->max_version));
  }
  switch (static_cast<kafka::ApiKey>(header.api_key)) {
    case kafka::ApiKey::kMetadata: {
      auto request = kafka::ReadMetadataRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteMetadataResponse(AnswerMetadata(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    default:
      return absl::UnimplementedError(absl::StrCat(kafka::ApiName(header.api_key), " has no handler"));
  }
}

}  // namespace strata::broker
