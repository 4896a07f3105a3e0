#include "broker/handlers/end_txn_handler.h"

#include "broker/handlers/txn_handlers_common.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/end_txn.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {
constexpr int16_t kEndTxnEpochBumpVersion = 5;
}  // namespace

void HandleEndTxn(const ApiRequest& request, ApiResponder respond) {
  AnswerTxnError<kafka::EndTxnResponse>(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadEndTxnRequest(reader, v); },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteEndTxnResponse(response, v, writer); },
      [&request](const kafka::EndTxnRequest& r, std::function<void(kafka::EndTxnResponse)> reply) {
        // v5 is KIP-890 part 2: the coordinator bumps the epoch and names the next one.
        const int16_t client_tv = request.header.api_version >= kEndTxnEpochBumpVersion ? 2 : 0;
        request.broker.transaction_coordinator->EndTxn(
            r.transactional_id, r.producer_id, r.producer_epoch, r.committed, client_tv,
            [reply](TransactionCoordinator::EndResult result) {
              kafka::EndTxnResponse out;
              out.error_code = static_cast<int16_t>(result.error);
              out.producer_id = result.producer_id;
              out.producer_epoch = result.producer_epoch;
              reply(out);
            });
      });
}

}  // namespace strata::broker
