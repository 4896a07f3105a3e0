#include "tests/support/batches.h"

#include "absl/strings/str_cat.h"

namespace strata::testing {

using storage::RecordBatchBuilder;

std::string MakeBatch(int records, const std::string& tag, int64_t timestamp, size_t value_size) {
  RecordBatchBuilder builder;
  for (int i = 0; i < records; ++i) {
    std::string value = absl::StrCat(tag, "-", i);
    if (value.size() < value_size) value.resize(value_size, 'x');
    builder.Add(absl::StrCat("k", i), value, timestamp + i);
  }
  return builder.Build();
}

std::string MakeProducerBatch(int records, int64_t producer_id, int16_t epoch, int32_t base_sequence,
                              int64_t timestamp) {
  RecordBatchBuilder builder;
  builder.set_producer(producer_id, epoch, base_sequence);
  for (int i = 0; i < records; ++i) builder.Add(std::nullopt, absl::StrCat("p", producer_id, "-", base_sequence + i), timestamp + i);
  return builder.Build();
}

absl::StatusOr<std::vector<ReadRecord>> DecodeAll(absl::string_view bytes, int64_t from, int64_t* next_offset) {
  std::vector<ReadRecord> out;
  absl::string_view rest = bytes;
  while (rest.size() >= storage::batch_layout::kHeaderSize) {
    auto header = storage::RecordBatchHeader::Parse(rest.data());
    if (static_cast<size_t>(header.size_in_bytes()) > rest.size()) break;  // partial tail
    absl::string_view batch = rest.substr(0, header.size_in_bytes());
    rest.remove_prefix(batch.size());
    if (absl::Status s = storage::ValidateStoredBatch(batch, "read back"); !s.ok()) return s;
    auto records = storage::DecodeRecords(batch);
    if (!records.ok()) return records.status();
    for (const auto& r : *records) {
      int64_t o = header.base_offset + r.offset_delta;
      if (o < from) continue;
      out.push_back({o, header.base_timestamp + r.timestamp_delta, r.value.value_or(""), header.partition_leader_epoch});
    }
    if (next_offset != nullptr) *next_offset = header.next_offset();
  }
  return out;
}

absl::StatusOr<std::vector<ReadRecord>> ReadAll(const storage::Log& log, int64_t from) {
  std::vector<ReadRecord> out;
  int64_t offset = from < 0 ? log.log_start_offset() : from;
  int64_t end = log.log_end_offset();
  while (offset < end) {
    auto info = log.Read(offset, 1 << 20, end, true);
    if (!info.ok()) return info.status();
    auto bytes = info->records.ReadAll();
    if (!bytes.ok()) return bytes.status();
    if (bytes->empty()) break;
    int64_t next = offset;
    auto records = DecodeAll(*bytes, offset, &next);
    if (!records.ok()) return records.status();
    if (next == offset) return absl::InternalError(absl::StrCat("no progress reading at ", offset));
    out.insert(out.end(), std::make_move_iterator(records->begin()), std::make_move_iterator(records->end()));
    offset = next;
  }
  return out;
}

}  // namespace strata::testing
