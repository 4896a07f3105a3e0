#include "storage/record_batch.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "storage/bytes.h"
#include "storage/crc32c.h"
#include "storage/errc.h"

namespace strata::storage {

using namespace batch_layout;

RecordBatchHeader RecordBatchHeader::Parse(const char* p) {
  RecordBatchHeader h;
  h.base_offset = LoadBigEndian<int64_t>(p + kBaseOffset);
  h.batch_length = LoadBigEndian<int32_t>(p + kBatchLength);
  h.partition_leader_epoch = LoadBigEndian<int32_t>(p + kPartitionLeaderEpoch);
  h.magic = static_cast<int8_t>(p[kMagic]);
  h.crc = LoadBigEndian<uint32_t>(p + kCrc);
  h.attributes = LoadBigEndian<int16_t>(p + kAttributes);
  h.last_offset_delta = LoadBigEndian<int32_t>(p + kLastOffsetDelta);
  h.base_timestamp = LoadBigEndian<int64_t>(p + kBaseTimestamp);
  h.max_timestamp = LoadBigEndian<int64_t>(p + kMaxTimestamp);
  h.producer_id = LoadBigEndian<int64_t>(p + kProducerId);
  h.producer_epoch = LoadBigEndian<int16_t>(p + kProducerEpoch);
  h.base_sequence = LoadBigEndian<int32_t>(p + kBaseSequence);
  h.records_count = LoadBigEndian<int32_t>(p + kRecordsCount);
  return h;
}

int32_t RecordBatchHeader::last_sequence() const {
  if (base_sequence == kNoSequence) return kNoSequence;
  int64_t last = int64_t{base_sequence} + last_offset_delta;
  if (last > std::numeric_limits<int32_t>::max()) last -= int64_t{std::numeric_limits<int32_t>::max()} + 1;
  return static_cast<int32_t>(last);
}

absl::Status CheckBatchFraming(const RecordBatchHeader& header, size_t available, absl::string_view where) {
  if (header.magic != kMagicV2) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(where, ": unsupported magic ", int{header.magic}, " (only v2 is stored)"));
  }
  if (header.batch_length < static_cast<int32_t>(kHeaderSize - kLogOverhead)) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat(where, ": batchLength ", header.batch_length,
                                                         " is smaller than the v2 header (",
                                                         kHeaderSize - kLogOverhead, ")"));
  }
  if (static_cast<uint64_t>(header.size_in_bytes()) > available) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat(where, ": batch of ", header.size_in_bytes(),
                                                         " bytes is truncated, only ", available,
                                                         " bytes follow"));
  }
  if (header.last_offset_delta < 0) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(where, ": negative lastOffsetDelta ", header.last_offset_delta));
  }
  return absl::OkStatus();
}

uint32_t ComputeBatchCrc(absl::string_view batch) {
  ABSL_CHECK_GE(batch.size(), kHeaderSize);
  return Crc32c(batch.data() + kAttributes, batch.size() - kAttributes);
}

absl::Status ValidateStoredBatch(absl::string_view batch, absl::string_view where) {
  if (batch.size() < kHeaderSize) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(where, ": ", batch.size(), " bytes cannot hold a batch header (", kHeaderSize, ")"));
  }
  RecordBatchHeader header = RecordBatchHeader::Parse(batch.data());
  if (absl::Status s = CheckBatchFraming(header, batch.size(), where); !s.ok()) return s;
  if (static_cast<size_t>(header.size_in_bytes()) != batch.size()) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat(where, ": batchLength says ", header.size_in_bytes(),
                                                         " bytes but the batch has ", batch.size()));
  }
  uint32_t computed = ComputeBatchCrc(batch);
  if (computed != header.crc) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(where, ": CRC mismatch, stored 0x", absl::Hex(header.crc), " computed 0x",
                                  absl::Hex(computed)));
  }
  return absl::OkStatus();
}

namespace {
absl::Status CheckRecordFraming(absl::string_view batch, int32_t count);
}  // namespace

absl::Status ValidateProducedBatch(absl::string_view batch, int64_t max_batch_bytes) {
  if (static_cast<int64_t>(batch.size()) > max_batch_bytes) {
    return MakeError(Errc::kRecordTooLarge, absl::StrCat("batch of ", batch.size(),
                                                         " bytes exceeds max.message.bytes ", max_batch_bytes));
  }
  if (absl::Status s = ValidateStoredBatch(batch, "produced batch"); !s.ok()) return s;
  RecordBatchHeader header = RecordBatchHeader::Parse(batch.data());
  if (header.records_count <= 0) {
    return MakeError(Errc::kInvalidRecord,
                     absl::StrCat("produced batch has recordsCount ", header.records_count, ", needs at least 1"));
  }
  if (int64_t{header.last_offset_delta} != int64_t{header.records_count} - 1) {
    return MakeError(Errc::kInvalidRecord,
                     absl::StrCat("produced batch has lastOffsetDelta ", header.last_offset_delta, " but ",
                                  header.records_count, " records"));
  }
  if (header.compression() == Compression::kNone) {
    return CheckRecordFraming(batch, header.records_count);
  } else if (static_cast<int>(header.compression()) > static_cast<int>(Compression::kZstd)) {
    return MakeError(Errc::kInvalidRecord,
                     absl::StrCat("produced batch has unknown compression codec ", static_cast<int>(header.compression())));
  }
  return absl::OkStatus();
}

