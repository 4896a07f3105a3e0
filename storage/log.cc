#include "storage/log.h"

#include "base/logging.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/checkpoint_file.h"
#include "storage/compression.h"
#include "storage/errc.h"
#include "storage/log_loader.h"

namespace strata::storage {

namespace {

absl::Status DirOfflineError(const std::string& log_dir, const TopicPartition& tp) {
  return MakeError(Errc::kLogDirOffline,
                   absl::StrCat("log dir ", log_dir, " is offline; ", tp.DirName(), " is not served"));
}

// Reports I/O errors of the log in dir to the failure channel; returns status unchanged.
absl::Status ReportToFailureChannel(const LogOptions& options, absl::Status status) {
  if (!status.ok() && ErrcOf(status) == Errc::kStorageError && options.failure_channel != nullptr) {
    options.failure_channel->MaybeAddOfflineLogDir(DirName(options.dir), status);
  }
  return status;
}

// A compacted topic keeps each key's latest record: a record without a key could never
// be compacted (Kafka refuses it the same way).
absl::Status CheckEveryRecordHasKey(absl::string_view batch, size_t max_uncompressed, const TopicPartition& tp) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Record> decoded, DecodeRecords(batch, max_uncompressed));
  for (const Record& r : decoded) {
    if (!r.key) {
      return MakeError(Errc::kInvalidRecord, absl::StrCat("compacted topic partition ", tp.DirName(),
                                                          " cannot accept a record without a key"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Log::Log(const LogOptions& options, TopicPartition topic_partition, const std::atomic<bool>* dir_offline,
         LogLoadState loaded)
    : options_(options),
      topic_partition_(std::move(topic_partition)),
      dir_offline_(dir_offline),
      load_stats_(loaded.stats),
      leader_epoch_cache_(std::move(loaded.leader_epoch_cache)),
      segments_(std::move(loaded.segments)),
      producer_state_(std::move(loaded.producer_state)),
      config_(options.config),
      log_start_offset_(loaded.log_start_offset),
      log_end_offset_(loaded.log_end_offset),
      recovery_point_(loaded.recovery_point),
      high_watermark_(loaded.high_watermark),
      last_flush_ms_(options.clock->NowMs()) {
  producer_state_->OnHighWatermarkUpdated(high_watermark_);
}

Log::~Log() {
  EndScheduledTasks();
  absl::MutexLock lock(&mu_);
  for (auto& [base, segment] : segments_) segment->Abandon();
}

absl::StatusOr<std::unique_ptr<Log>> Log::Open(const LogOptions& options) {
  ABSL_CHECK(options.ops != nullptr && options.clock != nullptr);
  std::string name = BaseName(options.dir);
  auto tp = ParsePartitionDirName(name);
  if (!tp) tp = ParseFutureDirName(name);  // a replica being moved here (AlterReplicaLogDirs)
  if (!tp) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat("partition directory ", options.dir,
                                                          " is not named <topic>-<partition>[.<id>-future]"));
  }
  const std::atomic<bool>* dir_offline = nullptr;
  if (options.failure_channel != nullptr) {
    dir_offline = options.failure_channel->OfflineFlag(DirName(options.dir));
    if (dir_offline->load()) return DirOfflineError(DirName(options.dir), *tp);
  }
  absl::StatusOr<LogLoadState> loaded = LogLoader::Load(options);
  if (!loaded.ok()) return ReportToFailureChannel(options, loaded.status());
  std::unique_ptr<Log> log(new Log(options, *std::move(tp), dir_offline, *std::move(loaded)));
  {
    absl::MutexLock lock(&log->mu_);
    log->CheckInvariantsLocked();
  }
  return log;
}

std::string Log::log_dir() const { return DirName(options_.dir); }

bool Log::offline() const { return dir_offline_ != nullptr && dir_offline_->load(); }

absl::Status Log::CheckOnline() const {
  if (offline()) return DirOfflineError(log_dir(), topic_partition_);
  return absl::OkStatus();
}

absl::Status Log::CheckOpenLocked() const {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  if (closed_) {
    return MakeError(Errc::kStorageError, absl::StrCat("log ", topic_partition_.DirName(), " is closed"));
  }
  return absl::OkStatus();
}

absl::Status Log::Io(absl::Status status) const { return ReportToFailureChannel(options_, std::move(status)); }

void Log::CheckInvariantsLocked() const {
  ABSL_CHECK(!segments_.empty()) << options_.dir;
  ABSL_CHECK_LE(log_start_offset_, high_watermark_) << options_.dir;
  ABSL_CHECK_LE(high_watermark_, log_end_offset_) << options_.dir;
  ABSL_CHECK_LE(recovery_point_, log_end_offset_) << options_.dir;
  ABSL_CHECK_LE(segments_.rbegin()->first, log_end_offset_) << options_.dir;
}

absl::StatusOr<LogAppendInfo> Log::AppendAsLeader(std::string& records, int32_t leader_epoch, AppendOrigin origin,
                                                  const TxnVerification& verification) {
  STRATA_ASSIGN_OR_RETURN(LogAppendInfo info, AppendAsLeaderUnflushed(records, leader_epoch, origin, verification));
  STRATA_RETURN_IF_ERROR(MaybeFlushAfterAppend());
  return info;
}

absl::StatusOr<LogAppendInfo> Log::AppendAsFollower(absl::string_view records) {
  STRATA_ASSIGN_OR_RETURN(LogAppendInfo info, AppendAsFollowerUnflushed(records));
  STRATA_RETURN_IF_ERROR(MaybeFlushAfterAppend());
  return info;
}

absl::Status Log::MaybeFlushAfterAppend() {
  int64_t log_end;
  {
    absl::ReaderMutexLock lock(&mu_);
    if (log_end_offset_ - recovery_point_ < config_.flush_messages) return absl::OkStatus();
    log_end = log_end_offset_;
  }
  return Flush(log_end);
}

uint64_t Log::StartTxnVerification(int64_t producer_id, int16_t producer_epoch, bool epoch_bump) {
  absl::MutexLock lock(&mu_);
  return producer_state_->StartVerification(producer_id, producer_epoch, epoch_bump);
}

void Log::EndTxnVerification(int64_t producer_id) {
  absl::MutexLock lock(&mu_);
  producer_state_->EndVerification(producer_id);
}

absl::StatusOr<LogAppendInfo> Log::AppendAsLeaderUnflushed(std::string& records, int32_t leader_epoch,
                                                           AppendOrigin origin, const TxnVerification& verification) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  const LogConfig config = this->config();
  std::vector<RecordBatchHeader> headers;
  std::vector<std::optional<EndTxnMarker>> markers;
  const size_t max_uncompressed = MaxUncompressedBatchBytes(config.max_message_bytes);
  // The request's batches once compression.type changed one (empty until then: the
  // common case copies nothing).
  std::string recompressed;
  bool recompress = false;
  BatchSplitter splitter(records);
  while (true) {
    size_t batch_start = splitter.position();
    STRATA_ASSIGN_OR_RETURN(auto batch, splitter.Next());
    if (!batch) break;
    STRATA_RETURN_IF_ERROR(ValidateProducedBatch(*batch, config.max_message_bytes));
    RecordBatchHeader header = RecordBatchHeader::Parse(batch->data());
    std::optional<EndTxnMarker> marker;
    if (header.is_control()) {
      if (origin == AppendOrigin::kClient) {
        return MakeError(Errc::kInvalidRecord, "a producer may not write control batches (transaction markers)");
      }
      STRATA_ASSIGN_OR_RETURN(marker, ReadControlBatch(*batch));
      if (marker->type == ControlRecordType::kUnknown || !header.has_producer_id()) {
        return MakeError(Errc::kInvalidRecord, "control batch is not an end-transaction marker of a producer");
      }
    }
    markers.push_back(marker);
    if (origin == AppendOrigin::kClient && header.has_producer_id() && !header.is_control() &&
        header.base_sequence == kNoSequence) {
      return MakeError(Errc::kInvalidRecord, absl::StrCat("a producer's batch with producer id ", header.producer_id,
                                                          " carries no sequence"));
    }
    if (config.cleanup_compact && !header.is_control()) {
      STRATA_RETURN_IF_ERROR(CheckEveryRecordHasKey(*batch, max_uncompressed, topic_partition_));
    }
    if (config.compression_type && *config.compression_type != header.compression() && !header.is_control()) {
      // compression.type names another codec: the leader recompresses (Kafka's rule).
      STRATA_ASSIGN_OR_RETURN(std::string batch_out, RecompressBatch(*batch, *config.compression_type, max_uncompressed));
      if (static_cast<int64_t>(batch_out.size()) > config.max_message_bytes) {
        return MakeError(Errc::kRecordTooLarge,
                         absl::StrCat("batch recompressed as ", CompressionName(*config.compression_type), " is ",
                                      batch_out.size(), " bytes, above max.message.bytes ", config.max_message_bytes));
      }
      if (!recompress) recompressed.assign(records.data(), batch_start);
      recompress = true;
      header = RecordBatchHeader::Parse(batch_out.data());
      recompressed.append(batch_out);
    } else if (recompress) {
      recompressed.append(batch->data(), batch->size());
    }
    headers.push_back(header);
  }
  if (headers.empty()) return MakeError(Errc::kInvalidRecord, "produce request carries no record batch");
  if (recompress) records = std::move(recompressed);

  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  // Idempotence: a retried batch gets its original offsets; sequences must follow on.
  std::map<int64_t, const RecordBatchHeader*> earlier_in_request;
  for (size_t i = 0; i < headers.size(); ++i) {
    const RecordBatchHeader& h = headers[i];
    if (!h.has_producer_id()) continue;
    if (markers[i]) {
      STRATA_RETURN_IF_ERROR(producer_state_->CheckMarker(h, *markers[i]));
      earlier_in_request.erase(h.producer_id);
      continue;
    }
    auto earlier = earlier_in_request.find(h.producer_id);
    if (earlier != earlier_in_request.end()) {
      const RecordBatchHeader& e = *earlier->second;
      int32_t expected = e.last_sequence() == INT32_MAX ? 0 : e.last_sequence() + 1;
      if (h.producer_epoch != e.producer_epoch || h.base_sequence != expected) {
        return MakeError(Errc::kOutOfOrderSequence,
                         absl::StrCat("producer ", h.producer_id, " batches in one request are not in sequence"));
      }
    } else {
      STRATA_ASSIGN_OR_RETURN(auto duplicate, producer_state_->CheckProducedBatch(h, verification));
      if (duplicate) {
        LogAppendInfo info;
        info.first_offset = duplicate->first_offset();
        info.last_offset = duplicate->last_offset;
        info.max_timestamp = duplicate->timestamp;
        info.duplicate = true;
        return info;
      }
    }
    earlier_in_request[h.producer_id] = &h;
  }
  int64_t next = log_end_offset_;
  size_t position = 0;
  const int64_t now = options_.clock->NowMs();
  for (RecordBatchHeader& h : headers) {
    SetBaseOffset(records.data() + position, next);
    SetPartitionLeaderEpoch(records.data() + position, leader_epoch);
    if (config.log_append_time) {
      SetLogAppendTime(records.data() + position, static_cast<size_t>(h.size_in_bytes()), now);
      h = RecordBatchHeader::Parse(records.data() + position);
    }
    h.base_offset = next;
    h.partition_leader_epoch = leader_epoch;
    next = h.next_offset();
    position += h.size_in_bytes();
  }
  auto info = AppendLocked(records, headers, markers, leader_epoch);
  if (info.ok() && config.log_append_time) info->log_append_time = now;
  return info;
}

absl::StatusOr<LogAppendInfo> Log::AppendAsFollowerUnflushed(absl::string_view records) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  std::vector<RecordBatchHeader> headers;
  std::vector<std::optional<EndTxnMarker>> markers;
  BatchSplitter splitter(records);
  while (true) {
    size_t position = splitter.position();
    STRATA_ASSIGN_OR_RETURN(auto batch, splitter.Next());
    if (!batch) break;
    STRATA_RETURN_IF_ERROR(ValidateStoredBatch(*batch, absl::StrCat("replicated batch at byte ", position)));
    RecordBatchHeader h = RecordBatchHeader::Parse(batch->data());
    std::optional<EndTxnMarker> marker;
    if (h.is_control()) {
      STRATA_ASSIGN_OR_RETURN(marker, ReadControlBatch(*batch));
    }
    markers.push_back(marker);
    if (!headers.empty() && h.base_offset <= headers.back().last_offset()) {
      return MakeError(Errc::kInvalidRecord, absl::StrCat("replicated batch at byte ", position, " starts at offset ",
                                                          h.base_offset, ", not above ", headers.back().last_offset()));
    }
    headers.push_back(h);
  }
  if (headers.empty()) return LogAppendInfo{};
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  if (headers.front().base_offset != log_end_offset_) {
    // Below: the follower must truncate first. Above: it must restart the log there
    // (TruncateFullyAndStartAt), so that no hole is ever stored.
    return MakeError(Errc::kInvalidRecord,
                     absl::StrCat("replicated records start at offset ", headers.front().base_offset,
                                  ", not at the log end offset ", log_end_offset_, " of ", topic_partition_.DirName()));
  }
  return AppendLocked(records, headers, markers, std::nullopt);
}

absl::StatusOr<LogAppendInfo> Log::AppendLocked(absl::string_view records,
                                                const std::vector<RecordBatchHeader>& headers,
                                                const std::vector<std::optional<EndTxnMarker>>& markers,
                                                std::optional<int32_t> leader_epoch) {
  ABSL_CHECK_EQ(headers.size(), markers.size());
  ABSL_CHECK(!closed_);  // callers checked CheckOpenLocked under the same lock
  if (retired_) {
    // Moved to another log dir (Retire): what went here would be acknowledged and lost.
    return MakeError(Errc::kStorageError, absl::StrCat("the log of ", topic_partition_.DirName(),
                                                       " moved to another log dir; it takes no appends"));
  }
  const RecordBatchHeader& first = headers.front();
  const RecordBatchHeader& last = headers.back();
  if (static_cast<int64_t>(records.size()) > config_.segment_bytes) {
    return MakeError(Errc::kRecordTooLarge, absl::StrCat("append of ", records.size(),
                                                         " bytes exceeds segment.bytes ", config_.segment_bytes));
  }
  ABSL_CHECK_GE(first.base_offset, log_end_offset_);
  STRATA_RETURN_IF_ERROR(Io(MaybeRollLocked(records.size(), first, last.last_offset())));
  LogSegment& segment = active_segment();
  STRATA_RETURN_IF_ERROR(Io(segment.Append(records)));

  LogAppendInfo info;
  info.first_offset = first.base_offset;
  info.last_offset = last.last_offset();
  info.batches = static_cast<int32_t>(headers.size());
  info.bytes = static_cast<int64_t>(records.size());
  std::vector<EpochEntry> epochs;
  for (size_t i = 0; i < headers.size(); ++i) {
    const RecordBatchHeader& h = headers[i];
    if (h.max_timestamp > info.max_timestamp) {
      info.max_timestamp = h.max_timestamp;
      info.offset_of_max_timestamp = h.last_offset();
    }
    std::optional<CompletedTxn> completed = producer_state_->Update(h, markers[i] ? &*markers[i] : nullptr);
    if (completed && completed->aborted) {
      AbortedTxn aborted{completed->producer_id, completed->first_offset, completed->last_offset,
                         producer_state_->LastStableOffsetAfter(*completed)};
      STRATA_RETURN_IF_ERROR(Io(segment.txn_index().Append(aborted)));
    }
    int32_t epoch = leader_epoch.value_or(h.partition_leader_epoch);
    if (epoch >= 0 && (epochs.empty() || epoch > epochs.back().epoch)) epochs.push_back({epoch, h.base_offset});
  }
  log_end_offset_ = last.next_offset();
  if (!epochs.empty()) {
    auto latest = leader_epoch_cache_->Latest();
    if (!latest || epochs.back().epoch > latest->epoch || epochs.size() > 1) {
      // Deferred: no fsync under the lock appends take; the flush that moves the recovery
      // point past these entries writes them first.
      STRATA_RETURN_IF_ERROR(Io(leader_epoch_cache_->Assign(epochs, EpochSync::kDeferred)));
      ScheduleEpochSyncLocked();
    }
  }
  CheckInvariantsLocked();
  return info;
}

absl::Status Log::MaybeRollLocked(uint64_t bytes, const RecordBatchHeader& first, int64_t last_offset) {
  LogSegment& segment = active_segment();
  if (segment.size() == 0) return absl::OkStatus();
  bool full = segment.size() + bytes > static_cast<uint64_t>(config_.segment_bytes);
  bool overflow = last_offset - segment.base_offset() > int64_t{INT32_MAX};
  STRATA_ASSIGN_OR_RETURN(auto rolling_ts, segment.RollingBasedTimestamp());
  // A compacted log rolls by max.compaction.lag.ms too: the cleaner never cleans the
  // active segment, so its records would otherwise wait for segment.ms.
  int64_t roll_ms = config_.cleanup_compact ? std::min(config_.segment_ms, config_.max_compaction_lag_ms)
                                            : config_.segment_ms;
  bool old = rolling_ts && first.max_timestamp - *rolling_ts > roll_ms;
  if (full || overflow || old || segment.indexes_full()) return RollLocked();
  return absl::OkStatus();
}

absl::Status Log::Roll() {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  return Io(RollLocked());
}

absl::Status Log::RollLocked() {
  LogSegment& active = active_segment();
  if (active.size() == 0 && active.base_offset() == log_end_offset_) return absl::OkStatus();
  STRATA_RETURN_IF_ERROR(active.MakeInactive());
  // Written now, made durable by the flush scheduled below (a snapshot lost in a crash
  // only costs a longer replay: the loader falls back to an older one).
  STRATA_RETURN_IF_ERROR(producer_state_->TakeSnapshot(SnapshotSync::kLater));
  STRATA_ASSIGN_OR_RETURN(auto segment,
                          LogSegment::Open(SegmentOptionsFor(OptionsLocked(), log_end_offset_, "", /*active=*/true), true));
  segments_.emplace(log_end_offset_, std::move(segment));
  dir_needs_sync_ = true;
  ScheduleFlushLocked(log_end_offset_);
  return absl::OkStatus();
}

void Log::ScheduleFlushLocked(int64_t offset) {
  if (options_.scheduler == nullptr) return;
  auto scheduled = options_.scheduler->Schedule(
      absl::StrCat("flush-log ", options_.dir, " below ", offset), std::chrono::milliseconds(0),
      [this, offset, lifetime = lifetime_] {
        absl::MutexLock alive(&lifetime->mu);
        if (!lifetime->alive) return;
        absl::Status s = Flush(offset);
        if (s.ok()) s = Io(SyncProducerSnapshot(*options_.ops, options_.dir, offset));
        if (!s.ok() && ErrcOf(s) != Errc::kLogDirOffline) {
          spdlog::warn("flush of {} below offset {} after a roll: {}", options_.dir, offset, s.message());
        }
      });
  // A full scheduler only delays durability: the next flush covers these offsets.
  if (!scheduled.ok()) spdlog::warn("{}: flush after roll not scheduled: {}", options_.dir, scheduled.status().message());
}

void Log::ScheduleEpochSyncLocked() {
  if (options_.scheduler == nullptr) return;  // the next flush writes it
  auto scheduled = options_.scheduler->Schedule(
      absl::StrCat("sync-leader-epochs ", options_.dir), std::chrono::milliseconds(0), [this, lifetime = lifetime_] {
        absl::MutexLock alive(&lifetime->mu);
        if (!lifetime->alive) return;
        absl::Status s = Io(leader_epoch_cache_->Sync());
        if (!s.ok() && ErrcOf(s) != Errc::kLogDirOffline) {
          spdlog::warn("{}: writing the leader-epoch checkpoint: {}", options_.dir, s.message());
        }
      });
  if (!scheduled.ok()) spdlog::warn("{}: leader-epoch write not scheduled: {}", options_.dir, scheduled.status().message());
}

absl::Status Log::StartLeaderEpoch(int32_t epoch) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  auto latest = leader_epoch_cache_->Latest();
  if (latest && latest->epoch >= epoch) return absl::OkStatus();
  STRATA_RETURN_IF_ERROR(Io(leader_epoch_cache_->Assign(epoch, log_end_offset_, EpochSync::kDeferred)));
  ScheduleEpochSyncLocked();
  return absl::OkStatus();
}

