#include "storage/cleaner.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "storage/chunked_reader.h"
#include "storage/compression.h"
#include "storage/control_record.h"
#include "storage/errc.h"
#include "storage/offset_map.h"

namespace strata::storage {
namespace {

using batch_layout::kHeaderSize;

using BatchFn = std::function<absl::Status(const RecordBatchHeader& header, absl::string_view batch)>;

// Calls fn for each batch of a rolled segment, in order, validating each (framing and
// CRC: the cleaner never rewrites bytes it has not checked).
absl::Status ForEachBatch(const CleanableSegment& segment, const BatchFn& fn) {
  ChunkedReader reader(*segment.file, segment.size);
  uint64_t position = 0;
  while (position < segment.size) {
    STRATA_ASSIGN_OR_RETURN(absl::string_view header_bytes, reader.Get(position, kHeaderSize));
    std::string where = absl::StrCat(segment.file->path(), " at position ", position);
    if (header_bytes.size() < kHeaderSize) {
      return MakeError(Errc::kCorruptMessage, absl::StrCat(where, ": a truncated batch header"));
    }
    RecordBatchHeader header = RecordBatchHeader::Parse(header_bytes.data());
    STRATA_RETURN_IF_ERROR(CheckBatchFraming(header, segment.size - position, where));
    STRATA_ASSIGN_OR_RETURN(absl::string_view batch, reader.Get(position, header.size_in_bytes()));
    STRATA_RETURN_IF_ERROR(ValidateStoredBatch(batch, where));
    STRATA_RETURN_IF_ERROR(fn(header, batch));
    position += header.size_in_bytes();
  }
  return absl::OkStatus();
}

int64_t RecordTimestamp(const RecordBatchHeader& header, const Record& record) {
  return header.log_append_time() ? header.max_timestamp : header.base_timestamp + record.timestamp_delta;
}

// Which transactional batches belong to aborted transactions, for a pass over batches
// in offset order (Kafka's CleanedTransactionMetadata): a producer is aborted from the
// first offset of an aborted-index entry until its marker.
class AbortedTxnTracker {
 public:
  // The entries of every segment of the view whose marker is at or after from.
  AbortedTxnTracker(const CleaningView& view, int64_t from) {
    for (const CleanableSegment& s : view.segments) {
      for (const AbortedTxn& t : s.aborted_txns) {
        if (t.last_offset >= from) pending_.push_back(t);
      }
    }
    std::sort(pending_.begin(), pending_.end(),
              [](const AbortedTxn& a, const AbortedTxn& b) { return a.first_offset < b.first_offset; });
  }

  // Whether the batch is aborted data; call for every batch, in order.
  absl::StatusOr<bool> IsAborted(const RecordBatchHeader& h, absl::string_view batch) {
    while (next_ < pending_.size() && pending_[next_].first_offset <= h.base_offset) {
      aborted_.insert(pending_[next_++].producer_id);
    }
    if (h.is_control()) {
      STRATA_ASSIGN_OR_RETURN(EndTxnMarker marker, ReadControlBatch(batch));
      if (marker.type != ControlRecordType::kUnknown) aborted_.erase(h.producer_id);
      return false;
    }
    return h.is_transactional() && aborted_.count(h.producer_id) > 0;
  }

 private:
  std::vector<AbortedTxn> pending_;
  size_t next_ = 0;
  std::set<int64_t> aborted_;
};

// The first dirty offset for a checkpoint, within the log.
int64_t FirstDirtyOffset(const CleaningView& view, std::optional<int64_t> checkpoint) {
  if (!checkpoint || *checkpoint < view.log_start_offset || *checkpoint > view.log_end_offset) {
    return view.log_start_offset;
  }
  return *checkpoint;
}

class Cleaning {
 public:
  Cleaning(Log& log, CleaningView view, const CleanParams& params)
      : log_(log),
        view_(std::move(view)),
        params_(params),
        max_uncompressed_(MaxUncompressedBatchBytes(view_.config.max_message_bytes)),
        map_(params.offset_map_bytes) {}

