#pragma once
// The share coordinator's APIs between brokers (KIP-932), flexible in every version:
// a share partition's leader initializes, reads, writes and deletes the state the share
// coordinator keeps for (group, topic id, partition); the group coordinator reads its
// summary for DescribeShareGroupOffsets.
//   InitializeShareGroupState (83) v0   partition, state epoch, start offset
//   ReadShareGroupState (84) v0         partition, leader epoch -> state epoch, start
//                                       offset, state batches
//   WriteShareGroupState (85) v0-1      partition, state epoch, leader epoch, start offset,
//                                       delivery complete count (v1+), state batches
//   DeleteShareGroupState (86) v0       partition
//   ReadShareGroupStateSummary (87) v0-1 partition, leader epoch -> state epoch, leader
//                                       epoch, start offset, delivery complete count (v1+)
// Every request is a group id and topics (topic id, partitions); every response is
// results (topic id, partitions with an error code and message and what was read). None
// carries a throttle time.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

// A StateBatch: in-flight offsets [first, last] in one delivery state with one count.
struct ShareStateBatchData {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int8_t delivery_state = 0;
  int16_t delivery_count = 0;
  bool operator==(const ShareStateBatchData&) const = default;
};

// What a partition of a request or a result holds; each API uses its own fields (the
// header says which), the rest keep their defaults.
struct ShareStatePartition {
  int32_t partition = 0;
  int16_t error_code = 0;                  // results
  std::optional<std::string> error_message;  // results
  int32_t state_epoch = 0;
  int32_t leader_epoch = -1;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;    // v1+ of Write and ReadSummary
  std::vector<ShareStateBatchData> state_batches;
  bool operator==(const ShareStatePartition&) const = default;
};

struct ShareStateTopic {
  std::string topic_id;  // 16 bytes
  std::vector<ShareStatePartition> partitions;
  bool operator==(const ShareStateTopic&) const = default;
};

struct ShareGroupStateRequest {
  std::string group_id;
  std::vector<ShareStateTopic> topics;
  bool operator==(const ShareGroupStateRequest&) const = default;
};

struct ShareGroupStateResponse {
  std::vector<ShareStateTopic> results;
  bool operator==(const ShareGroupStateResponse&) const = default;
};

// api_key decides the partitions' fields: reading refuses a key other than 83-87; writing
// one is a programming error (checked).
absl::StatusOr<ShareGroupStateRequest> ReadShareGroupStateRequest(int16_t api_key, Reader& r, int16_t version);
void WriteShareGroupStateRequest(int16_t api_key, const ShareGroupStateRequest& req, int16_t version, Writer& w);
absl::StatusOr<ShareGroupStateResponse> ReadShareGroupStateResponse(int16_t api_key, Reader& r, int16_t version);
void WriteShareGroupStateResponse(int16_t api_key, const ShareGroupStateResponse& resp, int16_t version, Writer& w);

}  // namespace strata::proto::kafka
