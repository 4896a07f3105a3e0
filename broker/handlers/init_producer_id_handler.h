#pragma once
// InitProducerId: a producer id and epoch for an idempotent producer (null transactional
// id): a fresh id from the broker's ProducerIdManager with epoch 0. Also for v3+
// requests that carry the producer's current id and epoch (KIP-360's epoch bump after
// an error): a fresh id with epoch 0 is always a correct answer for an idempotent
// producer, and it is what Kafka answers. Edge cases:
//  * a non-null transactional id goes to the transaction coordinator
//    (TransactionCoordinator::InitProducerId: epoch bumps, fencing, the transaction
//    timeout), after Write on the transactional id (else
//    TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an empty one: INVALID_REQUEST, as in Kafka;
//    PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v4 (KIP-588);
//  * only one of producer id / epoch set (v3+): INVALID_REQUEST, as in Kafka;
//  * no block from the controller within the manager's wait: COORDINATOR_LOAD_IN_PROGRESS
//    (retriable; Kafka answers it while a broker's next block is on its way).
// Every error answers producer id -1, epoch -1. Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/init_producer_id.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerInitProducerId, encodes.
void HandleInitProducerId(const ApiRequest& request, ApiResponder respond);

// An idempotent producer's request (null transactional id). authorized: whether the
// request's principal may (else CLUSTER_AUTHORIZATION_FAILED, and nothing is asked of
// the controller).
proto::kafka::InitProducerIdResponse AnswerInitProducerId(const KafkaApisContext& context,
                                                          const proto::kafka::InitProducerIdRequest& request, bool authorized = true);

}  // namespace strata::broker