absl::Status Log::DeleteSegmentLocked(SegmentMap::iterator it) {
  std::shared_ptr<LogSegment> segment(std::move(it->second));
  segments_.erase(it);
  STRATA_RETURN_IF_ERROR(segment->ChangeSuffix(std::string(kDeletedSuffix)));
  segment->Abandon();  // open slices keep the .log readable until they finish
  if (options_.scheduler == nullptr) return segment->DeleteFiles();
  LogDirFailureChannel* channel = options_.failure_channel;
  std::string dir = log_dir();
  auto scheduled = options_.scheduler->Schedule(
      absl::StrCat("delete-segment ", segment->log_path()), std::chrono::milliseconds(config_.file_delete_delay_ms),
      [segment, channel, dir] {
        absl::Status s = segment->DeleteFiles();
        if (!s.ok() && channel != nullptr && ErrcOf(s) == Errc::kStorageError) channel->MaybeAddOfflineLogDir(dir, s);
      });
  if (!scheduled.ok()) return segment->DeleteFiles();  // the scheduler is full: delete now
  return absl::OkStatus();
}

absl::StatusOr<FetchDataInfo> Log::Read(int64_t offset, uint64_t max_bytes, int64_t max_offset_exclusive,
                                        bool min_one_batch) const {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  if (offset < log_start_offset_ || offset > log_end_offset_) {
    return MakeError(Errc::kOffsetOutOfRange,
                     absl::StrCat("offset ", offset, " is outside [", log_start_offset_, ", ", log_end_offset_,
                                  "] of ", topic_partition_.DirName()));
  }
  FetchDataInfo info;
  info.fetch_offset_metadata.message_offset = offset;
  auto it = segments_.upper_bound(offset);
  ABSL_CHECK(it != segments_.begin());
  --it;
  for (; it != segments_.end(); ++it) {
    const LogSegment& segment = *it->second;
    auto next = std::next(it);
    uint64_t max_position = segment.size();
    if (max_offset_exclusive < log_end_offset_ && (next == segments_.end() || max_offset_exclusive < next->first)) {
      auto bound = segment.FindBatch(max_offset_exclusive, segment.size());
      if (!bound.ok()) return Io(bound.status());
      if (*bound) max_position = (*bound)->position;
    }
    auto read = segment.Read(offset, max_bytes, max_position, min_one_batch);
    if (!read.ok()) return Io(read.status());
    if (!*read) continue;  // nothing at or above offset here (a compacted gap)
    info.fetch_offset_metadata.segment_base_offset = segment.base_offset();
    info.fetch_offset_metadata.relative_position = (*read)->first_batch_position;
    const std::optional<int64_t> upper =
        it->second->offset_index().FirstOffsetAtOrAfter((*read)->slice.position + (*read)->slice.size);
    info.upper_bound_offset = upper ? *upper : next == segments_.end() ? log_end_offset_ : next->first;
    info.records = std::move((*read)->slice);
    info.records.on_transfer_failure = transfer_failure_handler_;
    return info;
  }
  info.fetch_offset_metadata.segment_base_offset = segments_.rbegin()->first;
  info.fetch_offset_metadata.relative_position = segments_.rbegin()->second->size();
  info.upper_bound_offset = log_end_offset_;
  return info;
}

