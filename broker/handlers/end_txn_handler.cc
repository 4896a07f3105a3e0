#include "broker/handlers/end_txn_handler.h"

#include "broker/handlers/txn_handlers_common.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/end_txn.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

void HandleEndTxn(const ApiRequest& request, ApiResponder respond) {
  AnswerTxnError<kafka::EndTxnResponse>(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadEndTxnRequest(reader, v); },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteEndTxnResponse(response, v, writer); },
      [&request](const kafka::EndTxnRequest& r, std::function<void(ErrorCode)> done) {
        request.broker.transaction_coordinator->EndTxn(r.transactional_id, r.producer_id, r.producer_epoch,
                                                       r.committed, std::move(done));
      });
}

}  // namespace strata::broker
