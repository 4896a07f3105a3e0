#include "broker/handlers/init_producer_id_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/handlers/txn_handlers_common.h"
#include "base/logging.h"
#include "broker/lifecycle/producer_id_manager.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {
constexpr int16_t kProducerFencedVersion = 4;  // the first version a client knows PRODUCER_FENCED in (KIP-588)
}  // namespace

kafka::InitProducerIdResponse AnswerInitProducerId(const KafkaApisContext& context,
                                                   const kafka::InitProducerIdRequest& request, bool authorized) {
  kafka::InitProducerIdResponse response;
  auto fail = [&](ErrorCode code) {
    response.error_code = static_cast<int16_t>(code);
    response.producer_id = kafka::kNoProducerId;
    response.producer_epoch = kafka::kNoProducerEpoch;
    return response;
  };
  if (request.transactional_id) return fail(ErrorCode::kInvalidRequest);  // HandleInitProducerId's
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
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadInitProducerIdRequest(reader, version); },
      [&request](kafka::InitProducerIdRequest r, std::function<void(const kafka::InitProducerIdResponse&)> answer) {
        const KafkaApisContext& context = request.broker;
        if (!r.transactional_id) {
          // An idempotent producer: IdempotentWrite on the cluster, or Write on some topic
          // (KIP-679, as Kafka 3+).
          bool authorized = context.authorizer == nullptr ||
                            AuthorizedOnCluster(request, security::AclOperation::kIdempotentWrite) ||
                            context.authorizer->AllowsSome(request.header.principal, request.header.client_host,
                                                           security::AclOperation::kWrite,
                                                           security::ResourceType::kTopic);
          return answer(AnswerInitProducerId(context, r, authorized));
        }
        kafka::InitProducerIdResponse response;
        auto fail = [&](ErrorCode code) {
          response.error_code = static_cast<int16_t>(code);
          answer(response);
        };
        if (r.transactional_id->empty()) return fail(ErrorCode::kInvalidRequest);
        if ((r.producer_id == kafka::kNoProducerId) != (r.producer_epoch == kafka::kNoProducerEpoch)) {
          return fail(ErrorCode::kInvalidRequest);
        }
        if (!AuthorizedOnTransactionalId(request, security::AclOperation::kWrite, *r.transactional_id)) {
          return fail(ErrorCode::kTransactionalIdAuthorizationFailed);
        }
        if (context.transaction_coordinator == nullptr) return fail(ErrorCode::kCoordinatorNotAvailable);
        const int16_t version = request.header.api_version;
        context.transaction_coordinator->InitProducerId(
            *r.transactional_id, r.transaction_timeout_ms, r.producer_id, r.producer_epoch,
            [answer, version](TransactionCoordinator::InitResult result) {
              kafka::InitProducerIdResponse out;
              out.error_code = static_cast<int16_t>(ForVersion(result.error, version, kProducerFencedVersion));
              out.producer_id = result.producer_id;
              out.producer_epoch = result.producer_epoch;
              answer(out);
            });
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteInitProducerIdResponse(response, version, writer); });
}

}  // namespace strata::broker
