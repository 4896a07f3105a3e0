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

}  // namespace strata::broker
