#include "broker/handlers/end_txn_handler.h"

#include "broker/handlers/txn_handlers_common.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/end_txn.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {
constexpr int16_t kProducerFencedVersion = 2;  // KIP-588
}  // namespace

void HandleEndTxn(const ApiRequest& request, ApiResponder respond) {
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadEndTxnRequest(reader, v); },
      [&request](kafka::EndTxnRequest r, std::function<void(const kafka::EndTxnResponse&)> reply) {
        auto answer = [reply](ErrorCode e) {
          kafka::EndTxnResponse out;
          out.error_code = static_cast<int16_t>(e);
          reply(out);
        };
        if (ErrorCode e = CheckTransactionalRequest(request, r.transactional_id); e != ErrorCode::kNone) return answer(e);
        const int16_t version = request.header.api_version;
        request.broker.transaction_coordinator->EndTxn(
            r.transactional_id, r.producer_id, r.producer_epoch, r.committed,
            [answer, version](ErrorCode e) { answer(ForVersion(e, version, kProducerFencedVersion)); });
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteEndTxnResponse(response, v, writer); });
}

}  // namespace strata::broker
