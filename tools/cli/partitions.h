#pragma once
// What tools/cli/partitions.cc offers the other command groups.
// Not thread-safe: one command runs, on main's thread.

#include "tools/cli/command.h"

namespace strata::cli {

// strata cluster balance: prints the plan (kafka-reassign-partitions' JSON) that evens
// out replicas and preferred leaderships over the usable brokers (controller/balance.h),
// and each broker's counts before and after on stderr; with execute, starts it instead
// (one result per partition, as `partitions reassign execute`). Refused while any
// partition is being reassigned.
int Balance(bool execute, const Context& ctx);

}  // namespace strata::cli
