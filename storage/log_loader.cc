#include "storage/log_loader.h"

#include "base/logging.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"
#include "storage/file_names.h"

namespace strata::storage {
namespace {

absl::Status RemoveIfExists(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  return exists ? ops.Remove(path) : absl::OkStatus();
}

absl::Status RemoveSegmentFiles(FileOps& ops, const std::string& dir, int64_t base, absl::string_view state) {
  for (absl::string_view kind : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix}) {
    STRATA_RETURN_IF_ERROR(RemoveIfExists(ops, SegmentFileName(dir, base, absl::StrCat(kind, state))));
  }
  return absl::OkStatus();
}

// The marker of the control batch at b (read whole: a few dozen bytes).
absl::StatusOr<EndTxnMarker> ReadMarkerAt(const LogSegment& segment, const BatchLocation& b) {
  std::string batch(static_cast<size_t>(b.header.size_in_bytes()), '\0');
  STRATA_ASSIGN_OR_RETURN(size_t n, segment.log_file()->Read(b.position, batch.data(), batch.size()));
  if (n != batch.size()) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat(segment.log_path(), ": control batch at position ",
                                                         b.position, " is cut short"));
  }
  STRATA_RETURN_IF_ERROR(ValidateStoredBatch(batch, absl::StrCat(segment.log_path(), " at position ", b.position)));
  return ReadControlBatch(batch);
}

}  // namespace

absl::StatusOr<LogLoadState> LogLoader::Load(const LogOptions& options) {
  LogLoader loader(options);
  STRATA_RETURN_IF_ERROR(loader.OpenDir());
  STRATA_ASSIGN_OR_RETURN(DirListing listing, loader.RemoveLeftovers());
  STRATA_RETURN_IF_ERROR(loader.CompleteSwaps(listing));
  STRATA_RETURN_IF_ERROR(loader.OpenSegments(listing));
  if (!options.had_clean_shutdown) STRATA_RETURN_IF_ERROR(loader.RecoverAboveRecoveryPoint());
  STRATA_RETURN_IF_ERROR(loader.SetOffsets());
  if (!options.had_clean_shutdown) STRATA_RETURN_IF_ERROR(loader.FlushRecovered());
  STRATA_RETURN_IF_ERROR(loader.LoadEpochsAndProducerState());
  const LoadStats& stats = loader.state_.stats;
  spdlog::info("{}: loaded {} segments, offsets [{}, {}), recovered {} segments ({} bytes), rebuilt {} indexes, "
               "{} swaps, replayed {} batches into producer state ({} rebuilds)",
               options.dir, stats.segments_loaded, loader.state_.log_start_offset, loader.state_.log_end_offset,
               stats.segments_recovered, stats.bytes_recovered, stats.indexes_rebuilt, stats.swaps_completed,
               stats.producer_batches_replayed, stats.producer_state_rebuilds);
  return std::move(loader.state_);
}

// Step 0.
absl::Status LogLoader::OpenDir() {
  STRATA_RETURN_IF_ERROR(ops_.CreateDir(dir_));
  STRATA_ASSIGN_OR_RETURN(state_.leader_epoch_cache,
                          LeaderEpochCache::Load(ops_, JoinPath(dir_, kLeaderEpochCheckpointFile)));
  state_.producer_state = std::make_unique<ProducerStateManager>(ops_, dir_);
  return absl::OkStatus();
}

