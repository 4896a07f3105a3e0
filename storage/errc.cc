#include "storage/errc.h"

#include <cstring>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace strata::storage {
namespace {

constexpr absl::string_view kErrcPayload = "strata.storage.errc";
constexpr absl::string_view kErrnoPayload = "strata.storage.errno";
constexpr absl::string_view kSequenceGapPayload = "strata.storage.sequence_gap";  // "expected,last_offset"

absl::StatusCode CodeFor(Errc errc) {
  switch (errc) {
    case Errc::kNone: return absl::StatusCode::kOk;
    case Errc::kCorruptMessage: return absl::StatusCode::kDataLoss;
    case Errc::kInvalidRecord: return absl::StatusCode::kInvalidArgument;
    case Errc::kRecordTooLarge: return absl::StatusCode::kInvalidArgument;
    case Errc::kStorageError: return absl::StatusCode::kInternal;
    case Errc::kLogDirOffline: return absl::StatusCode::kUnavailable;
    case Errc::kOffsetOutOfRange: return absl::StatusCode::kOutOfRange;
    case Errc::kOutOfOrderSequence: return absl::StatusCode::kFailedPrecondition;
    case Errc::kInvalidProducerEpoch: return absl::StatusCode::kFailedPrecondition;
    case Errc::kInvalidTxnState: return absl::StatusCode::kFailedPrecondition;
    case Errc::kCoordinatorFenced: return absl::StatusCode::kFailedPrecondition;
    case Errc::kInconsistentLog: return absl::StatusCode::kDataLoss;
    case Errc::kInvalidConfig: return absl::StatusCode::kInvalidArgument;
    case Errc::kInvalidCheckpoint: return absl::StatusCode::kDataLoss;
    case Errc::kInvalidArgument: return absl::StatusCode::kInvalidArgument;
    case Errc::kRemoteStorageError: return absl::StatusCode::kUnavailable;
  }
  return absl::StatusCode::kUnknown;
}

}  // namespace

absl::string_view ErrcName(Errc errc) {
  switch (errc) {
    case Errc::kNone: return "NONE";
    case Errc::kCorruptMessage: return "CORRUPT_MESSAGE";
    case Errc::kInvalidRecord: return "INVALID_RECORD";
    case Errc::kRecordTooLarge: return "RECORD_TOO_LARGE";
    case Errc::kStorageError: return "KAFKA_STORAGE_ERROR";
    case Errc::kLogDirOffline: return "LOG_DIR_OFFLINE";
    case Errc::kOffsetOutOfRange: return "OFFSET_OUT_OF_RANGE";
    case Errc::kOutOfOrderSequence: return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case Errc::kInvalidProducerEpoch: return "INVALID_PRODUCER_EPOCH";
    case Errc::kInvalidTxnState: return "INVALID_TXN_STATE";
    case Errc::kCoordinatorFenced: return "TRANSACTION_COORDINATOR_FENCED";
    case Errc::kInconsistentLog: return "INCONSISTENT_LOG";
    case Errc::kInvalidConfig: return "INVALID_CONFIG";
    case Errc::kInvalidCheckpoint: return "INVALID_CHECKPOINT";
    case Errc::kInvalidArgument: return "INVALID_ARGUMENT";
    case Errc::kRemoteStorageError: return "REMOTE_STORAGE_ERROR";
  }
  return "UNKNOWN";
}

absl::Status MakeError(Errc errc, absl::string_view message) {
  absl::Status status(CodeFor(errc), message);
  status.SetPayload(kErrcPayload, absl::Cord(absl::StrCat(static_cast<int>(errc))));
  return status;
}

absl::Status IoError(absl::string_view op, absl::string_view path, int err) {
  absl::Status status = MakeError(
      Errc::kStorageError, absl::StrCat(op, " ", path, ": ", std::strerror(err), " (errno ", err, ")"));
  status.SetPayload(kErrnoPayload, absl::Cord(absl::StrCat(err)));
  return status;
}

Errc ErrcOf(const absl::Status& status) {
  auto payload = status.GetPayload(kErrcPayload);
  int value = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &value)) return Errc::kNone;
  return static_cast<Errc>(value);
}

int ErrnoOf(const absl::Status& status) {
  auto payload = status.GetPayload(kErrnoPayload);
  int value = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &value)) return 0;
  return value;
}

absl::Status SequenceGapError(SequenceGap gap, absl::string_view message) {
  absl::Status status = MakeError(Errc::kOutOfOrderSequence, message);
  status.SetPayload(kSequenceGapPayload, absl::Cord(absl::StrCat(gap.expected_sequence, ",", gap.last_offset)));
  return status;
}

std::optional<SequenceGap> SequenceGapOf(const absl::Status& status) {
  auto payload = status.GetPayload(kSequenceGapPayload);
  if (!payload) return std::nullopt;
  std::pair<std::string, std::string> fields = absl::StrSplit(std::string(*payload), ',');
  SequenceGap gap;
  if (!absl::SimpleAtoi(fields.first, &gap.expected_sequence) || !absl::SimpleAtoi(fields.second, &gap.last_offset)) {
    return std::nullopt;
  }
  return gap;
}

}  // namespace strata::storage