  absl::StatusOr<CleanResult> Run(const Dirtiness& dirtiness) {
    result_.first_dirty_offset = result_.next_dirty_offset = dirtiness.first_dirty_offset;
    if (!dirtiness.cleanable()) return result_;
    STRATA_ASSIGN_OR_RETURN(int64_t map_end, BuildOffsetMap(dirtiness));
    result_.next_dirty_offset = map_end;
    std::vector<const CleanableSegment*> to_clean;
    for (const CleanableSegment& s : view_.segments) {
      if (s.base_offset < map_end) to_clean.push_back(&s);
    }
    for (size_t i = 0; i < to_clean.size();) {
      size_t end = GroupEnd(to_clean, i);
      STRATA_RETURN_IF_ERROR(CleanGroup(std::vector<const CleanableSegment*>(to_clean.begin() + i,
                                                                             to_clean.begin() + end),
                                        map_end));
      i = end;
    }
    return result_;
  }

 private:
  absl::Status CheckAbort() const {
    if (params_.abort != nullptr && params_.abort->load()) {
      return absl::CancelledError(absl::StrCat("cleaning of ", log_.topic_partition().DirName(), " aborted"));
    }
    return absl::OkStatus();
  }

  absl::Status Pace(int64_t bytes) {
    static const std::atomic<bool> kNever{false};
    if (params_.throttler != nullptr) params_.throttler->Acquire(bytes, params_.abort ? *params_.abort : kNever);
    return CheckAbort();
  }

  // Maps the dirty part's keys, batch by batch, until the map is full; returns the
  // offset where mapping stopped.
  absl::StatusOr<int64_t> BuildOffsetMap(const Dirtiness& dirtiness) {
    int64_t map_end = dirtiness.first_dirty_offset;
    bool full = false;
    AbortedTxnTracker aborted(view_, dirtiness.first_dirty_offset);
    for (const CleanableSegment& s : view_.segments) {
      if (full || s.base_offset >= dirtiness.first_uncleanable_offset) break;
      if (s.next_base_offset <= dirtiness.first_dirty_offset) continue;
      absl::Status status = ForEachBatch(s, [&](const RecordBatchHeader& h, absl::string_view batch) -> absl::Status {
        if (full || h.last_offset() < dirtiness.first_dirty_offset) return absl::OkStatus();
        STRATA_RETURN_IF_ERROR(Pace(h.size_in_bytes()));
        result_.bytes_read += h.size_in_bytes();
        // Aborted data never supersedes a key: it is dropped when cleaned.
        STRATA_ASSIGN_OR_RETURN(bool is_aborted, aborted.IsAborted(h, batch));
        if (!h.is_control() && !is_aborted) {
          STRATA_ASSIGN_OR_RETURN(std::vector<Record> records, DecodeRecords(batch, max_uncompressed_));
          size_t new_bytes = 0;
          for (const Record& r : records) {
            if (r.key && !map_.Get(*r.key)) new_bytes += r.key->size() + OffsetMap::kEntryOverhead;
          }
          if (map_.used_bytes() + new_bytes > map_.capacity_bytes()) {
            full = true;  // this batch and the rest wait for the next cleaning
            return absl::OkStatus();
          }
          for (const Record& r : records) {
            if (r.key) map_.Put(*r.key, h.base_offset + r.offset_delta);
          }
        }
        map_end = h.next_offset();
        return absl::OkStatus();
      });
      if (!status.ok()) return ErrcOf(status) == Errc::kStorageError ? log_.ReportIo(status) : status;
    }
    if (map_end == dirtiness.first_dirty_offset) {
      return MakeError(Errc::kInvalidArgument,
                       absl::StrCat(log_.topic_partition().DirName(), ": the offset map (", map_.capacity_bytes(),
                                    " bytes of log.cleaner.dedupe.buffer.size) cannot hold the keys of the batch at ",
                                    dirtiness.first_dirty_offset));
    }
    return map_end;
  }

  // The segments [i, end) that fit one cleaned segment: segment.bytes, 32-bit relative
  // offsets, and index entries that fit segment.index.bytes (the time index's 12-byte
  // entries fill first). At least one.
  size_t GroupEnd(const std::vector<const CleanableSegment*>& segments, size_t i) const {
    const LogConfig& c = view_.config;
    const int64_t interval = std::max<int64_t>(c.index_interval_bytes, kHeaderSize);
    int64_t bytes = static_cast<int64_t>(segments[i]->size);
    size_t end = i + 1;
    while (end < segments.size()) {
      int64_t with = bytes + static_cast<int64_t>(segments[end]->size);
      bool fits = with <= c.segment_bytes &&
                  segments[end]->next_base_offset - 1 - segments[i]->base_offset <= int64_t{INT32_MAX} &&
                  (with / interval + 2) * 12 <= int64_t{c.segment_index_bytes};
      if (!fits) break;
      bytes = with;
      ++end;
    }
    return end;
  }

