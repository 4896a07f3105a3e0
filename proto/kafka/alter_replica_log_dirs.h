#pragma once
// AlterReplicaLogDirs (key 34) v0-v2: moves replicas between the log dirs of the broker
// that receives it (kafka-reassign-partitions.sh with log dirs in its plan,
// AdminClient.alterReplicaLogDirs). The request names, per destination dir (an absolute
// path of the broker's log.dirs), the topics and partitions to move there; the answer has,
// per topic, each partition's error code (LOG_DIR_NOT_FOUND, KAFKA_STORAGE_ERROR,
// REPLICA_NOT_AVAILABLE...). The fields are the same in every version; flexible from v2.
// (Kafka 4.x serves v1-v2; v0 is v1's layout, v1 only changed when a throttled answer is
// sent.)
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct AlterReplicaLogDirsRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Dir {
    std::string path;  // the destination log dir
    std::vector<Topic> topics;
    bool operator==(const Dir&) const = default;
  };
  std::vector<Dir> dirs;
  bool operator==(const AlterReplicaLogDirsRequest&) const = default;
};

struct AlterReplicaLogDirsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Result {
    std::string topic_name;
    std::vector<Partition> partitions;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const AlterReplicaLogDirsResponse&) const = default;
};

absl::StatusOr<AlterReplicaLogDirsRequest> ReadAlterReplicaLogDirsRequest(Reader& reader, int16_t version);
void WriteAlterReplicaLogDirsRequest(const AlterReplicaLogDirsRequest& request, int16_t version, Writer& writer);
void WriteAlterReplicaLogDirsResponse(const AlterReplicaLogDirsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<AlterReplicaLogDirsResponse> ReadAlterReplicaLogDirsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
