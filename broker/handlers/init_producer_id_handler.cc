#include "broker/handlers/init_producer_id_handler.h"

#include "broker/handlers/authorization.h"
#include "base/logging.h"
#include "broker/lifecycle/producer_id_manager.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

kafka::InitProducerIdResponse AnswerInitProducerId(const KafkaApisContext& context,
                                                   const kafka::InitProducerIdRequest& request, bool authorized) {
  kafka::InitProducerIdResponse response;
  auto fail = [&](ErrorCode code) {
    response.error_code = static_cast<int16_t>(code);
    response.producer_id = kafka::kNoProducerId;
    response.producer_epoch = kafka::kNoProducerEpoch;
    return response;
  };
  if (request.transactional_id) {
    return fail(request.transactional_id->empty() ? ErrorCode::kInvalidRequest : ErrorCode::kUnsupportedVersion);
  }
  if ((request.producer_id == kafka::kNoProducerId) != (request.producer_epoch == kafka::kNoProducerEpoch)) {
    return fail(ErrorCode::kInvalidRequest);
  }
  if (!authorized) return fail(ErrorCode::kClusterAuthorizationFailed);
  absl::StatusOr<int64_t> id = context.producer_ids.NextProducerId();
  if (!id.ok()) {
    spdlog::warn("broker {}: InitProducerId: {}", context.broker_id, id.status().message());
    return fail(ErrorCode::kCoordinatorLoadInProgress);
  }
  response.producer_id = *id;
  response.producer_epoch = 0;
  return response;
}

void HandleInitProducerId(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadInitProducerIdRequest(reader, version); },
      [&](const auto& r) {
        // An idempotent producer: IdempotentWrite on the cluster, or Write on some topic
        // (KIP-679, as Kafka 3+).
        bool authorized =
            request.broker.authorizer == nullptr || AuthorizedOnCluster(request, security::AclOperation::kIdempotentWrite) ||
            request.broker.authorizer->AllowsSome(request.header.principal, request.header.client_host,
                                                  security::AclOperation::kWrite, security::ResourceType::kTopic);
        return AnswerInitProducerId(request.broker, r, authorized);
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteInitProducerIdResponse(response, version, writer); });
}

}  // namespace strata::broker
