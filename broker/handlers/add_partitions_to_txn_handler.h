#pragma once
// AddPartitionsToTxn v0-v5: partitions join a producer's transaction
// (TransactionCoordinator::AddPartitions). v0-v3 (producers): one transaction, Write on
// its transactional id and on each topic (TOPIC_AUTHORIZATION_FAILED for the topics
// denied, OPERATION_NOT_ATTEMPTED for the others, as Kafka); an unknown topic or
// partition is UNKNOWN_TOPIC_OR_PARTITION the same way. v4+ (brokers, KIP-890):
// ClusterAction, a batch of transactions, verify_only answering whether the partitions
// are in each one's ongoing transaction. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH
// before v2.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleAddPartitionsToTxn(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
