#pragma once
// RecordBatch v2: the unit Kafka clients produce, brokers store byte for byte and
// consumers fetch. This file is the codec: header layout, validation with a precise
// error per failure, offset assignment by rewriting the header (no re-encoding), the
// record codec (compressed records sections through storage/compression.h), a builder
// for tools and tests, and the two re-encodings the broker makes: recompression for a
// topic's compression.type and the cleaner's rebuild of a batch with records removed.
// Layout (big-endian; docs/storage-format.md has the full table):
//   baseOffset i64 | batchLength i32 | partitionLeaderEpoch i32 | magic i8 | crc u32 |
//   attributes i16 | lastOffsetDelta i32 | baseTimestamp i64 | maxTimestamp i64 |
//   producerId i64 | producerEpoch i16 | baseSequence i32 | recordsCount i32 | records
// The CRC32C covers attributes through the end of the batch, so baseOffset and
// partitionLeaderEpoch can be rewritten without recomputing it.
// Thread-safe (stateless functions; builders are not shared).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/compression.h"

namespace strata::storage {

namespace batch_layout {
inline constexpr size_t kBaseOffset = 0;
inline constexpr size_t kBatchLength = 8;
inline constexpr size_t kPartitionLeaderEpoch = 12;
inline constexpr size_t kMagic = 16;
inline constexpr size_t kCrc = 17;
inline constexpr size_t kAttributes = 21;
inline constexpr size_t kLastOffsetDelta = 23;
inline constexpr size_t kBaseTimestamp = 27;
inline constexpr size_t kMaxTimestamp = 35;
inline constexpr size_t kProducerId = 43;
inline constexpr size_t kProducerEpoch = 51;
inline constexpr size_t kBaseSequence = 53;
inline constexpr size_t kRecordsCount = 57;
inline constexpr size_t kHeaderSize = 61;
// baseOffset and batchLength: the bytes before what batchLength counts.
inline constexpr size_t kLogOverhead = 12;
}  // namespace batch_layout

inline constexpr int8_t kMagicV2 = 2;
inline constexpr int64_t kNoProducerId = -1;
inline constexpr int16_t kNoProducerEpoch = -1;
inline constexpr int32_t kNoSequence = -1;
inline constexpr int32_t kNoPartitionLeaderEpoch = -1;
inline constexpr int64_t kNoTimestamp = -1;

struct RecordBatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;
  int32_t partition_leader_epoch = kNoPartitionLeaderEpoch;
  int8_t magic = kMagicV2;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t base_sequence = kNoSequence;
  int32_t records_count = 0;

  // REQUIRES: `p` has batch_layout::kHeaderSize readable bytes.
  static RecordBatchHeader Parse(const char* p);

  int64_t last_offset() const { return base_offset + last_offset_delta; }
  int64_t next_offset() const { return last_offset() + 1; }
  // Bytes of the whole batch on disk and on the wire.
  int64_t size_in_bytes() const { return int64_t{batch_length} + batch_layout::kLogOverhead; }
  Compression compression() const { return static_cast<Compression>(attributes & 0x7); }
  bool log_append_time() const { return (attributes & 0x8) != 0; }
  bool is_transactional() const { return (attributes & 0x10) != 0; }
  bool is_control() const { return (attributes & 0x20) != 0; }
  bool has_producer_id() const { return producer_id >= 0; }
  // Sequence of the last record, wrapping past INT32_MAX as Kafka does.
  int32_t last_sequence() const;
};

// Checks what can be checked from the 61-byte header alone against the bytes that
// follow it: the magic and that batchLength frames a batch that fits in `available`
// bytes. `where` names the batch in errors (file and position, or "request").
absl::Status CheckBatchFraming(const RecordBatchHeader& header, size_t available, absl::string_view where);

// The CRC32C of `batch` (a whole batch) as stored bytes would have it.
uint32_t ComputeBatchCrc(absl::string_view batch);

// Validates one whole batch as stored: framing and CRC. Used for replicated data
// and recovery, where offsets and gaps from compaction are legitimate.
absl::Status ValidateStoredBatch(absl::string_view batch, absl::string_view where);

// Validates one whole batch from a producer, as Kafka's LogValidator: everything
// ValidateStoredBatch checks, plus batch size <= max_batch_bytes, at least one record,
// lastOffsetDelta == recordsCount - 1, a known codec and, whatever the codec, that the
// records decode, fill the (decompressed) records section exactly and carry offset
// deltas 0, 1, 2, ... A compressed section may decompress to at most
// MaxUncompressedBatchBytes(max_batch_bytes).
absl::Status ValidateProducedBatch(absl::string_view batch, int64_t max_batch_bytes);

// Rewrites header fields outside the CRC's range. REQUIRES: a whole batch.
void SetBaseOffset(char* batch, int64_t base_offset);
void SetPartitionLeaderEpoch(char* batch, int32_t epoch);
// LogAppendTime: sets the timestamp-type attribute and maxTimestamp to now and
// recomputes the CRC (both lie in its range). Readers then take maxTimestamp as every
// record's timestamp. Header fields only, so compressed batches are not re-encoded.
// REQUIRES: a whole batch of `size` bytes.
void SetLogAppendTime(char* batch, size_t size, int64_t now);

struct RecordHeader {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const RecordHeader&) const = default;
};

struct Record {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<RecordHeader> headers;
  bool operator==(const Record&) const = default;
};

