#pragma once
// Produce (key 0) v0-v12 (the broker serves v3-v12 and answers v0-v2 UNSUPPORTED_VERSION,
// as Kafka 4.0). Request: transactional_id (v3+, nullable), acks, timeout, and per
// topic per partition the record data (a record batch set, nullable bytes). Response: per
// topic per partition the error, base offset, log append time, log start offset (v5+),
// the record errors and error message (v8+); throttle time last. Flexible from v9.
// v10-v12 have the same fields (v10's tagged CurrentLeader and NodeEndpoints are
// optional and not written; v11 may answer TRANSACTION_ABORTABLE); v12 means the
// producer runs transaction protocol version 2 (KIP-890 part 2): the leader adds the
// partition to its transaction.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int16_t kProduceMinVersion = 0;
// The oldest version the broker appends for (v0-v2 carry message sets, not batches).
inline constexpr int16_t kProduceMinServedVersion = 3;
inline constexpr int16_t kProduceMaxVersion = 12;
// The first version whose transactional batches the leader adds to their transaction.
inline constexpr int16_t kProduceImplicitAddVersion = 12;

struct ProduceRequest {
  struct Partition {
    int32_t index = 0;
    std::optional<std::string> records;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partition_data;
    bool operator==(const Topic&) const = default;
  };
  std::optional<std::string> transactional_id;
  int16_t acks = -1;  // 0: none, 1: the leader, -1: the full ISR
  int32_t timeout_ms = 0;
  std::vector<Topic> topic_data;
  bool operator==(const ProduceRequest&) const = default;
};

struct ProduceResponse {
  struct RecordError {
    int32_t batch_index = 0;
    std::optional<std::string> batch_index_error_message;
    bool operator==(const RecordError&) const = default;
  };
  struct Partition {
    int32_t index = 0;
    int16_t error_code = 0;
    int64_t base_offset = -1;
    int64_t log_append_time_ms = -1;  // -1 when the topic uses CreateTime
    int64_t log_start_offset = -1;    // v5+
    std::vector<RecordError> record_errors;  // v8+
    std::optional<std::string> error_message;  // v8+
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partition_responses;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> responses;
  int32_t throttle_time_ms = 0;
  bool operator==(const ProduceResponse&) const = default;
};

// REQUIRES (all four): kProduceMinVersion <= version <= kProduceMaxVersion.
absl::StatusOr<ProduceRequest> ReadProduceRequest(Reader& reader, int16_t version);
void WriteProduceRequest(const ProduceRequest& request, int16_t version, Writer& writer);
void WriteProduceResponse(const ProduceResponse& response, int16_t version, Writer& writer);
absl::StatusOr<ProduceResponse> ReadProduceResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
