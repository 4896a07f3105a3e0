#include "broker/handlers/api_versions_handler.h"

#include "broker/handlers/response_errors.h"
#include "controller/features.h"
#include "proto/kafka/api_versions.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {

// The features this build supports and those the cluster finalized (the metadata image's
// FeatureLevel records), with the applied metadata offset as their epoch, as Kafka's
// brokers answer them.
void AddFeatures(const controller::MetadataStore& store, kafka::ApiVersionsResponse* answer) {
  for (const auto& f : controller::SupportedFeatures()) {
    answer->supported_features.push_back(
        {f.name(), static_cast<int16_t>(f.min_level()), static_cast<int16_t>(f.max_level())});
  }
  answer->finalized_features = store.WithImage([](const controller::MetadataImage& image) {
    std::vector<kafka::FinalizedFeatureKey> finalized;
    for (const auto& [name, level] : image.finalized_features()) finalized.push_back({name, level, level});
    return finalized;
  });
  answer->finalized_features_epoch = store.applied().index;
}

}  // namespace

void HandleApiVersions(const ApiRequest& request, ApiResponder respond) {
  int16_t version = 0;
  kafka::ApiVersionsResponse answer = kafka::AnswerApiVersions(request.advertised, request.header.api_version, &version);
  if (answer.error_code == 0) {
    kafka::Reader reader(request.body);
    auto decoded = kafka::ReadApiVersionsRequest(reader, request.header.api_version);
    if (!decoded.ok()) return respond(decoded.status());
    AddFeatures(request.broker.store, &answer);
  }
  ApiResponse response;
  kafka::Writer writer(&response.body);
  kafka::WriteApiVersionsResponse(answer, version, writer);
  CountErrors(answer, response.errors);
  respond(std::optional<ApiResponse>(std::move(response)));
}

}  // namespace strata::broker
