#include "storage/record_batch.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
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

constexpr int16_t kCodecMask = 0x7;

absl::Status CheckRecordFraming(absl::string_view records, int32_t count);

bool KnownCodec(Compression codec) { return static_cast<int>(codec) <= static_cast<int>(Compression::kZstd); }

// The records section of a whole batch (the bytes after the header), decompressed into
// *storage when the batch is compressed.
absl::StatusOr<absl::string_view> RecordsSection(absl::string_view batch, const RecordBatchHeader& header,
                                                 size_t max_uncompressed, std::string* storage) {
  absl::string_view section = batch.substr(kHeaderSize);
  if (header.compression() == Compression::kNone) return section;
  STRATA_ASSIGN_OR_RETURN(*storage, Decompress(header.compression(), section, max_uncompressed));
  return absl::string_view(*storage);
}

int16_t WithCodec(int16_t attributes, Compression codec) {
  return static_cast<int16_t>((attributes & ~kCodecMask) | static_cast<int16_t>(codec));
}

// A whole batch of header's fields (batchLength from the section) around records, with its CRC.
absl::StatusOr<std::string> AssembleBatch(const RecordBatchHeader& header, absl::string_view records) {
  constexpr size_t kMaxSection = std::numeric_limits<int32_t>::max() - (kHeaderSize - kLogOverhead);
  if (records.size() > kMaxSection) {
    return MakeError(Errc::kRecordTooLarge,
                     absl::StrCat("a records section of ", records.size(), " bytes does not fit a batch"));
  }
  std::string out;
  out.reserve(kHeaderSize + records.size());
  AppendBigEndian(&out, header.base_offset);
  AppendBigEndian(&out, static_cast<int32_t>(kHeaderSize - kLogOverhead + records.size()));
  AppendBigEndian(&out, header.partition_leader_epoch);
  out.push_back(static_cast<char>(kMagicV2));
  AppendBigEndian(&out, uint32_t{0});  // CRC, filled below
  AppendBigEndian(&out, header.attributes);
  AppendBigEndian(&out, header.last_offset_delta);
  AppendBigEndian(&out, header.base_timestamp);
  AppendBigEndian(&out, header.max_timestamp);
  AppendBigEndian(&out, header.producer_id);
  AppendBigEndian(&out, header.producer_epoch);
  AppendBigEndian(&out, header.base_sequence);
  AppendBigEndian(&out, header.records_count);
  out.append(records.data(), records.size());
  StoreBigEndian(out.data() + kCrc, ComputeBatchCrc(out));
  return out;
}

// Appends one record (length-prefixed) to out; scratch is reused between calls.
void AppendRecord(std::string* out, std::string* scratch, int8_t attributes, int64_t timestamp_delta,
                  int32_t offset_delta, const std::optional<std::string>& key,
                  const std::optional<std::string>& value, const std::vector<RecordHeader>& headers) {
  std::string& rec = *scratch;
  rec.clear();
  rec.push_back(static_cast<char>(attributes));
  AppendVarlong(&rec, timestamp_delta);
  AppendVarint(&rec, offset_delta);
  auto put = [&rec](const std::optional<std::string>& bytes) {
    if (!bytes) {
      AppendVarint(&rec, -1);
    } else {
      AppendVarint(&rec, static_cast<int32_t>(bytes->size()));
      rec.append(*bytes);
    }
  };
  put(key);
  put(value);
  AppendVarint(&rec, static_cast<int32_t>(headers.size()));
  for (const auto& h : headers) {
    AppendVarint(&rec, static_cast<int32_t>(h.key.size()));
    rec.append(h.key);
    put(h.value);
  }
  AppendVarint(out, static_cast<int32_t>(rec.size()));
  out->append(rec);
}

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
  if (!KnownCodec(header.compression())) {
    return MakeError(Errc::kInvalidRecord, absl::StrCat("produced batch has unknown compression codec ",
                                                        static_cast<int>(header.compression())));
  }
  std::string decompressed;
  auto records = RecordsSection(batch, header, MaxUncompressedBatchBytes(max_batch_bytes), &decompressed);
  if (!records.ok()) return WithContext(records.status(), "produced batch");
  return CheckRecordFraming(*records, header.records_count);
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

