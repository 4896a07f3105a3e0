#pragma once
// Control records: the end-transaction markers (COMMIT, ABORT) the transaction
// coordinator has partition leaders write (WriteTxnMarkers), as Kafka lays them out. A
// control batch (attributes: transactional | control) carries the transaction's producer
// id and epoch, no sequence, and one record:
//   key:   version i16 (0) | type i16 (0 ABORT, 1 COMMIT)
//   value: version i16 (0) | coordinatorEpoch i32
// Other types (KRaft's LEADER_CHANGE, 2, and up) are read as kUnknown: a log holds none
// of them, but a reader must not mistake one for a marker.
// Thread-safe (stateless).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::storage {

enum class ControlRecordType : int16_t { kAbort = 0, kCommit = 1, kUnknown = -1 };

struct EndTxnMarker {
  ControlRecordType type = ControlRecordType::kUnknown;
  int32_t coordinator_epoch = 0;
  bool operator==(const EndTxnMarker&) const = default;
};

// The whole control batch of one marker, base offset 0 (the leader assigns it).
std::string BuildEndTxnMarkerBatch(int64_t producer_id, int16_t producer_epoch, const EndTxnMarker& marker,
                                   int64_t timestamp);

// The type of the control batch's record, and for ABORT and COMMIT the coordinator
// epoch. REQUIRES: a whole, validated batch whose header says control. INVALID_RECORD
// when it holds no record or its key is malformed.
absl::StatusOr<EndTxnMarker> ReadControlBatch(absl::string_view batch);

}  // namespace strata::storage
