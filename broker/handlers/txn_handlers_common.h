#pragma once
// What the transaction APIs' handlers share: the checks before the coordinator is asked
// (the transactional id's ACL, a coordinator on this broker) and PRODUCER_FENCED as an
// older client knows it.
// Thread-safe (functions of their arguments).

#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

class TransactionCoordinator;

// The coordinator, when the request may go to it: NONE; else the error for every part
// of the answer (TRANSACTIONAL_ID_AUTHORIZATION_FAILED without Write on the id,
// COORDINATOR_NOT_AVAILABLE without a coordinator, INVALID_REQUEST for an empty id).
proto::kafka::ErrorCode CheckTransactionalRequest(const ApiRequest& request, const std::string& transactional_id);

// PRODUCER_FENCED came with KIP-588; a client of a version before first_version_knowing
// it is told INVALID_PRODUCER_EPOCH, as Kafka does.
inline proto::kafka::ErrorCode ForVersion(proto::kafka::ErrorCode e, int16_t version, int16_t first_version_knowing) {
  if (e == proto::kafka::ErrorCode::kProducerFenced && version < first_version_knowing) {
    return proto::kafka::ErrorCode::kInvalidProducerEpoch;
  }
  return e;
}

// The shape of the transaction APIs answered with one error code (AddOffsetsToTxn,
// EndTxn): the request decoded with read and checked (CheckTransactionalRequest), then
// act(request, done) calls done(response) exactly once, at once or later from any
// thread (TxnErrorResponse<Response>(e) when the error is all it says); the answer says
// the error as the request's version knows it (PRODUCER_FENCED from v2, KIP-588),
// encoded with write.
// The first version of AddOffsetsToTxn and EndTxn that knows PRODUCER_FENCED (KIP-588).
inline constexpr int16_t kTxnProducerFencedVersion = 2;

template <typename Response>
Response TxnErrorResponse(proto::kafka::ErrorCode e) {
  Response out;
  out.error_code = static_cast<int16_t>(e);
  return out;
}

template <typename Response, typename Read, typename Write, typename Act>
void AnswerTxnError(const ApiRequest& request, const ApiResponder& respond, Read read, Write write, Act act) {
  AnswerLater(
      request, respond, read,
      [&request, act](auto decoded, std::function<void(const Response&)> reply) {
        const int16_t version = request.header.api_version;
        std::function<void(Response)> done = [reply, version](Response out) {
          out.error_code = static_cast<int16_t>(
              ForVersion(static_cast<proto::kafka::ErrorCode>(out.error_code), version, kTxnProducerFencedVersion));
          reply(out);
        };
        if (auto e = CheckTransactionalRequest(request, decoded.transactional_id); e != proto::kafka::ErrorCode::kNone) {
          return done(TxnErrorResponse<Response>(e));
        }
        act(decoded, std::move(done));
      },
      write);
}

}  // namespace strata::broker
