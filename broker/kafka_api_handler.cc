#include "broker/kafka_api_handler.h"

#include <future>

#include "absl/strings/str_cat.h"
#include "broker/fetch_handler.h"
#include "broker/list_offsets_handler.h"
#include "broker/offset_for_leader_epoch_handler.h"
#include "broker/produce_handler.h"
#include "broker/init_producer_id_handler.h"
#include "broker/metadata_handler.h"
#include "broker/create_partitions_handler.h"
#include "broker/create_topics_handler.h"
#include "broker/delete_topics_handler.h"
#include "broker/describe_cluster_handler.h"
#include "broker/describe_configs_handler.h"
#include "proto/kafka/api.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/metadata.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

KafkaApis::KafkaApis(KafkaApisContext context)
    : context_(std::move(context)),
      fetch_purgatory_(std::make_unique<Purgatory>("fetch")),
      produce_purgatory_(std::make_unique<Purgatory>("produce")) {}

KafkaApis::~KafkaApis() {
  // Waiting requests answer now, while the context they read is still here.
  fetch_purgatory_.reset();
  produce_purgatory_.reset();
}

void KafkaApis::OnHighWatermark(const storage::TopicPartition& tp) {
  std::string key = tp.DirName();
  fetch_purgatory_->CheckAndComplete(key);
  produce_purgatory_->CheckAndComplete(key);
}

void KafkaApis::Handle(const kafka::RequestHeader& header, absl::string_view body, KafkaResponder respond) {
  auto range = kafka::SupportedRange(header.api_key);
  bool supported = range && header.api_version >= range->min_version && header.api_version <= range->max_version;
  if (supported && header.api_key == static_cast<int16_t>(kafka::ApiKey::kFetch)) {
    return HandleFetch(context_, *fetch_purgatory_, header, body, std::move(respond));
  }
  if (supported && header.api_key == static_cast<int16_t>(kafka::ApiKey::kProduce)) {
    return HandleProduce(context_, *produce_purgatory_, header, body, std::move(respond));
  }
  auto answer = HandleSync(header, body);
  if (!answer.ok()) return respond(answer.status());
  if (!answer->has_value()) return respond(std::optional<KafkaResponse>());
  KafkaResponse response;
  response.body = std::move(**answer);
  respond(std::optional<KafkaResponse>(std::move(response)));
}

absl::StatusOr<std::optional<KafkaResponse>> KafkaApis::HandleAndWait(const kafka::RequestHeader& header,
                                                                      absl::string_view body) {
  std::promise<absl::StatusOr<std::optional<KafkaResponse>>> promise;
  auto future = promise.get_future();
  Handle(header, body, [&promise](absl::StatusOr<std::optional<KafkaResponse>> answer) {
    promise.set_value(std::move(answer));
  });
  return future.get();
}

absl::StatusOr<std::optional<std::string>> KafkaApis::HandleSync(const kafka::RequestHeader& header,
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
    case kafka::ApiKey::kInitProducerId: {
      auto request = kafka::ReadInitProducerIdRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteInitProducerIdResponse(AnswerInitProducerId(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kListOffsets: {
      auto request = kafka::ReadListOffsetsRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteListOffsetsResponse(AnswerListOffsets(context_, *request, header.api_version), header.api_version,
                                      writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kOffsetForLeaderEpoch: {
      auto request = kafka::ReadOffsetForLeaderEpochRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteOffsetForLeaderEpochResponse(AnswerOffsetForLeaderEpoch(context_, *request), header.api_version,
                                               writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kCreateTopics: {
      auto request = kafka::ReadCreateTopicsRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteCreateTopicsResponse(AnswerCreateTopics(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kDeleteTopics: {
      auto request = kafka::ReadDeleteTopicsRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteDeleteTopicsResponse(AnswerDeleteTopics(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kCreatePartitions: {
      auto request = kafka::ReadCreatePartitionsRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteCreatePartitionsResponse(AnswerCreatePartitions(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kDescribeConfigs: {
      auto request = kafka::ReadDescribeConfigsRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteDescribeConfigsResponse(AnswerDescribeConfigs(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    case kafka::ApiKey::kDescribeCluster: {
      auto request = kafka::ReadDescribeClusterRequest(reader, header.api_version);
      if (!request.ok()) return request.status();
      kafka::WriteDescribeClusterResponse(AnswerDescribeCluster(context_, *request), header.api_version, writer);
      return std::optional<std::string>(std::move(out));
    }
    default:
      return absl::UnimplementedError(absl::StrCat(kafka::ApiName(header.api_key), " has no handler"));
  }
}

}  // namespace strata::broker
