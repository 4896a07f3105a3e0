#pragma once
// EndTxn v0-v4: a producer commits or aborts its transaction
// (TransactionCoordinator::EndTxn; answered once the decision is written, the markers
// follow). Write on the transactional id. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH
// before v2. v5 (KIP-890 part 2, a new epoch per transaction) is not served: clients
// use it only when the broker finalizes transaction.version 2.
// Thread-safe.

#include "broker/handlers/request_context.h"

namespace strata::broker {

void HandleEndTxn(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