  // Whether the record at offset stays.
  bool Retain(const RecordBatchHeader& h, const Record& r, int64_t map_end) {
    int64_t offset = h.base_offset + r.offset_delta;
    if (offset >= map_end) return true;  // not mapped: a later cleaning decides
    if (!r.key) {
      ++result_.keyless_removed;
      return false;
    }
    std::optional<int64_t> latest = map_.Get(*r.key);
    if (latest && *latest > offset) return false;  // superseded
    if (!r.value && params_.now_ms - RecordTimestamp(h, r) > view_.config.delete_retention_ms) {
      ++result_.tombstones_removed;
      return false;
    }
    return true;
  }

  // Whether a transaction marker goes (Kafka's rule, with the marker's own timestamp as
  // its delete horizon's start): mapped, older than delete.retention.ms, and nothing of its
  // transaction left before it. Either way the producer's next batches are another
  // transaction's.
  absl::StatusOr<bool> RemoveMarker(const RecordBatchHeader& h, absl::string_view batch, int64_t map_end) {
    STRATA_ASSIGN_OR_RETURN(EndTxnMarker marker, ReadControlBatch(batch));
    if (marker.type == ControlRecordType::kUnknown) return false;
    const bool data_left = txn_batch_kept_.erase(h.producer_id) > 0;
    return !data_left && h.base_offset < map_end &&
           params_.now_ms - h.max_timestamp > view_.config.delete_retention_ms;
  }

  absl::Status CleanGroup(const std::vector<const CleanableSegment*>& group, int64_t map_end) {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<LogSegment> cleaned, log_.NewCleanedSegment(group.front()->base_offset));
    std::string out;
    auto write_out = [&]() -> absl::Status {
      if (out.empty()) return absl::OkStatus();
      STRATA_RETURN_IF_ERROR(Pace(static_cast<int64_t>(out.size())));
      STRATA_RETURN_IF_ERROR(log_.ReportIo(cleaned->Append(out)));
      result_.bytes_written += static_cast<int64_t>(out.size());
      out.clear();
      return absl::OkStatus();
    };
    std::set<int64_t> removed_markers;  // offsets
    absl::Status status = [&]() -> absl::Status {
      AbortedTxnTracker aborted(view_, group.front()->base_offset);
      for (const CleanableSegment* s : group) {
        absl::Status scanned =
            ForEachBatch(*s, [&](const RecordBatchHeader& h, absl::string_view batch) -> absl::Status {
              STRATA_RETURN_IF_ERROR(Pace(h.size_in_bytes()));
              result_.bytes_read += h.size_in_bytes();
              STRATA_ASSIGN_OR_RETURN(bool is_aborted, aborted.IsAborted(h, batch));
              const size_t written = out.size();
              if (h.is_control()) {
                STRATA_ASSIGN_OR_RETURN(bool remove, RemoveMarker(h, batch, map_end));
                if (remove) {
                  removed_markers.insert(h.base_offset);
                } else {
                  out.append(batch.data(), batch.size());
                }
              } else if (h.base_offset >= map_end && !is_aborted) {
                out.append(batch.data(), batch.size());
              } else {
                STRATA_ASSIGN_OR_RETURN(std::vector<Record> records, DecodeRecords(batch, max_uncompressed_));
                result_.records_read += static_cast<int64_t>(records.size());
                std::vector<Record> kept;
                for (Record& r : records) {
                  if (!is_aborted && Retain(h, r, map_end)) kept.push_back(std::move(r));
                }
                if (is_aborted) result_.aborted_records_removed += static_cast<int64_t>(records.size());
                result_.records_removed += static_cast<int64_t>(records.size() - kept.size());
                if (kept.size() == records.size()) {
                  out.append(batch.data(), batch.size());
                } else if (!kept.empty()) {
                  STRATA_ASSIGN_OR_RETURN(std::string rebuilt, BuildBatchFrom(h, kept, h.compression()));
                  out.append(rebuilt);
                } else if (h.has_producer_id()) {
                  auto last = view_.producer_last_offsets.find(h.producer_id);
                  if (last != view_.producer_last_offsets.end() && last->second == h.last_offset()) {
                    STRATA_ASSIGN_OR_RETURN(std::string empty, BuildBatchFrom(h, {}, h.compression()));
                    out.append(empty);
                    ++result_.empty_batches_kept;
                  }
                }
              }
              // A transaction with a batch left (even an empty one) keeps its marker.
              if (h.is_transactional() && !h.is_control() && out.size() > written) {
                txn_batch_kept_.insert(h.producer_id);
              }
              if (out.size() >= ChunkedReader::kChunk) return write_out();
              return absl::OkStatus();
            });
        if (!scanned.ok()) return ErrcOf(scanned) == Errc::kStorageError ? log_.ReportIo(scanned) : scanned;
        // The cleaned segment keeps the entries, but for the markers removed: a reader may
        // still meet what is left of an aborted transaction (data past map_end, an empty
        // batch kept for a sequence), and one whose marker is gone has nothing left.
        for (const AbortedTxn& t : s->aborted_txns) {
          if (!removed_markers.count(t.last_offset)) {
            STRATA_RETURN_IF_ERROR(log_.ReportIo(cleaned->txn_index().Append(t)));
          }
        }
      }
      return write_out();
    }();
    if (!status.ok()) {
      cleaned->Abandon();
      (void)cleaned->DeleteFiles();
      return status;
    }
    std::vector<std::shared_ptr<LogSegment>> old;
    for (const CleanableSegment* s : group) old.push_back(s->segment);
    // A producer snapshot taken before a removed marker could hold its transaction open,
    // with nothing left to close it when replayed: those go first.
    const int64_t snapshots_up_to = removed_markers.empty() ? -1 : *removed_markers.rbegin();
    STRATA_RETURN_IF_ERROR(log_.ReplaceSegments(old, std::move(cleaned), snapshots_up_to));
    result_.segments_cleaned += static_cast<int>(group.size());
    result_.markers_removed += static_cast<int64_t>(removed_markers.size());
    return absl::OkStatus();
  }