absl::StatusOr<std::optional<TimestampOffset>> Log::FetchOffsetByTimestamp(int64_t target) const {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  for (const auto& [base, segment] : segments_) {
    if (segment->max_timestamp_so_far() < target && segment.get() != segments_.rbegin()->second.get()) continue;
    auto found = segment->FindOffsetByTimestamp(target, log_start_offset_);
    if (!found.ok()) return Io(found.status());
    if (*found) return found;
  }
  return std::optional<TimestampOffset>();
}

absl::StatusOr<std::optional<TimestampOffset>> Log::FetchMaxTimestamp() const {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  const LogSegment* best = nullptr;  // the first segment that reaches the largest timestamp
  for (const auto& [base, segment] : segments_) {
    if (segment->max_timestamp_so_far() == kNoTimestamp) continue;
    if (best == nullptr || segment->max_timestamp_so_far() > best->max_timestamp_so_far()) best = segment.get();
  }
  if (best == nullptr) return std::optional<TimestampOffset>();
  // No record of that segment is later than its maximum, so the first one at or after it
  // carries it.
  auto found = best->FindOffsetByTimestamp(best->max_timestamp_so_far(), log_start_offset_);
  if (!found.ok()) return Io(found.status());
  return *found;
}

absl::StatusOr<std::optional<int64_t>> Log::ReloadProducerStateLocked(int64_t snapshot_bound, int64_t* replayed) {
  return ReloadProducerState(*producer_state_, segments_, snapshot_bound, log_start_offset_, replayed);
}

