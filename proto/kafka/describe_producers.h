#pragma once
// DescribeProducers (key 61) v0: the producers a partition's leader knows (KIP-664, to
// find a transaction left hanging). Request: topics with their partition indexes.
// Response: throttle time, per topic per partition an error code and message (nullable)
// and the active producers: producer id, epoch (int32 here), last sequence (-1: none),
// last timestamp (-1: none), the coordinator epoch of its last marker, and the first
// offset of its open transaction (-1: none). Flexible in every version.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DescribeProducersRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  bool operator==(const DescribeProducersRequest&) const = default;
};

struct DescribeProducersResponse {
  struct ProducerState {
    int64_t producer_id = 0;
    int32_t producer_epoch = 0;
    int32_t last_sequence = -1;
    int64_t last_timestamp = -1;
    int32_t coordinator_epoch = 0;
    int64_t current_txn_start_offset = -1;
    bool operator==(const ProducerState&) const = default;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<ProducerState> active_producers;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  bool operator==(const DescribeProducersResponse&) const = default;
};

absl::StatusOr<DescribeProducersRequest> ReadDescribeProducersRequest(Reader& reader, int16_t version);
void WriteDescribeProducersRequest(const DescribeProducersRequest& request, int16_t version, Writer& writer);
void WriteDescribeProducersResponse(const DescribeProducersResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeProducersResponse> ReadDescribeProducersResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
