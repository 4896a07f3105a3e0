#pragma once
// Shared set-up for Log tests: options on a temp dir with small segments. Not
// thread-safe.

#include <memory>
#include <string>

#include "storage/log.h"
#include "tests/support/batches.h"
#include "tests/support/temp_dir.h"

namespace strata::storage {

inline LogOptions SmallLogOptions(const std::string& partition_dir, FileOps* ops = FileOps::Default()) {
  LogOptions options;
  options.ops = ops;
  options.dir = partition_dir;
  options.config.segment_bytes = 1024;
  options.config.index_interval_bytes = 256;
  options.config.segment_index_bytes = 1024;
  return options;
}

// Appends `batches` batches of `records` records each as leader; returns the
// values in order.
inline std::vector<std::string> AppendBatches(Log& log, int batches, int records, const std::string& tag,
                                             int32_t epoch = 0, int64_t timestamp = 1000) {
  std::vector<std::string> values;
  for (int b = 0; b < batches; ++b) {
    std::string batch = testing::MakeBatch(records, tag + std::to_string(b), timestamp + b * records);
    auto info = log.AppendAsLeader(batch, epoch);
    if (!info.ok()) ADD_FAILURE() << info.status();
    for (int i = 0; i < records; ++i) values.push_back(tag + std::to_string(b) + "-" + std::to_string(i));
  }
  return values;
}

inline std::vector<std::string> Values(const std::vector<testing::ReadRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(r.value);
  return out;
}

}  // namespace strata::storage
