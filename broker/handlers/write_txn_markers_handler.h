#pragma once
// WriteTxnMarkers v0-v1 (from a transaction coordinator, ClusterAction): for each marker
// and each of its partitions this broker leads, the COMMIT or ABORT control batch is
// appended (storage/control_record.h; the log checks the producer and coordinator
// epochs: INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED) and answered once the
// ISR has it (acks=all; REQUEST_TIMED_OUT after 30 s, NOT_LEADER_OR_FOLLOWER when the
// leadership moved). A marker written to a partition of __consumer_offsets then commits
// or drops the producer's pending offsets there (GroupCoordinator::OnTransactionCompleted).
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleWriteTxnMarkers(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
