#pragma once
// Fetch v4-v13: reads each partition from its leader, for consumers up to the high
// watermark (the last stable offset for read_committed, the same while Strata has no
// transactions) and for followers (replica_id >= 0) up to the log end — a follower's
// fetch offset also tells the leader its log end (the high watermark may move, the ISR
// may grow), and from v12 a follower whose last fetched epoch diverges from the
// leader's log is answered the diverging epoch instead of records.
// Record data goes out as file slices spliced into the response (sendfile). The
// response holds at most max_bytes and each partition at most partition_max_bytes,
// except that the first partition with data returns at least one whole batch (KIP-74).
// When less than min_bytes is available and max_wait_ms > 0, the fetch waits in the
// purgatory until enough arrives (a high watermark moves) or max_wait_ms passes.
// Per partition errors: UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID,
// NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH (v9+),
// OFFSET_OUT_OF_RANGE, KAFKA_STORAGE_ERROR. Fetch sessions (KIP-227, v7+): the request is
// resolved against the broker's FetchSessionCache (fetch_session.h) into the partitions to
// read and how to answer them; an incremental fetch reads its whole session but skips a
// partition in which nothing changed since its last read answered nothing, and answers
// only partitions with something new.
// A waiting fetch (DelayedFetch) keeps the bytes each partition had: a produce to one
// partition re-reads that partition alone, and the answer is one read of all of them.
// Thread-safe.

#include <functional>

#include "absl/strings/string_view.h"
#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h); a fetch that waits goes to the fetch purgatory.
void HandleFetch(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
