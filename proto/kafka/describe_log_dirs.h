#pragma once
// DescribeLogDirs (key 35) v0-v5: a broker's log dirs and the partitions in each
// (kafka-log-dirs.sh, AdminClient.describeLogDirs / describeReplicaLogDirs). The request
// names topics and partitions, or null for all. Per dir the answer has an error code
// (KAFKA_STORAGE_ERROR: offline), its path and, per partition, its size in bytes, its
// offset lag and whether it is a future replica (AlterReplicaLogDirs); v3 adds a
// top-level error code, v4 the volume's total and usable bytes, v5 whether the dir is
// cordoned. Flexible from v2. (Kafka 4.x serves v1-v5; v0 is v1's layout.)
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DescribeLogDirsRequest {
  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::optional<std::vector<Topic>> topics;  // nullopt: every partition
  bool operator==(const DescribeLogDirsRequest&) const = default;
};

struct DescribeLogDirsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int64_t partition_size = 0;
    int64_t offset_lag = 0;
    bool is_future_key = false;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Result {
    int16_t error_code = 0;
    std::string log_dir;
    std::vector<Topic> topics;
    int64_t total_bytes = -1;   // v4+
    int64_t usable_bytes = -1;  // v4+
    bool is_cordoned = false;   // v5+
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v3+
  std::vector<Result> results;
  bool operator==(const DescribeLogDirsResponse&) const = default;
};

absl::StatusOr<DescribeLogDirsRequest> ReadDescribeLogDirsRequest(Reader& reader, int16_t version);
void WriteDescribeLogDirsRequest(const DescribeLogDirsRequest& request, int16_t version, Writer& writer);
void WriteDescribeLogDirsResponse(const DescribeLogDirsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeLogDirsResponse> ReadDescribeLogDirsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
