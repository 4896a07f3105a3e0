#pragma once
// Every on-disk name the storage engine uses, in one place (Kafka's layout).
// A segment's files are named by its base offset in 20 digits:
//   00000000000000000000.log / .index / .timeindex / .txnindex / .snapshot
// with suffixes .cleaned, .swap and .deleted for the steps of a replace or delete.
// Thread-safe (stateless).

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace strata::storage {

inline constexpr absl::string_view kLogSuffix = ".log";
inline constexpr absl::string_view kIndexSuffix = ".index";
inline constexpr absl::string_view kTimeIndexSuffix = ".timeindex";
inline constexpr absl::string_view kSnapshotSuffix = ".snapshot";
inline constexpr absl::string_view kTxnIndexSuffix = ".txnindex";
inline constexpr absl::string_view kCleanedSuffix = ".cleaned";
inline constexpr absl::string_view kSwapSuffix = ".swap";
inline constexpr absl::string_view kDeletedSuffix = ".deleted";
inline constexpr absl::string_view kTmpSuffix = ".tmp";

inline constexpr absl::string_view kLeaderEpochCheckpointFile = "leader-epoch-checkpoint";
inline constexpr absl::string_view kPartitionMetadataFile = "partition.metadata";
inline constexpr absl::string_view kRecoveryPointCheckpointFile = "recovery-point-offset-checkpoint";
inline constexpr absl::string_view kLogStartOffsetCheckpointFile = "log-start-offset-checkpoint";
inline constexpr absl::string_view kReplicationOffsetCheckpointFile = "replication-offset-checkpoint";
inline constexpr absl::string_view kMetaPropertiesFile = "meta.properties";
inline constexpr absl::string_view kCleanShutdownFile = ".kafka_cleanshutdown";
// A partition dir renamed for deletion: <topic>-<partition>.<unique>-delete
inline constexpr absl::string_view kDeleteDirSuffix = "-delete";
// A replica being moved to this log dir (AlterReplicaLogDirs), Kafka's future log:
// <topic>-<partition>.<unique>-future
inline constexpr absl::string_view kFutureDirSuffix = "-future";
// The remote tier's chunk cache, by default in the first log dir (not a partition's).
inline constexpr absl::string_view kRemoteChunkCacheDirName = "remote-chunk-cache";

// "00000000000000000042"
std::string OffsetToFileStem(int64_t offset);
// dir/00000000000000000042<suffix>
std::string SegmentFileName(absl::string_view dir, int64_t base_offset, absl::string_view suffix);

// Parses a name such as "00000000000000000042.log.swap": the offset, the main
// suffix (".log") and the state suffix (".swap" or ""). nullopt for other names.
struct ParsedFileName {
  int64_t offset = 0;
  std::string kind;   // ".log", ".index", ".timeindex", ".txnindex", ".snapshot"
  std::string state;  // "", ".cleaned", ".swap", ".deleted"
};
std::optional<ParsedFileName> ParseSegmentFileName(absl::string_view name);

// Topic and partition of a partition directory name "<topic>-<partition>".
struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  bool operator==(const TopicPartition&) const = default;
  auto operator<=>(const TopicPartition&) const = default;
  std::string DirName() const;
};
std::optional<TopicPartition> ParsePartitionDirName(absl::string_view name);
// "<topic>-<partition>.<unique>-future" for tp, with a new unique part.
std::string FutureDirName(const TopicPartition& tp);
// The partition of a future log's directory name; nullopt for other names.
std::optional<TopicPartition> ParseFutureDirName(absl::string_view name);

}  // namespace strata::storage
