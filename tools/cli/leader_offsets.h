#pragma once
// What only a partition's leader knows, asked over the Kafka protocol (ListOffsets v9):
// its log end (-1 latest), its log start across both tiers (-2), its local log start
// (-4), the last tiered offset (-5), the offset of a timestamp. The controllers' image
// holds the remote tier's copies, not the brokers' local logs.
// Not thread-safe (one connection per call).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/cli/kafka_call.h"

namespace strata::cli {

// ListOffsets on the leader at `endpoint` for one partition and one timestamp: the
// offset, or the error the broker answered.
absl::StatusOr<int64_t> LeaderListOffset(const Endpoint& endpoint, const std::string& topic, int32_t partition,
                                         int64_t timestamp);

// One ListOffsets on the leader at `endpoint` for several partitions and one timestamp:
// per partition the offset (-1 for a timestamp past every record), or the error.
std::map<TopicPartition, absl::StatusOr<int64_t>> LeaderListOffsets(const Endpoint& endpoint,
                                                                   const std::vector<TopicPartition>& partitions,
                                                                   int64_t timestamp);

// LeaderListOffsets at each partition's leader (`leaders`: partition -> broker id, as the
// controllers describe the topics), one request per leader. A partition without a
// leader, or whose leader has no PLAINTEXT endpoint, is an error naming it.
std::map<TopicPartition, absl::StatusOr<int64_t>> ListOffsetsAtLeaders(const std::map<TopicPartition, int32_t>& leaders,
                                                                      const std::map<int32_t, Endpoint>& endpoints,
                                                                      int64_t timestamp);

}  // namespace strata::cli
