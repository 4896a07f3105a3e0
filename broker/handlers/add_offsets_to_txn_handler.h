#pragma once
// AddOffsetsToTxn v0-v4: the group's partition of __consumer_offsets joins a producer's
// transaction, so that its TxnOffsetCommit counts with the transaction (the
// coordinator's AddPartitions). Write on the transactional id and Read on the group
// (GROUP_AUTHORIZATION_FAILED), as Kafka. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH
// before v2.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleAddOffsetsToTxn(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
