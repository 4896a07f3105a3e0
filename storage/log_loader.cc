#include "storage/log_loader.h"

#include "base/logging.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"
#include "storage/file_names.h"
#include "storage/log.h"

namespace strata::storage {
namespace {

struct DirListing {
  std::set<int64_t> logs;        // live .log files
  std::set<int64_t> log_swaps;   // .log.swap files
  std::vector<std::string> index_swaps;  // .index.swap / .timeindex.swap names
};

absl::Status RemoveIfExists(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  return exists ? ops.Remove(path) : absl::OkStatus();
}

absl::Status RemoveSegmentFiles(FileOps& ops, const std::string& dir, int64_t base, absl::string_view state) {
  for (absl::string_view kind : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix}) {
    STRATA_RETURN_IF_ERROR(RemoveIfExists(ops, SegmentFileName(dir, base, absl::StrCat(kind, state))));
  }
  return absl::OkStatus();
}

// Step 1: removes leftovers and lists what stays.
absl::StatusOr<DirListing> CleanLeftovers(FileOps& ops, const std::string& dir) {
  STRATA_ASSIGN_OR_RETURN(auto names, ops.ListDir(dir));
  int64_t min_cleaned = INT64_MAX;
  std::vector<std::pair<ParsedFileName, std::string>> swaps;
  DirListing listing;
  for (const auto& name : names) {
    std::string path = JoinPath(dir, name);
    if (name.size() > kTmpSuffix.size() && absl::EndsWith(name, kTmpSuffix)) {
      STRATA_RETURN_IF_ERROR(ops.Remove(path));
      continue;
    }
    auto parsed = ParseSegmentFileName(name);
    if (!parsed) continue;
    if (parsed->state == kDeletedSuffix) {
      STRATA_RETURN_IF_ERROR(ops.Remove(path));
    } else if (parsed->state == kCleanedSuffix) {
      min_cleaned = std::min(min_cleaned, parsed->offset);
      STRATA_RETURN_IF_ERROR(ops.Remove(path));
    } else if (parsed->state == kSwapSuffix) {
      swaps.emplace_back(*parsed, name);
    } else if (parsed->kind == kLogSuffix) {
      listing.logs.insert(parsed->offset);
    }
  }
  for (const auto& [parsed, name] : swaps) {
    if (parsed.offset >= min_cleaned) {
      spdlog::info("{}: removing {} left by a compaction that did not finish", dir, name);
      STRATA_RETURN_IF_ERROR(ops.Remove(JoinPath(dir, name)));
    } else if (parsed.kind == kLogSuffix) {
      listing.log_swaps.insert(parsed.offset);
    } else if (parsed.kind != kSnapshotSuffix) {
      listing.index_swaps.push_back(name);
    }
  }
  return listing;
}

}  // namespace

