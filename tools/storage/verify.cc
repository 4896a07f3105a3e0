// strata-storage verify: checks a partition directory without changing it. Every file
// is read through file_readers.h (read-only opens); nothing is recovered, trimmed or
// rebuilt. Stops at the first problem.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/checkpoint_file.h"
#include "storage/errc.h"
#include "storage/producer_state.h"
#include "tools/storage/file_readers.h"
#include "tools/storage/storage_tool.h"

namespace strata::tools {
namespace {

using storage::FileOps;
using storage::JoinPath;
using storage::RecordBatchHeader;
using storage::SegmentFileName;

absl::Status Problem(absl::string_view what) { return storage::MakeError(storage::Errc::kInconsistentLog, what); }

struct BatchInfo {
  uint64_t position = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int64_t max_timestamp = 0;
  int32_t leader_epoch = 0;
};

struct Segment {
  int64_t base = 0;
  std::string log_path;
  uint64_t size = 0;
  std::vector<BatchInfo> batches;  // by position
};

class Verifier {
 public:
  Verifier(const VerifyOptions& options, std::ostream& out) : options_(options), out_(out) {
    // "dir/" names the same directory; BaseName and DirName need it without the slash.
    while (options_.dir.size() > 1 && options_.dir.back() == '/') options_.dir.pop_back();
  }

  int Run() {
    auto is_dir = FileOps::Default()->IsDirectory(options_.dir);
    if (!is_dir.ok() || !*is_dir) {
      out_ << "ERROR: " << options_.dir << " is not a directory"
           << (is_dir.ok() ? "" : absl::StrCat(" (", is_dir.status().message(), ")")) << "\n";
      return kExitUsage;
    }
    absl::Status status = Check();
    if (!status.ok()) {
      out_ << "FAIL: " << status.message() << "\n";
      return kExitProblem;
    }
    int64_t first = segments_.front().base, end = segments_.back().base;
    int64_t batches = 0;
    for (const Segment& s : segments_) {
      batches += static_cast<int64_t>(s.batches.size());
      if (!s.batches.empty()) end = s.batches.back().last_offset + 1;
    }
    for (const Segment& s : segments_) {
      if (!s.batches.empty()) {
        first = s.batches.front().base_offset;
        break;
      }
    }
    if (batches == 0) first = end;
    out_ << "checked: " << records_ << " records, " << bytes_ << " log bytes, " << offset_index_entries_
         << " offset index entries, " << time_index_entries_ << " time index entries, " << epoch_entries_
         << " leader epochs, " << snapshots_ << " producer snapshots\n";
    out_ << "OK: " << segments_.size() << " segments, offsets [" << first << ", " << end << "), " << batches
         << " batches\n";
    return kExitOk;
  }

 private:
  void Warn(absl::string_view what) { out_ << "warning: " << what << "\n"; }

