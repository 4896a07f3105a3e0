// Fuzz target: produced or replicated record data (consecutive RecordBatch v2 batches).
// Splitting, validating and decoding must never read out of bounds or crash: every
// batch is accepted or refused with a status.

#include <cstddef>
#include <cstdint>

#include "storage/record_batch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata::storage;
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  BatchSplitter splitter(input);
  for (int i = 0; i < 1000; ++i) {
    auto batch = splitter.Next();
    if (!batch.ok() || !batch->has_value()) break;
    (void)ValidateProducedBatch(**batch, 1 << 20);
    // Records are decoded from batches that passed validation (framing and CRC), as
    // the log does; a CRC-valid batch can still carry any record bytes.
    if (ValidateStoredBatch(**batch, "fuzz").ok()) (void)DecodeRecords(**batch);
  }
  return 0;
}
