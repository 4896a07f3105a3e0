#pragma once
// TxnOffsetCommit (key 28) v0-v5: a transactional producer sends the group coordinator
// offsets that commit with its transaction (and vanish if it aborts). Request:
// transactional id, group id, producer id and epoch, from v3 the consumer's generation id
// (-1: none), member id ("": none) and group instance id (nullable), and per topic per
// partition the offset, its leader epoch (v2+, -1 when unknown) and metadata (nullable).
// Response: throttle time, per topic per partition an error code. v1 is v0; flexible from
// v3; v4 only adds TRANSACTION_ABORTABLE; v5 is v4 (KIP-890 part 2, Kafka 4.0: the
// commit also adds the group to the transaction, as AddOffsetsToTxn did; the message
// schema here, older, lists v0-v4).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct TxnOffsetCommitRequest {
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v2+
    std::optional<std::string> committed_metadata;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::string transactional_id;
  std::string group_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t generation_id = -1;                    // v3+
  std::string member_id;                         // v3+
  std::optional<std::string> group_instance_id;  // v3+
  std::vector<Topic> topics;
  bool operator==(const TxnOffsetCommitRequest&) const = default;
};

struct TxnOffsetCommitResponse {
  struct Partition {
    int32_t partition_index = 0;
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
  bool operator==(const TxnOffsetCommitResponse&) const = default;
};

absl::StatusOr<TxnOffsetCommitRequest> ReadTxnOffsetCommitRequest(Reader& reader, int16_t version);
void WriteTxnOffsetCommitRequest(const TxnOffsetCommitRequest& request, int16_t version, Writer& writer);
void WriteTxnOffsetCommitResponse(const TxnOffsetCommitResponse& response, int16_t version, Writer& writer);
absl::StatusOr<TxnOffsetCommitResponse> ReadTxnOffsetCommitResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