// Step 1: removes leftovers and lists what stays.
absl::StatusOr<LogLoader::DirListing> LogLoader::RemoveLeftovers() {
  STRATA_ASSIGN_OR_RETURN(auto names, ops_.ListDir(dir_));
  int64_t min_cleaned = INT64_MAX;
  std::vector<std::pair<ParsedFileName, std::string>> swaps;
  std::vector<std::pair<int64_t, std::string>> index_swaps;
  DirListing listing;
  for (const auto& name : names) {
    std::string path = JoinPath(dir_, name);
    if (name.size() > kTmpSuffix.size() && absl::EndsWith(name, kTmpSuffix)) {
      STRATA_RETURN_IF_ERROR(ops_.Remove(path));
      continue;
    }
    auto parsed = ParseSegmentFileName(name);
    if (!parsed) continue;
    if (parsed->state == kDeletedSuffix) {
      STRATA_RETURN_IF_ERROR(ops_.Remove(path));
    } else if (parsed->state == kCleanedSuffix) {
      min_cleaned = std::min(min_cleaned, parsed->offset);
      STRATA_RETURN_IF_ERROR(ops_.Remove(path));
    } else if (parsed->state == kSwapSuffix) {
      swaps.emplace_back(*parsed, name);
    } else if (parsed->kind == kLogSuffix) {
      listing.logs.insert(parsed->offset);
    }
  }
  for (const auto& [parsed, name] : swaps) {
    if (parsed.offset >= min_cleaned) {
      spdlog::info("{}: removing {} left by a compaction that did not finish", dir_, name);
      STRATA_RETURN_IF_ERROR(ops_.Remove(JoinPath(dir_, name)));
    } else if (parsed.kind == kLogSuffix) {
      listing.log_swaps.insert(parsed.offset);
    } else if (parsed.kind != kSnapshotSuffix) {
      index_swaps.emplace_back(parsed.offset, name);
    }
  }
  // An index swap whose .log.swap is still there is completed with it (CompleteSwaps);
  // alone, its .log.swap was renamed into place before the crash.
  for (const auto& [offset, name] : index_swaps) {
    if (!listing.log_swaps.count(offset)) listing.index_swaps.push_back(name);
  }
  return listing;
}

// Step 2: completes interrupted replaces.
absl::Status LogLoader::CompleteSwaps(DirListing& listing) {
  for (int64_t base : listing.log_swaps) {
    STRATA_ASSIGN_OR_RETURN(auto swap,
                            LogSegment::Open(SegmentOptionsFor(options_, base, std::string(kSwapSuffix)), false));
    STRATA_ASSIGN_OR_RETURN(ScanResult scan, swap->ValidateAndRebuildIndexes(nullptr));
    if (scan.invalid_bytes > 0) {
      return MakeError(Errc::kInconsistentLog,
                       absl::StrCat("swap segment ", swap->log_path(), " has ", scan.invalid_bytes,
                                    " invalid bytes at position ", scan.valid_bytes, " (",
                                    scan.first_problem.message(), "); refusing to load a log with a hole"));
    }
    STRATA_ASSIGN_OR_RETURN(int64_t next_offset, swap->ReadNextOffset());
    for (auto it = listing.logs.lower_bound(base); it != listing.logs.end() && *it < next_offset;) {
      STRATA_RETURN_IF_ERROR(RemoveSegmentFiles(ops_, dir_, *it, ""));
      it = listing.logs.erase(it);
    }
    STRATA_RETURN_IF_ERROR(swap->ChangeSuffix(""));
    STRATA_RETURN_IF_ERROR(swap->Close());
    listing.logs.insert(base);
    ++state_.stats.swaps_completed;
    spdlog::info("{}: completed the swap of segment {} (offsets [{}, {}))", dir_, base, base, next_offset);
  }
  for (const std::string& name : listing.index_swaps) {
    std::string from = JoinPath(dir_, name);
    STRATA_RETURN_IF_ERROR(ops_.Rename(from, from.substr(0, from.size() - kSwapSuffix.size())));
  }
  return absl::OkStatus();
}