// Walks the records section of a batch (decompressed) without copying the records:
// every length fits, the records fill the section exactly and offset deltas run 0, 1, 2, ...
absl::Status CheckRecordFraming(absl::string_view records, int32_t count) {
  absl::string_view in = records;
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

absl::StatusOr<std::vector<Record>> DecodeRecords(absl::string_view batch, size_t max_uncompressed) {
  ABSL_CHECK_GE(batch.size(), kHeaderSize);
  RecordBatchHeader header = RecordBatchHeader::Parse(batch.data());
  if (header.records_count < 0) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat("negative recordsCount ", header.records_count));
  }
  std::string decompressed;
  STRATA_ASSIGN_OR_RETURN(absl::string_view in, RecordsSection(batch, header, max_uncompressed, &decompressed));
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
  RecordBatchHeader header;
  header.base_offset = base_offset_;
  header.partition_leader_epoch = epoch_;
  header.attributes = WithCodec(static_cast<int16_t>((log_append_time_ ? 0x8 : 0) | (transactional_ ? 0x10 : 0) |
                                                     (control_ ? 0x20 : 0)),
                                compression_);
  header.last_offset_delta = static_cast<int32_t>(records_.size() - 1);
  header.base_timestamp = records_.front().timestamp;
  header.max_timestamp = header.base_timestamp;
  for (const auto& r : records_) header.max_timestamp = std::max(header.max_timestamp, r.timestamp);
  header.producer_id = producer_id_;
  header.producer_epoch = producer_epoch_;
  header.base_sequence = base_sequence_;
  header.records_count = static_cast<int32_t>(records_.size());

  std::string body, scratch;
  for (size_t i = 0; i < records_.size(); ++i) {
    const Pending& r = records_[i];
    AppendRecord(&body, &scratch, 0, r.timestamp - header.base_timestamp, static_cast<int32_t>(i), r.key, r.value,
                 r.headers);
  }
  if (compression_ != Compression::kNone) {
    auto compressed = Compress(compression_, body);
    ABSL_CHECK(compressed.ok()) << compressed.status();
    body = std::move(*compressed);
  }
  auto batch = AssembleBatch(header, body);
  ABSL_CHECK(batch.ok()) << batch.status();
  return std::move(*batch);
}

absl::StatusOr<std::string> RecompressBatch(absl::string_view batch, Compression target, size_t max_uncompressed) {
  STRATA_RETURN_IF_ERROR(ValidateStoredBatch(batch, "batch to recompress"));
  RecordBatchHeader header = RecordBatchHeader::Parse(batch.data());
  if (header.compression() == target) return std::string(batch);
  std::string decompressed;
  STRATA_ASSIGN_OR_RETURN(absl::string_view records, RecordsSection(batch, header, max_uncompressed, &decompressed));
  STRATA_ASSIGN_OR_RETURN(std::string section, Compress(target, records));
  header.attributes = WithCodec(header.attributes, target);
  return AssembleBatch(header, section);
}

absl::StatusOr<std::string> BuildBatchFrom(const RecordBatchHeader& original, const std::vector<Record>& kept,
                                           Compression codec) {
  RecordBatchHeader header = original;
  header.records_count = static_cast<int32_t>(kept.size());
  int64_t previous_delta = -1;
  int64_t max_timestamp = kNoTimestamp;
  std::string body, scratch;
  for (size_t i = 0; i < kept.size(); ++i) {
    const Record& r = kept[i];
    if (r.offset_delta <= previous_delta || r.offset_delta > original.last_offset_delta) {
      return MakeError(Errc::kInvalidArgument,
                       absl::StrCat("kept record ", i, " has offsetDelta ", r.offset_delta, " after ", previous_delta,
                                    " (lastOffsetDelta ", original.last_offset_delta, ")"));
    }
    previous_delta = r.offset_delta;
    max_timestamp = std::max(max_timestamp, original.base_timestamp + r.timestamp_delta);
    AppendRecord(&body, &scratch, r.attributes, r.timestamp_delta, r.offset_delta, r.key, r.value, r.headers);
  }
  if (kept.empty()) codec = Compression::kNone;
  if (!kept.empty() && !original.log_append_time()) header.max_timestamp = max_timestamp;
  header.attributes = WithCodec(original.attributes, codec);
  STRATA_ASSIGN_OR_RETURN(std::string section, Compress(codec, body));
  return AssembleBatch(header, section);
}

absl::StatusOr<std::optional<TimestampOffset>> FindRecordByTimestamp(
    const RecordBatchHeader& header, int64_t target, int64_t start_offset,
    const std::function<absl::StatusOr<std::string>()>& read_batch, size_t max_uncompressed) {
  if (header.last_offset() < start_offset || header.max_timestamp < target) return std::optional<TimestampOffset>();
  const TimestampOffset batch_start{header.max_timestamp, std::max(header.base_offset, start_offset)};
  if (header.log_append_time()) return std::optional<TimestampOffset>(batch_start);
  STRATA_ASSIGN_OR_RETURN(std::string batch, read_batch());
  auto records = DecodeRecords(batch, max_uncompressed);
  if (!records.ok()) {
    // A section that decompresses past the bound: the batch start skips no match.
    if (header.compression() != Compression::kNone && ErrcOf(records.status()) == Errc::kInvalidRecord) {
      return std::optional<TimestampOffset>(batch_start);
    }
    return records.status();
  }
  for (const Record& r : *records) {
    int64_t offset = header.base_offset + r.offset_delta;
    int64_t timestamp = header.base_timestamp + r.timestamp_delta;
    if (offset >= start_offset && timestamp >= target) {
      return std::optional<TimestampOffset>(TimestampOffset{timestamp, offset});
    }
  }
  return std::optional<TimestampOffset>();
}

absl::string_view WholeBatches(absl::string_view records) {
  size_t end = 0;
  while (records.size() - end >= batch_layout::kLogOverhead) {
    auto length = LoadBigEndian<int32_t>(records.data() + end + batch_layout::kBatchLength);
    if (length < 0) break;
    size_t size = batch_layout::kLogOverhead + static_cast<size_t>(length);
    if (records.size() - end < size) break;
    end += size;
  }
  return records.substr(0, end);
}

}  // namespace strata::storage
