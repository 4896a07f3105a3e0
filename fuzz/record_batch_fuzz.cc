// Fuzz target: produced or replicated record data (consecutive RecordBatch v2 batches),
// and the same bytes as a compressed records section of every codec.
// Splitting, validating, decoding, decompressing and recompressing must never read out
// of bounds, crash or allocate past their bound: every input is accepted or refused
// with a status.

#include <cstddef>
#include <cstdint>
#include <string>

#include "storage/bytes.h"
#include "storage/compression.h"
#include "storage/record_batch.h"

namespace {

using namespace strata::storage;

constexpr size_t kBound = 1 << 20;
constexpr Compression kCodecs[] = {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd};

// Everything the broker does with a batch whose CRC holds: validate, decode (whatever
// its codec), recompress.
void Exercise(absl::string_view batch) {
  (void)ValidateProducedBatch(batch, 1 << 16);  // its decompression bound: 16 MiB
  auto records = DecodeRecords(batch, kBound);
  if (records.ok()) {
    RecordBatchHeader header = RecordBatchHeader::Parse(batch.data());
    (void)RecompressBatch(batch, header.compression() == Compression::kZstd ? Compression::kNone : Compression::kZstd,
                          kBound);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  BatchSplitter splitter(input);
  for (int i = 0; i < 1000; ++i) {
    auto batch = splitter.Next();
    if (!batch.ok() || !batch->has_value()) break;
    (void)ValidateProducedBatch(**batch, 1 << 20);
    // Records are decoded from batches that passed validation (framing and CRC), as
    // the log does; a CRC-valid batch can still carry any record bytes.
    if (ValidateStoredBatch(**batch, "fuzz").ok()) {
      Exercise(**batch);
    } else if ((*batch)->size() >= batch_layout::kHeaderSize) {
      // A mutation almost always breaks the CRC: mend it so mutated compressed
      // sections reach the decoders.
      std::string mended(**batch);
      StoreBigEndian(mended.data() + batch_layout::kCrc, ComputeBatchCrc(mended));
      Exercise(mended);
    }
  }
  // The whole input as a records section of each codec.
  for (Compression codec : kCodecs) {
    auto out = Decompress(codec, input, kBound);
    if (out.ok() && out->size() > kBound) __builtin_trap();
  }
  return 0;
}