absl::StatusOr<bool> Log::TruncateTo(int64_t offset) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  if (offset < 0) return MakeError(Errc::kInvalidArgument, absl::StrCat("cannot truncate to offset ", offset));
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  if (offset >= log_end_offset_) {
    // No record goes, but an epoch that starts at the log end holds none either: a
    // broker that became leader and was deposed before appending has one, which the
    // new leader's log never had. Kept, the follower would name it in every fetch and
    // be told to truncate here again, forever (Kafka's truncateTo drops it the same way).
    STRATA_RETURN_IF_ERROR(Io(leader_epoch_cache_->TruncateFromEnd(log_end_offset_)));
    return false;
  }
  if (offset < log_start_offset_) {
    STRATA_RETURN_IF_ERROR(TruncateFullyLocked(offset));
    return true;
  }
  truncations_.fetch_add(1);
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    while (segments_.size() > 1 && segments_.rbegin()->first > offset) {
      STRATA_RETURN_IF_ERROR(DeleteSegmentLocked(std::prev(segments_.end())));
    }
    LogSegment& active = active_segment();
    STRATA_RETURN_IF_ERROR(active.TruncateTo(offset).status());
    STRATA_RETURN_IF_ERROR(active.MakeActive());
    STRATA_ASSIGN_OR_RETURN(log_end_offset_, active.ReadNextOffset());
    if (log_end_offset_ < log_start_offset_) {
      // The batch straddling the log start went whole: nothing at or above the log
      // start is left, so the log restarts, empty, at its start.
      return TruncateFullyLocked(log_start_offset_);
    }
    recovery_point_ = std::min(recovery_point_, log_end_offset_);
    high_watermark_ = std::min(high_watermark_, log_end_offset_);
    STRATA_RETURN_IF_ERROR(leader_epoch_cache_->TruncateFromEnd(log_end_offset_));
    int64_t replayed = 0;
    STRATA_RETURN_IF_ERROR(ReloadProducerStateLocked(log_end_offset_, &replayed).status());
    producer_state_->OnHighWatermarkUpdated(high_watermark_);
    return absl::OkStatus();
  }();
  if (!status.ok()) return Io(status);
  CheckInvariantsLocked();
  return true;
}