  absl::Status Check() {
    STRATA_ASSIGN_OR_RETURN(std::vector<std::string> names, FileOps::Default()->ListDir(options_.dir));
    std::sort(names.begin(), names.end());
    std::map<int64_t, std::string> logs;
    std::set<int64_t> indexes, time_indexes, snapshots;
    bool epoch_checkpoint = false;
    for (const std::string& name : names) {
      ClassifiedFile c = ClassifyFile(name);
      if (c.segment && !c.segment->state.empty()) {
        Warn(absl::StrCat(name, " is left over from an interrupted replace or delete; the next open finishes or "
                                "removes it"));
        continue;
      }
      if (absl::EndsWith(name, storage::kTmpSuffix)) {
        Warn(absl::StrCat(name, " is a temporary file left by an interrupted write; the next open removes it"));
        continue;
      }
      switch (c.kind) {
        case FileKind::kLog: logs[c.segment->offset] = name; break;
        case FileKind::kOffsetIndex: indexes.insert(c.segment->offset); break;
        case FileKind::kTimeIndex: time_indexes.insert(c.segment->offset); break;
        case FileKind::kSnapshot: snapshots.insert(c.segment->offset); break;
        case FileKind::kEpochCheckpoint: epoch_checkpoint = true; break;
        default: break;
      }
    }
    if (logs.empty()) {
      return Problem(absl::StrCat(options_.dir, " holds no segment file (NNNNNNNNNNNNNNNNNNNN.log): is it a ",
                                  "partition directory (<log dir>/<topic>-<partition>)?"));
    }
    for (int64_t base : indexes) {
      if (!logs.count(base)) Warn(absl::StrCat(storage::OffsetToFileStem(base), ".index has no .log file"));
    }
    for (int64_t base : time_indexes) {
      if (!logs.count(base)) Warn(absl::StrCat(storage::OffsetToFileStem(base), ".timeindex has no .log file"));
    }

    std::optional<int64_t> last_offset;
    for (const auto& [base, name] : logs) {
      STRATA_RETURN_IF_ERROR(ScanSegment(base, JoinPath(options_.dir, name), last_offset));
      if (!segments_.back().batches.empty()) last_offset = segments_.back().batches.back().last_offset;
    }
    for (const Segment& segment : segments_) {
      if (indexes.count(segment.base)) {
        STRATA_RETURN_IF_ERROR(CheckOffsetIndex(segment));
      } else {
        Warn(absl::StrCat(storage::OffsetToFileStem(segment.base), ".index is missing; the next open rebuilds it"));
      }
      if (time_indexes.count(segment.base)) {
        STRATA_RETURN_IF_ERROR(CheckTimeIndex(segment));
      } else {
        Warn(absl::StrCat(storage::OffsetToFileStem(segment.base),
                          ".timeindex is missing; the next open rebuilds it"));
      }
    }
    log_end_offset_ = last_offset ? *last_offset + 1 : segments_.back().base;
    if (epoch_checkpoint) {
      STRATA_RETURN_IF_ERROR(CheckEpochCheckpoint());
    } else if (HasEpochs()) {
      Warn("batches carry leader epochs but there is no leader-epoch-checkpoint");
    }
    for (int64_t offset : snapshots) STRATA_RETURN_IF_ERROR(CheckSnapshot(offset));
    return CheckParentCheckpoints();
  }

  absl::Status ScanSegment(int64_t base, const std::string& path, std::optional<int64_t> previous_last) {
    if (previous_last && base <= *previous_last) {
      return Problem(absl::StrCat(path, ": the segment's base offset ", base,
                                  " is not above the previous segment's last offset ", *previous_last));
    }
    STRATA_ASSIGN_OR_RETURN(auto reader, LogFileReader::Open(path));
    Segment segment;
    segment.base = base;
    segment.log_path = path;
    segment.size = reader->size();
    bytes_ += reader->size();
    while (true) {
      STRATA_ASSIGN_OR_RETURN(auto next, reader->Next());
      if (!next) break;
      const ScannedBatch& b = *next;
      const RecordBatchHeader& h = b.header;
      std::string where = reader->Where(b.position);
      STRATA_RETURN_IF_ERROR(b.crc);
      if (h.base_offset < base) {
        return Problem(absl::StrCat(where, ": batch base offset ", h.base_offset,
                                    " is below the segment's base offset ", base, " (from the file name)"));
      }
      if (previous_last && h.base_offset <= *previous_last) {
        return Problem(absl::StrCat(where, ": batch base offset ", h.base_offset,
                                    " does not follow the previous batch's last offset ", *previous_last,
                                    " (offsets must strictly increase)"));
      }
      if (h.last_offset() - base > int64_t{UINT32_MAX}) {
        return Problem(absl::StrCat(where, ": last offset ", h.last_offset(), " is too far above the base offset ",
                                    base, " for a 32-bit relative offset"));
      }
      if (options_.deep) STRATA_RETURN_IF_ERROR(CheckRecords(b, where));
      segment.batches.push_back({b.position, h.base_offset, h.last_offset(), h.max_timestamp,
                                 h.partition_leader_epoch});
      records_ += h.records_count;
      previous_last = h.last_offset();
    }
    segments_.push_back(std::move(segment));
    return absl::OkStatus();
  }

  absl::Status CheckRecords(const ScannedBatch& b, const std::string& where) {
    auto records = DecodeBatchRecords(b.bytes);
    if (!records.ok()) return Problem(absl::StrCat(where, ": ", records.status().message()));
    int32_t previous = -1;
    for (size_t i = 0; i < records->size(); ++i) {
      int32_t delta = (*records)[i].offset_delta;
      if (delta <= previous || delta > b.header.last_offset_delta) {
        return Problem(absl::StrCat(where, ": record ", i, " has offset delta ", delta, " after ", previous,
                                    " (lastOffsetDelta ", b.header.last_offset_delta, ")"));
      }
      previous = delta;
    }
    return absl::OkStatus();
  }

