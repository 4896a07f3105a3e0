#pragma once
// DeleteRecords (key 21) v0-v2: move the log start offset of partitions forward
// (kafka-delete-records.sh, AdminClient.deleteRecords). Per partition the offset below
// which records go (-1: the high watermark); the answer names per partition the low
// watermark (the smallest log start among its live replicas once they all moved) and an
// error code. timeout_ms bounds the wait for the followers. Flexible from v2.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DeleteRecordsRequest {
  struct Partition {
    int32_t partition_index = 0;
    int64_t offset = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
  bool operator==(const DeleteRecordsRequest&) const = default;
};

struct DeleteRecordsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int64_t low_watermark = -1;
    int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  bool operator==(const DeleteRecordsResponse&) const = default;
};

absl::StatusOr<DeleteRecordsRequest> ReadDeleteRecordsRequest(Reader& reader, int16_t version);
void WriteDeleteRecordsRequest(const DeleteRecordsRequest& request, int16_t version, Writer& writer);
void WriteDeleteRecordsResponse(const DeleteRecordsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DeleteRecordsResponse> ReadDeleteRecordsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