absl::Status Log::TruncateFullyAndStartAt(int64_t offset) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  if (offset < 0) return MakeError(Errc::kInvalidArgument, absl::StrCat("cannot restart the log at offset ", offset));
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  return TruncateFullyLocked(offset);
}

absl::Status Log::TruncateFullyAndRestore(int64_t offset, const std::vector<EpochEntry>& epochs,
                                          absl::string_view producer_snapshot) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  if (offset < 0) return MakeError(Errc::kInvalidArgument, absl::StrCat("cannot restart the log at offset ", offset));
  std::map<int64_t, ProducerStateEntry> producers;
  if (!producer_snapshot.empty()) {
    STRATA_ASSIGN_OR_RETURN(producers, ProducerStateManager::DecodeSnapshot(
                                           producer_snapshot, absl::StrCat("the remote producer snapshot at ", offset)));
  }
  std::vector<EpochEntry> below;
  for (const EpochEntry& e : epochs) {
    if (e.start_offset < offset) below.push_back(e);
  }
  STRATA_RETURN_IF_ERROR(LeaderEpochCache::Validate(below));
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  STRATA_RETURN_IF_ERROR(TruncateFullyLocked(offset));
  absl::Status status = leader_epoch_cache_->Restore(below);
  if (status.ok()) status = producer_state_->Restore(offset, std::move(producers));
  if (!status.ok()) return Io(status);
  return absl::OkStatus();
}