void SetBaseOffset(char* batch, int64_t base_offset) { StoreBigEndian(batch + kBaseOffset, base_offset); }

void SetPartitionLeaderEpoch(char* batch, int32_t epoch) {
  StoreBigEndian(batch + kPartitionLeaderEpoch, epoch);
}

void SetLogAppendTime(char* batch, size_t size, int64_t now) {
  ABSL_CHECK_GE(size, kHeaderSize);
  int16_t attributes = static_cast<int16_t>(RecordBatchHeader::Parse(batch).attributes | 0x8);
  StoreBigEndian(batch + kAttributes, attributes);
  StoreBigEndian(batch + kMaxTimestamp, now);
  StoreBigEndian(batch + kCrc, ComputeBatchCrc(absl::string_view(batch, size)));
}

namespace {

absl::Status RecordError(size_t index, absl::string_view what) {
  return MakeError(Errc::kCorruptMessage, absl::StrCat("record ", index, ": ", what));
}

// Reads a varint-length-prefixed byte string; length -1 is null.
bool ReadNullableBytes(absl::string_view* in, std::optional<std::string>* out) {
  auto length = ReadVarint(in);
  if (!length) return false;
  if (*length < 0) {
    out->reset();
    return *length == -1;
  }
  if (static_cast<size_t>(*length) > in->size()) return false;
  *out = std::string(in->substr(0, *length));
  in->remove_prefix(*length);
  return true;
}

// Walks the records of an uncompressed batch without copying them: every length fits,
// the records fill the batch exactly and offset deltas run 0, 1, 2, ...
absl::Status CheckRecordFraming(absl::string_view batch, int32_t count) {
  absl::string_view in = batch.substr(kHeaderSize);
  auto skip_bytes = [](absl::string_view* body, bool nullable) {
    auto length = ReadVarint(body);
    if (!length || *length < (nullable ? -1 : 0) || (*length > 0 && static_cast<size_t>(*length) > body->size())) {
      return false;
    }
    if (*length > 0) body->remove_prefix(*length);
    return true;
  };
  for (int32_t i = 0; i < count; ++i) {
    auto length = ReadVarint(&in);
    if (!length || *length <= 0 || static_cast<size_t>(*length) > in.size()) {
      return RecordError(i, "length runs past the batch");
    }
    absl::string_view body = in.substr(0, *length);
    in.remove_prefix(*length);
    body.remove_prefix(1);  // attributes
    auto ts = ReadVarlong(&body);
    auto offset_delta = ReadVarint(&body);
    if (!ts || !offset_delta) return RecordError(i, "bad timestamp or offset delta");
    if (*offset_delta != i) {
      return MakeError(Errc::kInvalidRecord,
                       absl::StrCat("produced batch record ", i, " has offsetDelta ", *offset_delta, ", expected ", i));
    }
    if (!skip_bytes(&body, true) || !skip_bytes(&body, true)) return RecordError(i, "bad key or value");
    auto headers = ReadVarint(&body);
    if (!headers || *headers < 0) return RecordError(i, "bad header count");
    for (int32_t h = 0; h < *headers; ++h) {
      if (!skip_bytes(&body, false) || !skip_bytes(&body, true)) return RecordError(i, "bad header");
    }
    if (!body.empty()) return RecordError(i, absl::StrCat(body.size(), " stray bytes at the end"));
  }
  if (!in.empty()) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat(in.size(), " bytes follow the last of ", count, " records"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Record>> DecodeRecords(absl::string_view batch) {
  ABSL_CHECK_GE(batch.size(), kHeaderSize);
  RecordBatchHeader header = RecordBatchHeader::Parse(batch.data());
  if (header.compression() != Compression::kNone) {
    return MakeError(Errc::kInvalidArgument, "records of a compressed batch are not decoded here");
  }
  if (header.records_count < 0) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat("negative recordsCount ", header.records_count));
  }
  absl::string_view in = batch.substr(kHeaderSize);
  std::vector<Record> records;
  // Each record takes at least 7 bytes, so the count is bounded by the bytes present.
  records.reserve(std::min<size_t>(header.records_count, in.size() / 7 + 1));
  for (int32_t i = 0; i < header.records_count; ++i) {
    auto length = ReadVarint(&in);
    if (!length || *length < 0 || static_cast<size_t>(*length) > in.size()) {
      return RecordError(i, "length runs past the batch");
    }
    absl::string_view body = in.substr(0, *length);
    in.remove_prefix(*length);
    Record record;
    if (body.empty()) return RecordError(i, "empty record");
    record.attributes = static_cast<int8_t>(body.front());
    body.remove_prefix(1);
    auto ts = ReadVarlong(&body);
    auto od = ReadVarint(&body);
    if (!ts || !od) return RecordError(i, "bad timestamp or offset delta");
    record.timestamp_delta = *ts;
    record.offset_delta = *od;
    if (!ReadNullableBytes(&body, &record.key)) return RecordError(i, "bad key");
    if (!ReadNullableBytes(&body, &record.value)) return RecordError(i, "bad value");
    auto header_count = ReadVarint(&body);
    if (!header_count || *header_count < 0) return RecordError(i, "bad header count");
    for (int32_t h = 0; h < *header_count; ++h) {
      std::optional<std::string> key;
      RecordHeader rh;
      if (!ReadNullableBytes(&body, &key) || !key) return RecordError(i, "bad header key");
      rh.key = std::move(*key);
      if (!ReadNullableBytes(&body, &rh.value)) return RecordError(i, "bad header value");
      record.headers.push_back(std::move(rh));
    }
    if (!body.empty()) return RecordError(i, absl::StrCat(body.size(), " stray bytes at the end"));
    records.push_back(std::move(record));
  }
  if (!in.empty()) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(in.size(), " bytes follow the last of ", header.records_count, " records"));
  }
  return records;
}

