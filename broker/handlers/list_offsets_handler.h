#pragma once
// ListOffsets v1-v10 on the partition's leader: timestamp -2 (earliest: the log start
// across both tiers), -4 (v8+, earliest local: the local log's start), -5 (v9+, latest
// tiered: the last offset copied to the remote tier), -6 (v10+ here, earliest pending
// upload: the first offset not yet copied; -5 and -6 answer offset -1 without remote
// storage), -1 (latest: the high watermark, or the last stable offset for
// read_committed — the same without transactions), -3 (v7+: the batch holding the
// largest timestamp), or a time: the first record whose timestamp is at or after it,
// searched in the remote tier's copies below the local log start (oldest first, their
// time indexes, on a reader thread) and then in the local log; offset -1 when none
// below the high watermark. Seed KC-761: a lookup never answers an offset past records
// the partition stores. When the remote copies end before the local log starts (a hole:
// a replica rebuilt or recreated at its leader's end, a follower past the remote
// prune) and hold no match, or when the range moved during the search (a truncation, a
// rebuild, a log start move: SearchRange), it answers the retriable OFFSET_NOT_AVAILABLE
// (LEADER_NOT_AVAILABLE before v5), counted by reason. So does a leader whose high
// watermark has not reached the start of its leader epoch yet (a new leader, before its
// followers fetched in the epoch), as Kafka's: its high watermark would name an offset
// below records already acknowledged. Any replica that answers
// (a follower serving a rack-aware consumer too) applies the rule. Each answer carries the leader epoch that wrote the offset (v4+);
// current_leader_epoch is checked (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH).
// Thread-safe.

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "broker/handlers/request_context.h"
#include "proto/kafka/list_offsets.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerListOffsets, encodes.
void HandleListOffsets(const ApiRequest& request, ApiResponder respond);

proto::kafka::ListOffsetsResponse AnswerListOffsets(const KafkaApisContext& context,
                                                    const proto::kafka::ListOffsetsRequest& request, int16_t version);

// Timestamp lookups deferred (OFFSET_NOT_AVAILABLE), by reason, since the process began.
struct ListOffsetsDeferrals {
  int64_t hole = 0;           // the remote copies end before the local log starts
  int64_t range_moved = 0;    // a truncation, rebuild or log start move during the lookup
};
ListOffsetsDeferrals DeferredListOffsets();

// Runs hook between a timestamp search and its final check of the range (tests only:
// a truncation or rebuild "during" the lookup). An empty hook removes it.
void SetListOffsetsSearchHookForTesting(std::function<void()> hook);

}  // namespace strata::broker