absl::Status Log::TruncateFullyLocked(int64_t offset) {
  truncations_.fetch_add(1);
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    while (!segments_.empty()) STRATA_RETURN_IF_ERROR(DeleteSegmentLocked(segments_.begin()));
    STRATA_ASSIGN_OR_RETURN(auto segment,
                            LogSegment::Open(SegmentOptionsFor(OptionsLocked(), offset, "", /*active=*/true), true));
    segments_.emplace(offset, std::move(segment));
    dir_needs_sync_ = true;
    log_start_offset_ = log_end_offset_ = recovery_point_ = high_watermark_ = offset;
    STRATA_RETURN_IF_ERROR(leader_epoch_cache_->Clear());
    return producer_state_->TruncateFullyAndStartAt(offset);
  }();
  if (!status.ok()) return Io(status);
  CheckInvariantsLocked();
  return absl::OkStatus();
}

absl::Status Log::MaybeIncrementLogStartOffset(int64_t new_log_start_offset) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  if (new_log_start_offset > high_watermark_) {
    return MakeError(Errc::kOffsetOutOfRange,
                     absl::StrCat("cannot move the log start of ", topic_partition_.DirName(), " to ",
                                  new_log_start_offset, ", above the high watermark ", high_watermark_));
  }
  if (new_log_start_offset <= log_start_offset_) return absl::OkStatus();
  log_start_offset_ = new_log_start_offset;
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    STRATA_RETURN_IF_ERROR(leader_epoch_cache_->TruncateFromStart(log_start_offset_));
    while (segments_.size() > 1 && std::next(segments_.begin())->first <= log_start_offset_) {
      STRATA_RETURN_IF_ERROR(DeleteSegmentLocked(segments_.begin()));
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) return Io(status);
  CheckInvariantsLocked();
  return absl::OkStatus();
}

absl::StatusOr<int> Log::DeleteOldSegments() {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  int64_t now = options_.clock->NowMs();
  int64_t total = 0;
  for (const auto& [base, segment] : segments_) total += static_cast<int64_t>(segment->size());
  int deleted = 0;
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    while (segments_.size() > 1) {
      auto first = segments_.begin();
      int64_t upper = std::next(first)->first;  // the next segment's base
      LogSegment& segment = *first->second;
      if (upper > high_watermark_) break;
      bool below_start = upper <= log_start_offset_;
      auto past = [&](int64_t retention_ms, int64_t retention_bytes) {
        bool expired = retention_ms >= 0 && segment.max_timestamp_so_far() != kNoTimestamp &&
                       now - segment.max_timestamp_so_far() > retention_ms;
        bool over_size = retention_bytes >= 0 && total - static_cast<int64_t>(segment.size()) >= retention_bytes;
        return expired || over_size;
      };
      // retention.* bounds the whole log: past it, a segment goes whether or not the
      // remote tier holds it (the remote log manager deletes the copies by the same
      // rule; the local size is at most the whole log's).
      // Compact-only logs are never deleted by retention (the cleaner bounds them).
      bool due = below_start || (config_.cleanup_delete && past(config_.retention_ms, config_.retention_bytes));
      if (!due && config_.remote_storage_enable) {
        // Local retention, and only of what the remote tier holds.
        bool copied = upper - 1 <= highest_offset_in_remote_storage_;
        due = copied && past(config_.effective_local_retention_ms(), config_.effective_local_retention_bytes());
      }
      if (!due) break;
      total -= static_cast<int64_t>(segment.size());
      STRATA_RETURN_IF_ERROR(DeleteSegmentLocked(first));
      ++deleted;
      log_start_offset_ = std::max(log_start_offset_, segments_.begin()->first);
    }
    if (deleted > 0) {
      STRATA_RETURN_IF_ERROR(leader_epoch_cache_->TruncateFromStart(log_start_offset_));
      STRATA_RETURN_IF_ERROR(producer_state_->DeleteSnapshotsBelow(segments_.begin()->first));
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) return Io(status);
  CheckInvariantsLocked();
  return deleted;
}