  // The batch of segment starting at position, or null.
  static const BatchInfo* BatchAt(const Segment& segment, uint64_t position) {
    auto it = std::lower_bound(segment.batches.begin(), segment.batches.end(), position,
                               [](const BatchInfo& b, uint64_t p) { return b.position < p; });
    return it != segment.batches.end() && it->position == position ? &*it : nullptr;
  }

  // The batch of segment holding offset, or null.
  static const BatchInfo* BatchHolding(const Segment& segment, int64_t offset) {
    auto it = std::lower_bound(segment.batches.begin(), segment.batches.end(), offset,
                               [](const BatchInfo& b, int64_t o) { return b.last_offset < o; });
    return it != segment.batches.end() && it->base_offset <= offset ? &*it : nullptr;
  }

  absl::Status CheckOffsetIndex(const Segment& segment) {
    std::string path = SegmentFileName(options_.dir, segment.base, storage::kIndexSuffix);
    STRATA_ASSIGN_OR_RETURN(auto contents, ReadOffsetIndexFile(path, segment.base));
    if (contents.stray_bytes > 0) {
      return Problem(absl::StrCat(path, ": ", contents.file_bytes, " bytes is not a whole number of 8-byte entries"));
    }
    for (size_t i = 0; i < contents.entries.size(); ++i) {
      const OffsetIndexEntry& e = contents.entries[i];
      std::string where = absl::StrCat(path, " entry ", i, " (offset ", e.offset, ", position ", e.position, ")");
      if (i > 0 && (e.offset <= contents.entries[i - 1].offset || e.position <= contents.entries[i - 1].position)) {
        return Problem(absl::StrCat(where, ": not above the previous entry (offset ", contents.entries[i - 1].offset,
                                    ", position ", contents.entries[i - 1].position, ")"));
      }
      if (e.position >= segment.size) {
        return Problem(absl::StrCat(where, ": points past the end of ", segment.log_path, " (", segment.size,
                                    " bytes)"));
      }
      const BatchInfo* batch = BatchAt(segment, e.position);
      if (batch == nullptr) {
        return Problem(absl::StrCat(where, ": no batch starts at that position of ", segment.log_path));
      }
      if (batch->last_offset != e.offset) {
        return Problem(absl::StrCat(where, ": the batch there holds offsets [", batch->base_offset, ", ",
                                    batch->last_offset, "]; the entry must name its last offset"));
      }
    }
    offset_index_entries_ += static_cast<int64_t>(contents.entries.size());
    return absl::OkStatus();
  }

  absl::Status CheckTimeIndex(const Segment& segment) {
    std::string path = SegmentFileName(options_.dir, segment.base, storage::kTimeIndexSuffix);
    STRATA_ASSIGN_OR_RETURN(auto contents, ReadTimeIndexFile(path, segment.base));
    if (contents.stray_bytes > 0) {
      return Problem(absl::StrCat(path, ": ", contents.file_bytes, " bytes is not a whole number of 12-byte entries"));
    }
    for (size_t i = 0; i < contents.entries.size(); ++i) {
      const TimeIndexEntry& e = contents.entries[i];
      std::string where = absl::StrCat(path, " entry ", i, " (timestamp ", e.timestamp, ", offset ", e.offset, ")");
      if (i > 0) {
        const TimeIndexEntry& p = contents.entries[i - 1];
        if (e.timestamp < p.timestamp || e.offset < p.offset) {
          return Problem(absl::StrCat(where, ": goes back from the previous entry (timestamp ", p.timestamp,
                                      ", offset ", p.offset, ")"));
        }
      }
      const BatchInfo* batch = BatchHolding(segment, e.offset);
      if (batch == nullptr) {
        return Problem(absl::StrCat(where, ": no batch of ", segment.log_path, " holds that offset"));
      }
      if (batch->max_timestamp != e.timestamp) {
        return Problem(absl::StrCat(where, ": the batch holding it (position ", batch->position,
                                    ") has max timestamp ", batch->max_timestamp));
      }
    }
    time_index_entries_ += static_cast<int64_t>(contents.entries.size());
    return absl::OkStatus();
  }

  bool HasEpochs() const {
    for (const Segment& s : segments_) {
      for (const BatchInfo& b : s.batches) {
        if (b.leader_epoch >= 0) return true;
      }
    }
    return false;
  }