absl::StatusOr<std::optional<absl::string_view>> BatchSplitter::Next() {
  if (rest_.empty()) return std::optional<absl::string_view>();
  std::string where = absl::StrCat("batch at byte ", position_);
  if (rest_.size() < kHeaderSize) {
    return MakeError(Errc::kCorruptMessage,
                     absl::StrCat(where, ": ", rest_.size(), " trailing bytes cannot hold a batch header"));
  }
  RecordBatchHeader header = RecordBatchHeader::Parse(rest_.data());
  if (absl::Status s = CheckBatchFraming(header, rest_.size(), where); !s.ok()) return s;
  absl::string_view batch = rest_.substr(0, header.size_in_bytes());
  rest_.remove_prefix(batch.size());
  position_ += batch.size();
  return std::optional<absl::string_view>(batch);
}

RecordBatchBuilder& RecordBatchBuilder::Add(std::optional<absl::string_view> key,
                                            std::optional<absl::string_view> value, int64_t timestamp,
                                            std::vector<RecordHeader> headers) {
  Pending p;
  if (key) p.key = std::string(*key);
  if (value) p.value = std::string(*value);
  p.timestamp = timestamp;
  p.headers = std::move(headers);
  records_.push_back(std::move(p));
  return *this;
}

std::string RecordBatchBuilder::Build() const {
  ABSL_CHECK(!records_.empty());
  int64_t base_ts = records_.front().timestamp;
  int64_t max_ts = base_ts;
  for (const auto& r : records_) max_ts = std::max(max_ts, r.timestamp);

  std::string body;
  std::string rec;
  for (size_t i = 0; i < records_.size(); ++i) {
    const Pending& r = records_[i];
    rec.clear();
    rec.push_back(0);  // attributes
    AppendVarlong(&rec, r.timestamp - base_ts);
    AppendVarint(&rec, static_cast<int32_t>(i));
    auto put = [&rec](const std::optional<std::string>& bytes) {
      if (!bytes) {
        AppendVarint(&rec, -1);
      } else {
        AppendVarint(&rec, static_cast<int32_t>(bytes->size()));
        rec.append(*bytes);
      }
    };
    put(r.key);
    put(r.value);
    AppendVarint(&rec, static_cast<int32_t>(r.headers.size()));
    for (const auto& h : r.headers) {
      put(h.key);
      put(h.value);
    }
    AppendVarint(&body, static_cast<int32_t>(rec.size()));
    body.append(rec);
  }

  std::string out;
  out.reserve(kHeaderSize + body.size());
  int16_t attributes = static_cast<int16_t>((transactional_ ? 0x10 : 0) | (control_ ? 0x20 : 0));
  AppendBigEndian(&out, base_offset_);
  AppendBigEndian(&out, static_cast<int32_t>(kHeaderSize - kLogOverhead + body.size()));
  AppendBigEndian(&out, epoch_);
  out.push_back(static_cast<char>(kMagicV2));
  AppendBigEndian(&out, uint32_t{0});  // CRC, filled below
  AppendBigEndian(&out, attributes);
  AppendBigEndian(&out, static_cast<int32_t>(records_.size() - 1));
  AppendBigEndian(&out, base_ts);
  AppendBigEndian(&out, max_ts);
  AppendBigEndian(&out, producer_id_);
  AppendBigEndian(&out, producer_epoch_);
  AppendBigEndian(&out, base_sequence_);
  AppendBigEndian(&out, static_cast<int32_t>(records_.size()));
  out.append(body);
  StoreBigEndian(out.data() + kCrc, ComputeBatchCrc(out));
  return out;
}

}  // namespace strata::storage