std::vector<RolledSegment> Log::RolledSegmentsAfter(int64_t after, int64_t below) const {
  std::vector<RolledSegment> out;
  std::vector<EpochEntry> epochs = leader_epoch_cache_->entries();
  {
    absl::ReaderMutexLock lock(&mu_);
    if (closed_) return out;
    for (auto it = segments_.begin(); it != segments_.end(); ++it) {
      auto next = std::next(it);
      if (next == segments_.end()) break;  // the active segment
      int64_t end = next->first - 1;
      if (end <= after) continue;
      if (next->first > below) break;
      const LogSegment& segment = *it->second;
      RolledSegment r;
      r.base_offset = it->first;
      r.end_offset = end;
      r.size = segment.size();
      r.max_timestamp = segment.max_timestamp_so_far();
      r.log_path = segment.log_path();
      r.index_path = segment.index_path();
      r.time_index_path = segment.time_index_path();
      if (!segment.txn_index().entries().empty()) r.txn_index_path = segment.txn_index().path();
      r.producer_snapshot_path = SegmentFileName(options_.dir, next->first, kSnapshotSuffix);  // checked below
      for (const EpochEntry& e : epochs) {
        if (e.start_offset > end) break;
        r.epoch_checkpoint.push_back(e);
        if (e.start_offset <= r.base_offset) {
          r.leader_epochs.assign(1, EpochEntry{e.epoch, r.base_offset});
        } else {
          r.leader_epochs.push_back(e);
        }
      }
      out.push_back(std::move(r));
    }
  }
  for (RolledSegment& r : out) {
    // No I/O under the lock that appends take.
    auto exists = options_.ops->Exists(r.producer_snapshot_path);
    if (!exists.ok() || !*exists) r.producer_snapshot_path.clear();
  }
  return out;
}

void Log::set_highest_offset_in_remote_storage(int64_t offset) {
  absl::MutexLock lock(&mu_);
  highest_offset_in_remote_storage_ = offset;
}

int64_t Log::highest_offset_in_remote_storage() const {
  absl::ReaderMutexLock lock(&mu_);
  return highest_offset_in_remote_storage_;
}

absl::Status Log::Flush(int64_t offset) {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::MutexLock flushing(&flush_mu_);
  int64_t target = 0;
  bool sync_dir = false;
  std::vector<std::shared_ptr<LogSegment>> rolled;  // below the active segment: synced whole
  std::shared_ptr<LogSegment> active;               // its .log, through the shared handle
  std::vector<std::shared_ptr<File>> active_indexes;  // and its index files, likewise
  {
    absl::MutexLock lock(&mu_);
    STRATA_RETURN_IF_ERROR(CheckOpenLocked());
    target = std::min(offset, log_end_offset_);
    if (target <= recovery_point_) return absl::OkStatus();
    for (auto it = segments_.begin(); it != segments_.end(); ++it) {
      auto next = std::next(it);
      if (next != segments_.end() && next->first <= recovery_point_) continue;  // already durable
      if (it->first >= target) break;
      if (next == segments_.end()) {
        active = it->second;
        // Opens the index files again (they are closed once mapped): failing is an I/O error.
        auto indexes = active->StartIndexFlush();
        if (!indexes.ok()) return Io(indexes.status());
        active_indexes = *std::move(indexes);
      } else {
        rolled.push_back(it->second);
      }
    }
    sync_dir = dir_needs_sync_;
    dir_needs_sync_ = false;
  }
  const auto started = std::chrono::steady_clock::now();
  // The disk work, while appends and reads go on. The files of the rolled segments
  // cannot change meanwhile (whatever changes them takes flush_mu_); the active
  // segment's .log grows, and its sync covers at least everything below target; its
  // indexes take entries (or a roll trims and remaps them), and their fdatasync covers
  // every entry stored before StartIndexFlush, so those below target.
  absl::Status status = [&]() -> absl::Status {
    for (const auto& segment : rolled) STRATA_RETURN_IF_ERROR(segment->Flush());
    if (active) STRATA_RETURN_IF_ERROR(active->log_file()->Sync());
    for (const auto& index : active_indexes) STRATA_RETURN_IF_ERROR(index->Sync());
    // Epochs that began below target, before the recovery point passes them.
    STRATA_RETURN_IF_ERROR(leader_epoch_cache_->Sync());
    if (sync_dir) STRATA_RETURN_IF_ERROR(options_.ops->SyncDir(options_.dir));
    return absl::OkStatus();
  }();
  absl::MutexLock lock(&mu_);
  if (!status.ok()) {
    dir_needs_sync_ = dir_needs_sync_ || sync_dir;
    return Io(status);
  }
  if (options_.flush_stats != nullptr) {
    options_.flush_stats->Record(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count());
  }
  last_flush_ms_ = options_.clock->NowMs();
  // No truncation ran meanwhile (it takes flush_mu_): everything below target is what
  // was synced.
  if (target > recovery_point_) recovery_point_ = target;
  CheckInvariantsLocked();
  return absl::OkStatus();
}

absl::Status Log::MaybeFlushForTime(int64_t now_ms) {
  int64_t log_end;
  {
    absl::ReaderMutexLock lock(&mu_);
    if (closed_ || now_ms - last_flush_ms_ < config_.flush_ms || log_end_offset_ <= recovery_point_) {
      return absl::OkStatus();
    }
    log_end = log_end_offset_;
  }
  return Flush(log_end);
}