// Step 3: opens the segments, rebuilding missing or corrupt indexes.
absl::Status LogLoader::OpenSegments(const DirListing& listing) {
  const int64_t recovery_point = options_.recovery_point;
  for (int64_t base : listing.logs) {
    SegmentOptions so = SegmentOptionsFor(options_, base);
    STRATA_ASSIGN_OR_RETURN(bool index_exists, ops_.Exists(SegmentFileName(dir_, base, kIndexSuffix)));
    STRATA_ASSIGN_OR_RETURN(bool time_index_exists, ops_.Exists(SegmentFileName(dir_, base, kTimeIndexSuffix)));
    STRATA_ASSIGN_OR_RETURN(auto segment, LogSegment::Open(so, false));
    absl::Status sane = segment->SanityCheckIndexes();
    if (!index_exists || !time_index_exists || !sane.ok()) {
      spdlog::warn("{}: rebuilding the indexes of segment {} ({})", dir_, base,
                   sane.ok() ? "an index file is missing" : sane.message());
      STRATA_ASSIGN_OR_RETURN(ScanResult scan, segment->ValidateAndRebuildIndexes(nullptr));
      ++state_.stats.indexes_rebuilt;
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
    state_.segments.emplace(base, std::move(segment));
    ++state_.stats.segments_loaded;
  }
  return absl::OkStatus();
}

absl::Status LogLoader::DropSegmentsFrom(SegmentMap::iterator from,
                                         bool count_truncated) {
  while (from != state_.segments.end()) {
    if (count_truncated) state_.stats.bytes_truncated += from->second->size();
    from->second->Abandon();
    STRATA_RETURN_IF_ERROR(from->second->DeleteFiles());
    from = state_.segments.erase(from);
  }
  return absl::OkStatus();
}

// Step 4 (unclean shutdown): recovers what was not flushed.
absl::Status LogLoader::RecoverAboveRecoveryPoint() {
  auto& segments = state_.segments;
  if (segments.empty()) return absl::OkStatus();
  const int64_t recovery_point = options_.recovery_point;
  std::vector<EpochEntry> epochs_seen;
  auto it = segments.upper_bound(recovery_point);
  if (it != segments.begin()) --it;
  std::optional<int64_t> previous_end;  // next offset after the last recovered segment
  while (it != segments.end()) {
    LogSegment& segment = *it->second;
    if (previous_end && *previous_end >= recovery_point && segment.base_offset() != *previous_end) {
      // The tail of the segment before was lost: a later segment would leave a hole.
      spdlog::warn("{}: segment {} does not start where the recovered log ends ({}); removing it and later ones",
                   dir_, segment.base_offset(), *previous_end);
      STRATA_RETURN_IF_ERROR(DropSegmentsFrom(it, true));
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
    ++state_.stats.segments_recovered;
    state_.stats.bytes_recovered += static_cast<int64_t>(scan.valid_bytes + scan.invalid_bytes);
    previous_end = end;
    ++it;
    if (scan.invalid_bytes > 0) {
      spdlog::warn("{}: truncated {} invalid bytes at position {} of segment {}: {}", dir_, scan.invalid_bytes,
                   scan.valid_bytes, segment.base_offset(), scan.first_problem.message());
      state_.stats.bytes_truncated += scan.invalid_bytes;
      STRATA_RETURN_IF_ERROR(DropSegmentsFrom(it, true));
      break;
    }
  }
  return state_.leader_epoch_cache->Assign(epochs_seen);
}

// Step 5: the log's offsets and its active segment.
absl::Status LogLoader::SetOffsets() {
  auto& segments = state_.segments;
  if (!segments.empty()) {
    STRATA_ASSIGN_OR_RETURN(int64_t end, segments.rbegin()->second->ReadNextOffset());
    if (end < options_.log_start_offset) {
      // Nothing at or above the checkpointed log start survived (it was unflushed):
      // the log restarts, empty, at its start rather than moving the start back.
      spdlog::warn("{}: log ends at {}, below its log start offset {}; restarting it empty there", dir_, end,
                   options_.log_start_offset);
      STRATA_RETURN_IF_ERROR(DropSegmentsFrom(segments.begin(), false));
    }
  }
  if (segments.empty()) {
    SegmentOptions so = SegmentOptionsFor(options_, options_.log_start_offset);
    STRATA_ASSIGN_OR_RETURN(auto segment, LogSegment::Open(so, true));
    segments.emplace(options_.log_start_offset, std::move(segment));
  }
  LogSegment& active = *segments.rbegin()->second;
  STRATA_RETURN_IF_ERROR(active.MakeActive());
  STRATA_ASSIGN_OR_RETURN(state_.log_end_offset, active.ReadNextOffset());
  state_.log_start_offset = std::max(options_.log_start_offset, segments.begin()->first);
  ABSL_CHECK_LE(state_.log_start_offset, state_.log_end_offset) << dir_;
  state_.recovery_point = state_.log_end_offset;
  state_.high_watermark = std::clamp(options_.high_watermark, state_.log_start_offset, state_.log_end_offset);
  return absl::OkStatus();
}

// Step 5, unclean shutdown: recovered segments were rewritten (truncation, indexes);
// makes that durable.
absl::Status LogLoader::FlushRecovered() {
  auto& segments = state_.segments;
  for (auto it = segments.begin(); it != segments.end(); ++it) {
    auto next = std::next(it);
    if (next != segments.end() && next->first <= options_.recovery_point) continue;  // flushed before
    STRATA_RETURN_IF_ERROR(it->second->Flush());
  }
  return ops_.SyncDir(dir_);
}

// Step 6: the epoch cache within the log, producer state from a snapshot and the log.
absl::Status LogLoader::LoadEpochsAndProducerState() {
  int64_t snapshot_bound = options_.had_clean_shutdown ? state_.log_end_offset
                                                       : std::min(options_.recovery_point, state_.log_end_offset);
  STRATA_RETURN_IF_ERROR(state_.leader_epoch_cache->TruncateFromEnd(state_.log_end_offset));
  STRATA_RETURN_IF_ERROR(state_.leader_epoch_cache->TruncateFromStart(state_.log_start_offset));
  STRATA_ASSIGN_OR_RETURN(auto snapshot,
                          ReloadProducerState(*state_.producer_state, state_.segments, snapshot_bound,
                                              state_.log_start_offset, &state_.stats.producer_batches_replayed));
  state_.stats.producer_snapshot_offset = snapshot.value_or(-1);
  if (!snapshot && state_.stats.producer_batches_replayed > 0) {
    state_.stats.producer_state_rebuilds = 1;
    spdlog::warn("{}: no producer snapshot at or below offset {}; producer state rebuilt from the log start ({} "
                 "batches)", dir_, snapshot_bound, state_.stats.producer_batches_replayed);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<int64_t>> ReloadProducerState(
    ProducerStateManager& producer_state, const SegmentMap& segments,
    int64_t snapshot_bound, int64_t log_start_offset, int64_t* replayed) {
  STRATA_ASSIGN_OR_RETURN(auto snapshot, producer_state.LoadNewestSnapshotAtOrBelow(snapshot_bound, log_start_offset));
  int64_t from = producer_state.map_end_offset();
  for (auto it = segments.begin(); it != segments.end(); ++it) {
    auto next = std::next(it);
    if (next != segments.end() && next->first <= from) continue;
    // Batches before the index entry at or below `from` all end below it.
    LogSegment& segment = *it->second;
    uint64_t position = segment.offset_index().Lookup(from).position;
    absl::Status replay_status;
    STRATA_RETURN_IF_ERROR(segment.ScanHeaders(position, [&](const BatchLocation& b) {
      if (b.header.base_offset < producer_state.map_end_offset()) return true;
      std::optional<EndTxnMarker> marker;
      if (b.header.is_control()) {
        auto read = ReadMarkerAt(segment, b);
        if (!read.ok()) {
          replay_status = read.status();
          return false;
        }
        marker = *read;
      }
      std::optional<CompletedTxn> completed = producer_state.Update(b.header, marker ? &*marker : nullptr);
      if (completed && completed->aborted) {
        // The aborted index is rebuilt with producer state: an entry the crash lost is
        // written again, one that survived is recognised.
        replay_status = segment.txn_index().Append(AbortedTxn{completed->producer_id, completed->first_offset,
                                                              completed->last_offset,
                                                              producer_state.LastStableOffsetAfter(*completed)});
        if (!replay_status.ok()) return false;
      }
      ++*replayed;
      return true;
    }));
    STRATA_RETURN_IF_ERROR(replay_status);
  }
  return snapshot;
}

}  // namespace strata::storage
