#pragma once
// ListOffsets v1-v8 on the partition's leader: timestamp -2 (earliest: the log start),
// -4 (earliest local: the same until tiered storage), -1 (latest: the high watermark,
// or the last stable offset for read_committed — the same without transactions),
// -3 (v7+: the batch holding the largest timestamp), or a time: the first record whose
// timestamp is at or after it (the time index), offset -1 when none below the high
// watermark. Each answer carries the leader epoch that wrote the offset (v4+);
// current_leader_epoch is checked (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH).
// Thread-safe.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "broker/request_context.h"
#include "proto/kafka/list_offsets.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerListOffsets, encodes.
void HandleListOffsets(const ApiRequest& request, KafkaResponder respond);

proto::kafka::ListOffsetsResponse AnswerListOffsets(const KafkaApisContext& context,
                                                    const proto::kafka::ListOffsetsRequest& request, int16_t version);

}  // namespace strata::broker