int64_t Log::unflushed_messages() const {
  absl::ReaderMutexLock lock(&mu_);
  return log_end_offset_ - recovery_point_;
}

int64_t Log::last_flush_ms() const {
  absl::ReaderMutexLock lock(&mu_);
  return last_flush_ms_;
}

LogConfig Log::config() const {
  absl::ReaderMutexLock lock(&mu_);
  return config_;
}

void Log::UpdateConfig(const LogConfig& config) {
  absl::MutexLock lock(&mu_);
  config_ = config;
}

LogOptions Log::OptionsLocked() const {
  LogOptions options = options_;
  options.config = config_;
  return options;
}

void Log::UpdateHighWatermark(int64_t offset) {
  absl::MutexLock lock(&mu_);
  high_watermark_ = std::clamp(offset, log_start_offset_, log_end_offset_);
  producer_state_->OnHighWatermarkUpdated(high_watermark_);
}

int64_t Log::LastStableOffsetLocked() const {
  std::optional<int64_t> first_unstable = producer_state_->FirstUnstableOffset();
  return first_unstable ? std::min(*first_unstable, high_watermark_) : high_watermark_;
}

std::map<int64_t, ProducerStateEntry> Log::ProducerStates() const {
  absl::ReaderMutexLock lock(&mu_);
  return producer_state_->producers();
}

int64_t Log::last_stable_offset() const {
  absl::ReaderMutexLock lock(&mu_);
  return LastStableOffsetLocked();
}

absl::StatusOr<std::vector<AbortedTxn>> Log::CollectAbortedTxns(int64_t fetch_offset, int64_t upper_bound) const {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckOpenLocked());
  std::vector<AbortedTxn> out;
  auto it = segments_.upper_bound(fetch_offset);
  if (it != segments_.begin()) --it;
  for (; it != segments_.end(); ++it) {
    if (it->second->txn_index().Collect(fetch_offset, upper_bound, &out)) break;
  }
  return out;
}

void Log::EndScheduledTasks() {
  absl::MutexLock alive(&lifetime_->mu);  // waits for a scheduled flush or epoch write running now
  lifetime_->alive = false;
}

absl::Status Log::Close() {
  STRATA_RETURN_IF_ERROR(CheckOnline());
  EndScheduledTasks();  // what they would write, the close writes
  STRATA_RETURN_IF_ERROR(FlushAll());
  absl::MutexLock flushing(&flush_mu_);
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::OkStatus();
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    STRATA_RETURN_IF_ERROR(leader_epoch_cache_->Sync());  // FlushAll had nothing to flush
    STRATA_RETURN_IF_ERROR(producer_state_->TakeSnapshot());
    for (auto& [base, segment] : segments_) STRATA_RETURN_IF_ERROR(segment->Close());
    return absl::OkStatus();
  }();
  closed_ = true;
  return Io(status);
}

void Log::CloseAfterDirFailure() {
  // A task still to run would write into the directory, which a deleted partition's
  // caller renames next (a failed rename there would take the whole log dir offline).
  EndScheduledTasks();
  absl::MutexLock flushing(&flush_mu_);  // waits for a flush still on the failing disk
  absl::MutexLock lock(&mu_);
  for (auto& [base, segment] : segments_) segment->Abandon();
  closed_ = true;
}

void Log::set_transfer_failure_handler(std::shared_ptr<TransferFailureHandler> handler) {
  absl::MutexLock lock(&mu_);
  transfer_failure_handler_ = std::move(handler);
}

int64_t Log::log_start_offset() const {
  absl::ReaderMutexLock lock(&mu_);
  return log_start_offset_;
}
int64_t Log::log_end_offset() const {
  absl::ReaderMutexLock lock(&mu_);
  return log_end_offset_;
}
int64_t Log::recovery_point() const {
  absl::ReaderMutexLock lock(&mu_);
  return recovery_point_;
}
int64_t Log::high_watermark() const {
  absl::ReaderMutexLock lock(&mu_);
  return high_watermark_;
}
Log::Offsets Log::offsets() const {
  absl::ReaderMutexLock lock(&mu_);
  return Offsets{log_start_offset_, log_end_offset_, high_watermark_, LastStableOffsetLocked()};
}
int64_t Log::size_in_bytes() const {
  absl::ReaderMutexLock lock(&mu_);
  int64_t total = 0;
  for (const auto& [base, segment] : segments_) total += static_cast<int64_t>(segment->size());
  return total;
}
int64_t Log::SizeOfSegmentsAbove(int64_t offset) const {
  absl::ReaderMutexLock lock(&mu_);
  int64_t total = 0;
  for (auto it = segments_.begin(); it != segments_.end(); ++it) {
    auto next = std::next(it);
    if (next != segments_.end() && next->first - 1 <= offset) continue;
    total += static_cast<int64_t>(it->second->size());
  }
  return total;
}

int Log::segment_count() const {
  absl::ReaderMutexLock lock(&mu_);
  return static_cast<int>(segments_.size());
}
std::vector<int64_t> Log::segment_base_offsets() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<int64_t> out;
  for (const auto& [base, segment] : segments_) out.push_back(base);
  return out;
}

LogSegmentData RolledSegment::ToSegmentData() const {
  LogSegmentData data;
  data.log_path = log_path;
  data.offset_index_path = index_path;
  data.time_index_path = time_index_path;
  data.producer_snapshot_path = producer_snapshot_path;
  data.txn_index_path = txn_index_path;
  data.leader_epochs = FormatEpochCheckpoint(epoch_checkpoint);
  return data;
}

}  // namespace strata::storage