  Log& log_;
  const CleaningView view_;
  const CleanParams& params_;
  const size_t max_uncompressed_;
  OffsetMap map_;
  CleanResult result_;
  // Producers with a transactional batch written since their last marker, over the whole
  // cleaning (it runs from the log start, so a transaction's data is met before its marker).
  std::set<int64_t> txn_batch_kept_;
};

// The max timestamp of a segment's first batch (kNoTimestamp when unreadable or empty).
int64_t FirstBatchTimestamp(const CleanableSegment& s) {
  char header[kHeaderSize];
  auto n = s.file->Read(0, header, kHeaderSize);
  if (!n.ok() || *n != kHeaderSize) return kNoTimestamp;
  return RecordBatchHeader::Parse(header).max_timestamp;
}

}  // namespace

Dirtiness MeasureDirtiness(const CleaningView& view, std::optional<int64_t> checkpoint, int64_t now_ms) {
  Dirtiness d;
  d.first_dirty_offset = d.first_uncleanable_offset = FirstDirtyOffset(view, checkpoint);
  const LogConfig& c = view.config;
  bool first_dirty_seen = false;
  for (const CleanableSegment& s : view.segments) {
    if (s.next_base_offset <= d.first_dirty_offset) {
      d.clean_bytes += static_cast<int64_t>(s.size);
      continue;
    }
    // min.compaction.lag.ms: a segment holding a newer record, and all after it, wait.
    if (c.min_compaction_lag_ms > 0 && s.max_timestamp != kNoTimestamp &&
        now_ms - s.max_timestamp < c.min_compaction_lag_ms) {
      break;
    }
    if (!first_dirty_seen) {
      first_dirty_seen = true;
      int64_t oldest = FirstBatchTimestamp(s);
      d.past_max_lag = c.max_compaction_lag_ms != INT64_MAX && oldest != kNoTimestamp &&
                       now_ms - oldest > c.max_compaction_lag_ms;
    }
    d.dirty_bytes += static_cast<int64_t>(s.size);
    d.first_uncleanable_offset = s.next_base_offset;
  }
  return d;
}

absl::StatusOr<CleanResult> CleanLog(Log& log, std::optional<int64_t> checkpoint, const CleanParams& params) {
  CleaningView view = log.ViewForCleaning();
  Dirtiness dirtiness = MeasureDirtiness(view, checkpoint, params.now_ms);
  Cleaning cleaning(log, std::move(view), params);
  return cleaning.Run(dirtiness);
}

}  // namespace strata::storage
