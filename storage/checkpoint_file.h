#pragma once
// Kafka's text checkpoint files: a version line (0), a count line, then one entry per
// line. Two shapes are used:
//   offset checkpoints (recovery-point-offset-checkpoint, log-start-offset-checkpoint,
//   replication-offset-checkpoint): "<topic> <partition> <offset>"
//   leader-epoch-checkpoint: "<epoch> <start offset>"
// Writes go tmp -> fsync -> rename -> fsync dir (WriteFileAtomically). A file that does
// not parse is an INVALID_CHECKPOINT error naming the file, the line and what is wrong.
// Thread-safe (stateless functions).

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"

namespace strata::storage {

using OffsetCheckpoint = std::map<TopicPartition, int64_t>;

std::string FormatOffsetCheckpoint(const OffsetCheckpoint& offsets);
absl::StatusOr<OffsetCheckpoint> ParseOffsetCheckpoint(absl::string_view text, absl::string_view file_name);
absl::Status WriteOffsetCheckpoint(FileOps& ops, const std::string& path, const OffsetCheckpoint& offsets);
// A missing file reads as empty.
absl::StatusOr<OffsetCheckpoint> ReadOffsetCheckpoint(FileOps& ops, const std::string& path);

struct EpochEntry {
  int32_t epoch = 0;
  int64_t start_offset = 0;
  bool operator==(const EpochEntry&) const = default;
};

std::string FormatEpochCheckpoint(const std::vector<EpochEntry>& entries);
absl::StatusOr<std::vector<EpochEntry>> ParseEpochCheckpoint(absl::string_view text, absl::string_view file_name);

}  // namespace strata::storage