absl::Status LogLoader::Load(Log& log) {
  const LogOptions& options = log.options_;
  FileOps& ops = *options.ops;
  const std::string& dir = options.dir;
  LoadStats& stats = log.load_stats_;
  STRATA_RETURN_IF_ERROR(ops.CreateDir(dir));
  STRATA_ASSIGN_OR_RETURN(DirListing listing, CleanLeftovers(ops, dir));

  // Step 2: complete interrupted replaces.
  for (int64_t base : listing.log_swaps) {
    STRATA_ASSIGN_OR_RETURN(auto swap, LogSegment::Open(SegmentOptionsFor(options, base, std::string(kSwapSuffix)), false));
    STRATA_ASSIGN_OR_RETURN(ScanResult scan, swap->ValidateAndRebuildIndexes(nullptr));
    if (scan.invalid_bytes > 0) {
      return MakeError(Errc::kInconsistentLog,
                       absl::StrCat("swap segment ", swap->log_path(), " has ", scan.invalid_bytes,
                                    " invalid bytes at position ", scan.valid_bytes, " (",
                                    scan.first_problem.message(), "); refusing to load a log with a hole"));
    }
    STRATA_ASSIGN_OR_RETURN(int64_t next_offset, swap->ReadNextOffset());
    for (auto it = listing.logs.lower_bound(base); it != listing.logs.end() && *it < next_offset;) {
      STRATA_RETURN_IF_ERROR(RemoveSegmentFiles(ops, dir, *it, ""));
      it = listing.logs.erase(it);
    }
    STRATA_RETURN_IF_ERROR(swap->ChangeSuffix(""));
    STRATA_RETURN_IF_ERROR(swap->Close());
    listing.logs.insert(base);
    ++stats.swaps_completed;
    spdlog::info("{}: completed the swap of segment {} (offsets [{}, {}))", dir, base, base, next_offset);
  }
  for (const std::string& name : listing.index_swaps) {
    std::string from = JoinPath(dir, name);
    STRATA_RETURN_IF_ERROR(ops.Rename(from, from.substr(0, from.size() - kSwapSuffix.size())));
  }

  // Step 3: load segments.
  int64_t recovery_point = options.recovery_point;
  for (int64_t base : listing.logs) {
    SegmentOptions so = SegmentOptionsFor(options, base);
    STRATA_ASSIGN_OR_RETURN(bool index_exists, ops.Exists(SegmentFileName(dir, base, kIndexSuffix)));
    STRATA_ASSIGN_OR_RETURN(bool time_index_exists, ops.Exists(SegmentFileName(dir, base, kTimeIndexSuffix)));
    STRATA_ASSIGN_OR_RETURN(auto segment, LogSegment::Open(so, false));
    absl::Status sane = segment->SanityCheckIndexes();
    if (!index_exists || !time_index_exists || !sane.ok()) {
      spdlog::warn("{}: rebuilding the indexes of segment {} ({})", dir, base,
                   sane.ok() ? "an index file is missing" : sane.message());
      STRATA_ASSIGN_OR_RETURN(ScanResult scan, segment->ValidateAndRebuildIndexes(nullptr));
      ++stats.indexes_rebuilt;
      if (scan.invalid_bytes > 0) {
        // Where the valid data ends, as an offset: the last valid batch's next offset.
        int64_t end_offset = base;
        STRATA_RETURN_IF_ERROR(segment->ScanHeaders(
            0,
            [&](const BatchLocation& b) {
              end_offset = b.header.next_offset();
              return true;
            },
            scan.valid_bytes));
        if (end_offset < recovery_point) {
          return MakeError(Errc::kInconsistentLog,
                           absl::StrCat("segment ", segment->log_path(), " has ", scan.invalid_bytes,
                                        " invalid bytes at position ", scan.valid_bytes, " (offset ", end_offset,
                                        ") below the recovery point ", recovery_point, ": ",
                                        scan.first_problem.message()));
        }
      }
    }
    log.segments_.emplace(base, std::move(segment));
    ++stats.segments_loaded;
  }

  // Step 4: recover what was not flushed.
  if (!options.had_clean_shutdown && !log.segments_.empty()) {
    std::vector<EpochEntry> epochs_seen;
    auto it = log.segments_.upper_bound(recovery_point);
    if (it != log.segments_.begin()) --it;
    std::optional<int64_t> previous_end;  // next offset after the last recovered segment
    auto drop_from = [&](auto from) -> absl::Status {
      while (from != log.segments_.end()) {
        stats.bytes_truncated += from->second->size();
        from->second->Abandon();
        STRATA_RETURN_IF_ERROR(from->second->DeleteFiles());
        from = log.segments_.erase(from);
      }
      return absl::OkStatus();
    };
    while (it != log.segments_.end()) {
      LogSegment& segment = *it->second;
      if (previous_end && *previous_end >= recovery_point && segment.base_offset() != *previous_end) {
        // The tail of the segment before was lost: a later segment would leave a hole.
        spdlog::warn("{}: segment {} does not start where the recovered log ends ({}); removing it and later ones",
                     dir, segment.base_offset(), *previous_end);
        STRATA_RETURN_IF_ERROR(drop_from(it));
        break;
      }
      int64_t end = segment.base_offset();
      STRATA_ASSIGN_OR_RETURN(ScanResult scan, segment.Recover([&](const RecordBatchHeader& h, absl::string_view) {
        end = h.next_offset();
        if (h.partition_leader_epoch >= 0 &&
            (epochs_seen.empty() || h.partition_leader_epoch > epochs_seen.back().epoch)) {
          epochs_seen.push_back({h.partition_leader_epoch, h.base_offset});
        }
      }, recovery_point));
      ++stats.segments_recovered;
      previous_end = end;
      ++it;
      if (scan.invalid_bytes > 0) {
        spdlog::warn("{}: truncated {} invalid bytes at position {} of segment {}: {}", dir, scan.invalid_bytes,
                     scan.valid_bytes, segment.base_offset(), scan.first_problem.message());
        stats.bytes_truncated += scan.invalid_bytes;
        STRATA_RETURN_IF_ERROR(drop_from(it));
        break;
      }
    }
    STRATA_RETURN_IF_ERROR(log.leader_epoch_cache_->Assign(epochs_seen));
  }

  // Step 5: offsets, the active segment, epoch cache and producer state.
  if (!log.segments_.empty()) {
    STRATA_ASSIGN_OR_RETURN(int64_t end, log.segments_.rbegin()->second->ReadNextOffset());
    if (end < options.log_start_offset) {
      // Nothing at or above the checkpointed log start survived (it was unflushed):
      // the log restarts, empty, at its start rather than moving the start back.
      spdlog::warn("{}: log ends at {}, below its log start offset {}; restarting it empty there", dir, end,
                   options.log_start_offset);
      for (auto it = log.segments_.begin(); it != log.segments_.end(); it = log.segments_.erase(it)) {
        it->second->Abandon();
        STRATA_RETURN_IF_ERROR(it->second->DeleteFiles());
      }
    }
  }
  if (log.segments_.empty()) {
    SegmentOptions so = SegmentOptionsFor(options, options.log_start_offset);
    STRATA_ASSIGN_OR_RETURN(auto segment, LogSegment::Open(so, true));
    log.segments_.emplace(options.log_start_offset, std::move(segment));
  }
  LogSegment& active = *log.segments_.rbegin()->second;
  STRATA_RETURN_IF_ERROR(active.MakeActive());
  STRATA_ASSIGN_OR_RETURN(log.log_end_offset_, active.ReadNextOffset());
  log.log_start_offset_ = std::max(options.log_start_offset, log.segments_.begin()->first);
  ABSL_CHECK_LE(log.log_start_offset_, log.log_end_offset_) << dir;
  if (!options.had_clean_shutdown) {
    // Recovered segments were rewritten (truncation, indexes): make that durable.
    for (auto it = log.segments_.begin(); it != log.segments_.end(); ++it) {
      auto next = std::next(it);
      if (next != log.segments_.end() && next->first <= recovery_point) continue;  // flushed before
      STRATA_RETURN_IF_ERROR(it->second->Flush());
    }
    STRATA_RETURN_IF_ERROR(ops.SyncDir(dir));
  }
  int64_t snapshot_bound = options.had_clean_shutdown ? log.log_end_offset_
                                                      : std::min(recovery_point, log.log_end_offset_);
  log.recovery_point_ = log.log_end_offset_;
  log.high_watermark_ = std::clamp(options.high_watermark, log.log_start_offset_, log.log_end_offset_);
  STRATA_RETURN_IF_ERROR(log.leader_epoch_cache_->TruncateFromEnd(log.log_end_offset_));
  STRATA_RETURN_IF_ERROR(log.leader_epoch_cache_->TruncateFromStart(log.log_start_offset_));

  STRATA_ASSIGN_OR_RETURN(auto snapshot, log.ReloadProducerStateLocked(snapshot_bound, &stats.producer_batches_replayed));
  stats.producer_snapshot_offset = snapshot.value_or(-1);
  spdlog::info("{}: loaded {} segments, offsets [{}, {}), recovered {} segments, rebuilt {} indexes, {} swaps, "
               "replayed {} batches into producer state",
               dir, stats.segments_loaded, log.log_start_offset_, log.log_end_offset_, stats.segments_recovered,
               stats.indexes_rebuilt, stats.swaps_completed, stats.producer_batches_replayed);
  return absl::OkStatus();
}

}  // namespace strata::storage