  absl::Status CheckEpochCheckpoint() {
    std::string path = JoinPath(options_.dir, storage::kLeaderEpochCheckpointFile);
    STRATA_ASSIGN_OR_RETURN(std::string text, ReadFileReadOnly(path));
    STRATA_ASSIGN_OR_RETURN(std::vector<storage::EpochEntry> entries, storage::ParseEpochCheckpoint(text, path));
    for (size_t i = 1; i < entries.size(); ++i) {
      if (entries[i].epoch <= entries[i - 1].epoch || entries[i].start_offset < entries[i - 1].start_offset) {
        return Problem(absl::StrCat(path, " line ", i + 3, ": epoch ", entries[i].epoch, " at offset ",
                                    entries[i].start_offset, " does not follow epoch ", entries[i - 1].epoch,
                                    " at offset ", entries[i - 1].start_offset,
                                    " (epochs must increase, start offsets must not fall)"));
      }
    }
    if (!entries.empty() && entries.back().start_offset > log_end_offset_) {
      return Problem(absl::StrCat(path, ": epoch ", entries.back().epoch, " starts at offset ",
                                  entries.back().start_offset, ", past the log end offset ", log_end_offset_));
    }
    epoch_entries_ = static_cast<int64_t>(entries.size());
    if (entries.empty()) {
      if (HasEpochs()) Warn(absl::StrCat(path, " is empty but batches carry leader epochs"));
      return absl::OkStatus();
    }
    // Every batch at or above the first entry must carry the epoch covering its offset.
    for (const Segment& s : segments_) {
      for (const BatchInfo& b : s.batches) {
        if (b.leader_epoch < 0 || b.base_offset < entries.front().start_offset) continue;
        auto it = std::upper_bound(entries.begin(), entries.end(), b.base_offset,
                                   [](int64_t o, const storage::EpochEntry& e) { return o < e.start_offset; });
        const storage::EpochEntry& covering = *std::prev(it);
        if (covering.epoch != b.leader_epoch) {
          return Problem(absl::StrCat(s.log_path, " at position ", b.position, ": the batch at offset ",
                                      b.base_offset, " has leader epoch ", b.leader_epoch, " but ", path,
                                      " says epoch ", covering.epoch, " began at offset ", covering.start_offset));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckSnapshot(int64_t offset) {
    std::string path = SegmentFileName(options_.dir, offset, storage::kSnapshotSuffix);
    STRATA_ASSIGN_OR_RETURN(std::string data, ReadFileReadOnly(path));
    STRATA_RETURN_IF_ERROR(storage::ProducerStateManager::DecodeSnapshot(data, path).status());
    if (offset > log_end_offset_) {
      Warn(absl::StrCat(path, " is past the log end offset ", log_end_offset_, "; the next open deletes it"));
    }
    ++snapshots_;
    return absl::OkStatus();
  }

  // The log dir's checkpoints, when they name this partition: informational, except
  // that a recovery point past the log end means flushed data is missing.
  absl::Status CheckParentCheckpoints() {
    auto tp = storage::ParsePartitionDirName(storage::BaseName(options_.dir));
    if (!tp) return absl::OkStatus();
    std::string log_dir = storage::DirName(options_.dir);
    for (absl::string_view name : {storage::kRecoveryPointCheckpointFile, storage::kLogStartOffsetCheckpointFile,
                                   storage::kReplicationOffsetCheckpointFile}) {
      std::string path = JoinPath(log_dir, name);
      auto checkpoint = storage::ReadOffsetCheckpoint(*FileOps::Default(), path);
      if (!checkpoint.ok()) {
        Warn(checkpoint.status().message());
        continue;
      }
      auto it = checkpoint->find(*tp);
      if (it == checkpoint->end() || it->second <= log_end_offset_) continue;
      std::string what = absl::StrCat(path, " has ", it->second, " for ", tp->DirName(), ", past the log end offset ",
                                      log_end_offset_);
      if (name == storage::kRecoveryPointCheckpointFile) {
        return Problem(absl::StrCat(what, ": data below the recovery point was flushed and is missing"));
      } else {
        Warn(absl::StrCat(what, "; the next open clamps it"));
      }
    }
    return absl::OkStatus();
  }

  VerifyOptions options_;
  std::ostream& out_;
  std::vector<Segment> segments_;
  int64_t log_end_offset_ = 0;
  int64_t records_ = 0;
  uint64_t bytes_ = 0;
  int64_t offset_index_entries_ = 0;
  int64_t time_index_entries_ = 0;
  int64_t epoch_entries_ = 0;
  int64_t snapshots_ = 0;
};

}  // namespace

int RunVerify(const VerifyOptions& options, std::ostream& out) { return Verifier(options, out).Run(); }

}  // namespace strata::tools
