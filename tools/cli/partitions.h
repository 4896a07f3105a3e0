#pragma once
// What tools/cli/partitions.cc offers the other command groups.
// Not thread-safe: one command runs, on main's thread.

#include "tools/cli/command.h"

namespace strata::cli {

// strata cluster balance: prints the plan (kafka-reassign-partitions' JSON) that evens
// out replicas and preferred leaderships over the usable brokers (controller/balance.h),
// and each broker's counts before and after on stderr; with execute, starts it instead
// (one result per partition, as `partitions reassign execute`). Refused while any
// partition is being reassigned. throttle >= 0: the moves are throttled at that many
// bytes per second (reassignment_throttles.h; `partitions reassign verify` of the plan
// removes it).
int Balance(bool execute, int64_t throttle, const Context& ctx);

}  // namespace strata::cli
