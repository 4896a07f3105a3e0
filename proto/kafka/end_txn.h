#pragma once
// EndTxn (key 26) v0-v5: a producer commits or aborts its transaction; the coordinator
// then has the partitions' leaders write the markers (WriteTxnMarkers). Request:
// transactional id, producer id and epoch, committed (true: commit, false: abort).
// Response: throttle time, error code, and from v5 the producer id and epoch the producer
// goes on with (KIP-890 part 2 bumps the epoch at every transaction's end; -1 and -1 when
// absent). v1 is v0; v2 only adds PRODUCER_FENCED; flexible from v3; v4 only adds
// TRANSACTION_ABORTABLE.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct EndTxnRequest {
  std::string transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  bool committed = false;
  bool operator==(const EndTxnRequest&) const = default;
};

struct EndTxnResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = kNoProducerId;        // v5+
  int16_t producer_epoch = kNoProducerEpoch;  // v5+
  bool operator==(const EndTxnResponse&) const = default;
};

absl::StatusOr<EndTxnRequest> ReadEndTxnRequest(Reader& reader, int16_t version);
void WriteEndTxnRequest(const EndTxnRequest& request, int16_t version, Writer& writer);
void WriteEndTxnResponse(const EndTxnResponse& response, int16_t version, Writer& writer);
absl::StatusOr<EndTxnResponse> ReadEndTxnResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
