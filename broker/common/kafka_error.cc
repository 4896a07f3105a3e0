#include "broker/common/kafka_error.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/errc.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {
constexpr absl::string_view kPayload = "strata.kafka.error";

kafka::ErrorCode FromErrc(storage::Errc errc) {
  switch (errc) {
    case storage::Errc::kNone: return kafka::ErrorCode::kUnknownServerError;
    case storage::Errc::kCorruptMessage: return kafka::ErrorCode::kCorruptMessage;
    case storage::Errc::kInvalidRecord: return kafka::ErrorCode::kInvalidRecord;
    case storage::Errc::kRecordTooLarge: return kafka::ErrorCode::kMessageTooLarge;
    case storage::Errc::kStorageError:
    case storage::Errc::kLogDirOffline:
    case storage::Errc::kInconsistentLog:
    case storage::Errc::kInvalidCheckpoint:
    case storage::Errc::kRemoteStorageError:
      return kafka::ErrorCode::kKafkaStorageError;
    case storage::Errc::kOffsetOutOfRange: return kafka::ErrorCode::kOffsetOutOfRange;
    case storage::Errc::kOutOfOrderSequence: return kafka::ErrorCode::kOutOfOrderSequenceNumber;
    case storage::Errc::kInvalidProducerEpoch: return kafka::ErrorCode::kInvalidProducerEpoch;
    case storage::Errc::kInvalidTxnState: return kafka::ErrorCode::kInvalidTxnState;
    case storage::Errc::kCoordinatorFenced: return kafka::ErrorCode::kTransactionCoordinatorFenced;
    case storage::Errc::kInvalidConfig: return kafka::ErrorCode::kInvalidConfig;
    case storage::Errc::kInvalidArgument: return kafka::ErrorCode::kInvalidRequest;
  }
  return kafka::ErrorCode::kUnknownServerError;
}
}  // namespace

absl::Status KafkaError(kafka::ErrorCode code, absl::string_view message) {
  absl::Status status(absl::StatusCode::kFailedPrecondition,
                      absl::StrCat(kafka::ErrorName(code), ": ", message));
  status.SetPayload(kPayload, absl::Cord(absl::StrCat(static_cast<int>(code))));
  return status;
}

kafka::ErrorCode KafkaErrorCodeOf(const absl::Status& status) {
  if (status.ok()) return kafka::ErrorCode::kNone;
  if (auto payload = status.GetPayload(kPayload)) {
    int value = 0;
    if (absl::SimpleAtoi(std::string(*payload), &value)) return static_cast<kafka::ErrorCode>(value);
  }
  return FromErrc(storage::ErrcOf(status));
}

}  // namespace strata::broker
