#pragma once
// AddOffsetsToTxn (key 25) v0-v4: a producer tells its transaction coordinator that the
// transaction will commit offsets of a consumer group (then sends them to the group
// coordinator with TxnOffsetCommit). Request: transactional id, producer id and epoch,
// group id. Response: throttle time, error code. v1 is v0; v2 only adds PRODUCER_FENCED;
// flexible from v3; v4 only adds TRANSACTION_ABORTABLE.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct AddOffsetsToTxnRequest {
  std::string transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  std::string group_id;
  bool operator==(const AddOffsetsToTxnRequest&) const = default;
};

struct AddOffsetsToTxnResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  bool operator==(const AddOffsetsToTxnResponse&) const = default;
};

absl::StatusOr<AddOffsetsToTxnRequest> ReadAddOffsetsToTxnRequest(Reader& reader, int16_t version);
void WriteAddOffsetsToTxnRequest(const AddOffsetsToTxnRequest& request, int16_t version, Writer& writer);
void WriteAddOffsetsToTxnResponse(const AddOffsetsToTxnResponse& response, int16_t version, Writer& writer);
absl::StatusOr<AddOffsetsToTxnResponse> ReadAddOffsetsToTxnResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
