#pragma once
// The transaction APIs operators and kafka-transactions.sh use:
//  * DescribeProducers v0: per partition (Read on the topic; its leader answers,
//    NOT_LEADER_OR_FOLLOWER elsewhere) the producers of its producer state: id, epoch,
//    last sequence and timestamp, coordinator epoch, and the first offset of the open
//    transaction (-1: none) — what find-hanging looks for;
//  * DescribeTransactions v0: per transactional id (Describe on it, else
//    TRANSACTIONAL_ID_AUTHORIZATION_FAILED) its coordinator's state, or NOT_COORDINATOR,
//    COORDINATOR_LOAD_IN_PROGRESS, TRANSACTIONAL_ID_NOT_FOUND;
//  * ListTransactions v0-v1: the transactional ids this broker coordinates that the
//    principal may describe, filtered by state, producer id and (v1) how long they
//    have been open; an unknown state name is returned in unknown_state_filters.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleDescribeProducers(const ApiRequest& request, ApiResponder respond);
void HandleDescribeTransactions(const ApiRequest& request, ApiResponder respond);
void HandleListTransactions(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
