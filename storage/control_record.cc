#include "storage/control_record.h"

#include "absl/strings/str_cat.h"
#include "storage/bytes.h"
#include "storage/errc.h"
#include "storage/record_batch.h"

namespace strata::storage {

std::string BuildEndTxnMarkerBatch(int64_t producer_id, int16_t producer_epoch, const EndTxnMarker& marker,
                                   int64_t timestamp) {
  std::string key;
  AppendBigEndian(&key, int16_t{0});
  AppendBigEndian(&key, static_cast<int16_t>(marker.type));
  std::string value;
  AppendBigEndian(&value, int16_t{0});
  AppendBigEndian(&value, marker.coordinator_epoch);
  return RecordBatchBuilder()
      .set_producer(producer_id, producer_epoch, kNoSequence)
      .set_transactional(true)
      .set_control(true)
      .Add(key, value, timestamp)
      .Build();
}

absl::StatusOr<EndTxnMarker> ReadControlBatch(absl::string_view batch) {
  auto records = DecodeRecords(batch);
  if (!records.ok()) return records.status();
  if (records->empty()) return MakeError(Errc::kInvalidRecord, "control batch holds no record");
  const Record& r = records->front();
  if (!r.key || r.key->size() < 4) {
    return MakeError(Errc::kInvalidRecord,
                     absl::StrCat("control record key of ", r.key ? r.key->size() : 0, " bytes, expected 4"));
  }
  int16_t type = LoadBigEndian<int16_t>(r.key->data() + 2);
  EndTxnMarker marker;
  if (type != static_cast<int16_t>(ControlRecordType::kAbort) &&
      type != static_cast<int16_t>(ControlRecordType::kCommit)) {
    return marker;  // kUnknown
  }
  if (!r.value || r.value->size() < 6) {
    return MakeError(Errc::kInvalidRecord,
                     absl::StrCat("end transaction marker value of ", r.value ? r.value->size() : 0,
                                  " bytes, expected 6"));
  }
  marker.type = static_cast<ControlRecordType>(type);
  marker.coordinator_epoch = LoadBigEndian<int32_t>(r.value->data() + 2);
  return marker;
}

}  // namespace strata::storage
