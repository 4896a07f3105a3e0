#include "broker/handlers/add_offsets_to_txn_handler.h"

#include "broker/group/group_coordinator.h"
#include "broker/group/group_record.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/txn_handlers_common.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/add_offsets_to_txn.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {
constexpr int16_t kProducerFencedVersion = 2;  // KIP-588
}  // namespace

void HandleAddOffsetsToTxn(const ApiRequest& request, ApiResponder respond) {
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadAddOffsetsToTxnRequest(reader, v); },
      [&request](kafka::AddOffsetsToTxnRequest r, std::function<void(const kafka::AddOffsetsToTxnResponse&)> reply) {
        auto answer = [reply](ErrorCode e) {
          kafka::AddOffsetsToTxnResponse out;
          out.error_code = static_cast<int16_t>(e);
          reply(out);
        };
        if (ErrorCode e = CheckTransactionalRequest(request, r.transactional_id); e != ErrorCode::kNone) return answer(e);
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          return answer(ErrorCode::kGroupAuthorizationFailed);
        }
        if (request.broker.group_coordinator == nullptr) return answer(ErrorCode::kCoordinatorNotAvailable);
        storage::TopicPartition offsets{kOffsetsTopic, request.broker.group_coordinator->PartitionFor(r.group_id)};
        const int16_t version = request.header.api_version;
        request.broker.transaction_coordinator->AddPartitions(
            r.transactional_id, r.producer_id, r.producer_epoch, {offsets}, false,
            [answer, version](ErrorCode e) { answer(ForVersion(e, version, kProducerFencedVersion)); });
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteAddOffsetsToTxnResponse(response, v, writer); });
}

}  // namespace strata::broker
