#pragma once
// TxnOffsetCommit v0-v4: a transactional producer commits a group's offsets inside its
// transaction (GroupCoordinator::CommitTransactionalOffsets: pending until the
// transaction's COMMIT marker reaches the group's partition). Write on the
// transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), Read on the group
// (GROUP_AUTHORIZATION_FAILED) and on each topic (TOPIC_AUTHORIZATION_FAILED), as Kafka.
// v3+ carries the consumer's generation and member id (KIP-447), which fence a zombie.
// PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleTxnOffsetCommit(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
