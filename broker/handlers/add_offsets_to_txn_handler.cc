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

void HandleAddOffsetsToTxn(const ApiRequest& request, ApiResponder respond) {
  AnswerTxnError<kafka::AddOffsetsToTxnResponse>(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadAddOffsetsToTxnRequest(reader, v); },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteAddOffsetsToTxnResponse(response, v, writer); },
      [&request](const kafka::AddOffsetsToTxnRequest& r, std::function<void(kafka::AddOffsetsToTxnResponse)> reply) {
        auto done = [reply](ErrorCode e) { reply(TxnErrorResponse<kafka::AddOffsetsToTxnResponse>(e)); };
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          return done(ErrorCode::kGroupAuthorizationFailed);
        }
        if (request.broker.group_coordinator == nullptr) return done(ErrorCode::kCoordinatorNotAvailable);
        // The group's partition of __consumer_offsets joins the transaction (protocol
        // version 1: a version 2 producer sends TxnOffsetCommit v5 alone).
        storage::TopicPartition offsets{kOffsetsTopic, request.broker.group_coordinator->PartitionFor(r.group_id)};
        request.broker.transaction_coordinator->AddPartitions(r.transactional_id, r.producer_id, r.producer_epoch,
                                                              {offsets}, /*client_tv=*/0, std::move(done));
      });
}

}  // namespace strata::broker
