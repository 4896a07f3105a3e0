#pragma once
// Storage error codes and the absl::Status values that carry them. Every storage error
// is an absl::Status whose payload names an Errc (and, for I/O failures, the errno), so
// the protocol edge can map it to a Kafka error code without parsing messages.
// Thread-safe (stateless).

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace strata::storage {

enum class Errc {
  kNone = 0,
  kCorruptMessage,       // CRC, size or magic wrong (Kafka CORRUPT_MESSAGE)
  kInvalidRecord,        // a well-formed batch whose contents break a rule (INVALID_RECORD)
  kRecordTooLarge,       // batch larger than max.message.bytes (MESSAGE_TOO_LARGE)
  kStorageError,         // an I/O error on a log dir (KAFKA_STORAGE_ERROR)
  kLogDirOffline,        // the log's dir failed earlier; nothing touched the disk
  kOffsetOutOfRange,     // read outside [log start, log end] (OFFSET_OUT_OF_RANGE)
  kOutOfOrderSequence,   // idempotent producer gap (OUT_OF_ORDER_SEQUENCE_NUMBER)
  kInvalidProducerEpoch, // fenced producer epoch (INVALID_PRODUCER_EPOCH)
  kInvalidTxnState,      // a batch or marker that breaks the producer's transaction (INVALID_TXN_STATE)
  kCoordinatorFenced,    // a marker from an older coordinator epoch (TRANSACTION_COORDINATOR_FENCED)
  kInconsistentLog,      // on-disk state that recovery must not repair silently
  kInvalidConfig,        // a bad or unknown configuration value
  kInvalidCheckpoint,    // a checkpoint file that does not parse
  kInvalidArgument,      // a caller broke a precondition that is checked at runtime
  kRemoteStorageError,   // the remote tier failed (missing object, read error, checksum):
                         // KAFKA_STORAGE_ERROR for that partition, no local dir offline
};

absl::string_view ErrcName(Errc errc);

// Builds a status with `errc` attached; the status code follows from the errc.
absl::Status MakeError(Errc errc, absl::string_view message);
// An I/O failure of `op` on `path` with `err` (an errno value).
absl::Status IoError(absl::string_view op, absl::string_view path, int err);

// The Errc carried by `status`, kNone for OK or foreign statuses.
Errc ErrcOf(const absl::Status& status);
// The errno carried by an IoError status, 0 otherwise.
int ErrnoOf(const absl::Status& status);

// An idempotent producer's batch that does not follow on its last stored one
// (kOutOfOrderSequence): what the producer state held, so that the broker can tell a gap
// that a retry will fill (broker/replication/produce_refusals.h, ReplicaManager::AppendRecords).
struct SequenceGap {
  int32_t expected_sequence = 0;
  // The last offset of the producer's last batch in its epoch; -1: none (the batch
  // opens a new producer epoch at a sequence other than 0).
  int64_t last_offset = -1;
};
absl::Status SequenceGapError(SequenceGap gap, absl::string_view message);
// The gap a SequenceGapError carries, nullopt for any other status.
std::optional<SequenceGap> SequenceGapOf(const absl::Status& status);

}  // namespace strata::storage