// Decodes the records of a batch, decompressing its records section (the bytes after
// the header) when compressed, to at most max_uncompressed bytes (INVALID_RECORD past
// it). Errors name the record index. REQUIRES: batch.size() >= batch_layout::kHeaderSize.
absl::StatusOr<std::vector<Record>> DecodeRecords(absl::string_view batch,
                                                  size_t max_uncompressed = kDefaultMaxUncompressedBatchBytes);

// A whole batch with its records section in codec `target` (Kafka's compression.type
// differing from the producer's codec): the records are carried over byte for byte
// (keys, values, headers, offset and timestamp deltas), the header keeps every field
// (base offset, producer fields, timestamps, transactional, control and timestamp-type
// bits) but the codec bits and batchLength, and the CRC is recomputed. The input must
// pass ValidateStoredBatch; call it after ValidateProducedBatch. The result may be
// larger than the input: the caller checks it against max.message.bytes again, as
// Kafka does after recompressing. The input itself when it already uses `target`.
absl::StatusOr<std::string> RecompressBatch(absl::string_view batch, Compression target, size_t max_uncompressed);

// The batch the log cleaner writes for `original` with only `kept` of its records left
// (Kafka's MemoryRecords.filterTo): original's base offset, partition leader epoch,
// lastOffsetDelta (so the producer's sequence range is kept), base timestamp, producer
// id, epoch and base sequence and attributes (codec bits replaced by `codec`);
// recordsCount = kept.size(); each record keeps its attributes, offset and timestamp
// deltas. maxTimestamp is recomputed from the kept records for CreateTime and kept for
// LogAppendTime. No records (an empty batch kept for an idempotent producer's sequence)
// gives an uncompressed header-only batch with original's maxTimestamp, as Kafka writes
// it. INVALID_ARGUMENT when kept's offset deltas do not rise strictly within
// [0, lastOffsetDelta].
absl::StatusOr<std::string> BuildBatchFrom(const RecordBatchHeader& original, const std::vector<Record>& kept,
                                           Compression codec);

// The timestamp lookup's step over one batch (ListOffsets by time, local and remote
// segments): the first record with offset >= start_offset and timestamp >= target, or
// nullopt when the batch holds none. Decided from the header where it can: a batch
// wholly below start_offset or with maxTimestamp < target holds none, and in a
// LogAppendTime batch every record carries maxTimestamp, so its first offset at or
// after start_offset is the answer. Otherwise read_batch supplies the whole, validated
// batch and its records are decoded, compressed ones to at most max_uncompressed bytes;
// past that bound the batch's first offset at or after start_offset is answered, which
// never skips a matching record.
struct TimestampOffset {
  int64_t timestamp = -1;
  int64_t offset = 0;
};
absl::StatusOr<std::optional<TimestampOffset>> FindRecordByTimestamp(
    const RecordBatchHeader& header, int64_t target, int64_t start_offset,
    const std::function<absl::StatusOr<std::string>()>& read_batch,
    size_t max_uncompressed = kDefaultMaxUncompressedBatchBytes);

// Splits a buffer of consecutive whole batches (a produce request's records, a
// follower's fetched data). Each call returns the next batch, nullopt at the end, or
// an error when the bytes left do not frame a batch.
class BatchSplitter {
 public:
  explicit BatchSplitter(absl::string_view buffer) : rest_(buffer) {}
  absl::StatusOr<std::optional<absl::string_view>> Next();
  size_t position() const { return position_; }

 private:
  absl::string_view rest_;
  size_t position_ = 0;
};

// The whole batches at the front of fetched bytes: a leader cuts the last batch when a
// fetch reaches its max bytes, and the follower (or a consumer) fetches it whole next
// time. Frames only (the log overhead's length field); nothing is validated.
absl::string_view WholeBatches(absl::string_view records);

// Builds a batch in memory: for the CLI's producer, the benchmarks and tests.
class RecordBatchBuilder {
 public:
  RecordBatchBuilder& set_base_offset(int64_t v) { base_offset_ = v; return *this; }
  RecordBatchBuilder& set_partition_leader_epoch(int32_t v) { epoch_ = v; return *this; }
  RecordBatchBuilder& set_producer(int64_t id, int16_t epoch, int32_t base_sequence) {
    producer_id_ = id; producer_epoch_ = epoch; base_sequence_ = base_sequence; return *this;
  }
  RecordBatchBuilder& set_transactional(bool v) { transactional_ = v; return *this; }
  RecordBatchBuilder& set_control(bool v) { control_ = v; return *this; }
  // The records section is compressed with codec (kNone: as added).
  RecordBatchBuilder& set_compression(Compression codec) { compression_ = codec; return *this; }
  // Sets the LogAppendTime attribute (the timestamps stay as added).
  RecordBatchBuilder& set_log_append_time(bool v) { log_append_time_ = v; return *this; }
  RecordBatchBuilder& Add(std::optional<absl::string_view> key, std::optional<absl::string_view> value,
                          int64_t timestamp, std::vector<RecordHeader> headers = {});
  bool empty() const { return records_.empty(); }
  size_t record_count() const { return records_.size(); }
  // REQUIRES: at least one record added.
  std::string Build() const;

 private:
  struct Pending {
    std::optional<std::string> key, value;
    int64_t timestamp;
    std::vector<RecordHeader> headers;
  };
  int64_t base_offset_ = 0;
  int32_t epoch_ = kNoPartitionLeaderEpoch;
  int64_t producer_id_ = kNoProducerId;
  int16_t producer_epoch_ = kNoProducerEpoch;
  int32_t base_sequence_ = kNoSequence;
  bool transactional_ = false;
  bool control_ = false;
  bool log_append_time_ = false;
  Compression compression_ = Compression::kNone;
  std::vector<Pending> records_;
};

}  // namespace strata::storage
