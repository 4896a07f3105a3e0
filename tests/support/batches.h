#pragma once
// Helpers that make record batches and read a Log back, for tests. Not thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/log.h"
#include "storage/record_batch.h"

namespace strata::testing {

// A batch of `records` records whose values are "<tag>-<i>" padded to value_size.
std::string MakeBatch(int records, const std::string& tag, int64_t timestamp = 1000, size_t value_size = 0);
// The same with an idempotent producer id, epoch and base sequence.
std::string MakeProducerBatch(int records, int64_t producer_id, int16_t epoch, int32_t base_sequence,
                              int64_t timestamp = 1000);

struct ReadRecord {
  int64_t offset;
  int64_t timestamp;
  std::string value;
  int32_t leader_epoch;
};

// The records of the whole batches in bytes at or above `from` (CRC checked; a partial
// batch at the end is left out); next_offset, when given, is set past the last batch.
absl::StatusOr<std::vector<ReadRecord>> DecodeAll(absl::string_view bytes, int64_t from = 0,
                                                  int64_t* next_offset = nullptr);
// Every record from `from` to the log end (whole batches only, CRC checked).
absl::StatusOr<std::vector<ReadRecord>> ReadAll(const storage::Log& log, int64_t from = -1);

}  // namespace strata::testing
