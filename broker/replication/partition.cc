#include "broker/replication/partition.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/common/kafka_error.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {
constexpr int64_t kLatestTimestamp = -1;
constexpr int64_t kEarliestTimestamp = -2;
constexpr int64_t kMaxTimestamp = -3;
constexpr int64_t kEarliestLocalTimestamp = -4;
constexpr int64_t kLatestTieredTimestamp = -5;
constexpr int64_t kEarliestPendingUploadTimestamp = -6;
}  // namespace

Partition::Partition(storage::TopicPartition tp, int32_t local_broker_id, storage::Log* log)
    : tp_(std::move(tp)), local_broker_id_(local_broker_id), log_(log) {
  ABSL_CHECK(log != nullptr) << tp_.DirName();
}

absl::StatusOr<bool> Partition::Update(const PartitionState& state, int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  bool was_leader = has_state_ && IsLeaderLocked();
  bool changed = !has_state_ || state.leader_epoch != state_.leader_epoch ||
                 (state.leader == local_broker_id_) != was_leader;
  // An entry that does not change the partition (another broker registered or was
  // unfenced: the broker applies such entries to every partition) leaves an ISR change
  // in flight pending; dropping it there let the high watermark pass a follower the
  // controller then added (the replication simulation, seed 124).
  const bool partition_moved = changed || state.partition_epoch != state_.partition_epoch;
  if (has_state_) {
    // The image only moves forward: epochs never go back.
    ABSL_CHECK_GE(state.leader_epoch, state_.leader_epoch) << tp_.DirName();
    ABSL_CHECK_GE(state.partition_epoch, state_.partition_epoch) << tp_.DirName();
  }
  state_ = state;
  has_state_ = true;
  if (changed && state.leader == local_broker_id_ && state.leader_epoch >= 0) {
    // A new leader epoch starts at the log end (what OffsetForLeaderEpoch answers
    // followers, and what appends in this epoch continue from).
    // Written in the background (until this epoch holds a batch, losing it in a crash
    // loses nothing), so that the new leader's first produce does not wait on an fsync.
    STRATA_RETURN_IF_ERROR(log()->StartLeaderEpoch(state.leader_epoch));
  }
  {
    absl::MutexLock hw(&hw_mu_);
    if (changed) {
      followers_.clear();  // every follower starts afresh in a new epoch
      became_leader_ms_ = now_ms;
    }
    if (partition_moved) pending_isr_.reset();  // the metadata settled whatever was in flight
  }
  if (state.leader == local_broker_id_) MaybeIncrementHighWatermarkLocked();
  return changed;
}

absl::Status Partition::CheckEpochLocked(std::optional<int32_t> current_leader_epoch, bool require_leader) const {
  if (!has_state_) {
    return KafkaError(kafka::ErrorCode::kUnknownTopicOrPartition,
                      absl::StrCat(tp_.DirName(), " has no metadata on broker ", local_broker_id_));
  }
  if (current_leader_epoch && *current_leader_epoch >= 0) {
    if (*current_leader_epoch < state_.leader_epoch) {
      return KafkaError(kafka::ErrorCode::kFencedLeaderEpoch,
                        absl::StrCat(tp_.DirName(), ": leader epoch ", *current_leader_epoch, " is older than ",
                                     state_.leader_epoch));
    }
    if (*current_leader_epoch > state_.leader_epoch) {
      return KafkaError(kafka::ErrorCode::kUnknownLeaderEpoch,
                        absl::StrCat(tp_.DirName(), ": leader epoch ", *current_leader_epoch,
                                     " is newer than this broker's ", state_.leader_epoch));
    }
  }
  if (require_leader && !IsLeaderLocked()) {
    return KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", local_broker_id_, " does not lead ", tp_.DirName(), " (leader ",
                                   state_.leader, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<storage::LogAppendInfo> Partition::AppendRecordsToLeader(std::string& records,
                                                                      storage::AppendOrigin origin,
                                                                      const storage::TxnVerification& verification) {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(std::nullopt, true));
  STRATA_ASSIGN_OR_RETURN(storage::LogAppendInfo info,
                          log()->AppendAsLeader(records, state_.leader_epoch, origin, verification));
  traffic_.bytes_in.fetch_add(static_cast<int64_t>(records.size()), std::memory_order_relaxed);
  if (!info.duplicate && info.last_offset >= info.first_offset) {
    traffic_.records_in.fetch_add(info.last_offset - info.first_offset + 1, std::memory_order_relaxed);
  }
  MaybeIncrementHighWatermarkLocked();
  return info;
}

std::vector<int32_t> Partition::MaximalIsrLocked() const {
  std::vector<int32_t> isr = state_.isr;
  if (pending_isr_) {
    for (int32_t r : *pending_isr_) {
      if (std::find(isr.begin(), isr.end(), r) == isr.end()) isr.push_back(r);
    }
  }
  return isr;
}

bool Partition::MaybeIncrementHighWatermarkLocked() {
  absl::MutexLock lock(&hw_mu_);
  int64_t candidate = log()->log_end_offset();
  for (int32_t replica : MaximalIsrLocked()) {
    if (replica == local_broker_id_) continue;
    auto it = followers_.find(replica);
    // A member that has not fetched in this epoch holds the watermark where it is.
    candidate = std::min(candidate, it == followers_.end() ? int64_t{-1} : it->second.log_end_offset);
  }
  const int64_t high_watermark = log()->high_watermark();
  if (candidate <= high_watermark) return false;
  spdlog::debug("broker {}: {} high watermark {} -> {}", local_broker_id_, tp_.DirName(), high_watermark, candidate);
  log()->UpdateHighWatermark(candidate);
  return true;
}

Partition::FollowerFetch Partition::UpdateFollowerFetchState(int32_t replica_id, int64_t fetch_offset,
                                                             int64_t leader_log_end, int64_t now_ms,
                                                             int64_t follower_log_start) {
  FollowerFetch result;
  absl::ReaderMutexLock lock(&mu_);
  if (!IsLeaderLocked()) return result;
  bool replica = std::find(state_.replicas.begin(), state_.replicas.end(), replica_id) != state_.replicas.end();
  if (!replica) return result;  // not a replica of this partition (any more)
  bool in_isr = std::find(state_.isr.begin(), state_.isr.end(), replica_id) != state_.isr.end();
  {
    absl::MutexLock hw(&hw_mu_);
    FollowerState& f = followers_[replica_id];
    if (fetch_offset >= leader_log_end) {
      f.last_caught_up_ms = now_ms;
    } else if (fetch_offset >= f.last_fetch_leader_log_end && f.last_fetch_leader_log_end >= 0) {
      f.last_caught_up_ms = std::max(f.last_caught_up_ms, f.last_fetch_ms);
    }
    f.log_end_offset = fetch_offset;
    if (follower_log_start > f.log_start_offset) {
      result.log_start_moved = f.log_start_offset >= 0;
      f.log_start_offset = follower_log_start;
    }
    f.last_fetch_leader_log_end = leader_log_end;
    f.last_fetch_ms = now_ms;
    // Back in the ISR once it holds everything acknowledged so far and this epoch's
    // records have started reaching it.
    auto epoch_start = log()->leader_epoch_cache().Latest();
    if (!in_isr && !pending_isr_ && fetch_offset >= log()->high_watermark() &&
        (!epoch_start || fetch_offset >= epoch_start->start_offset)) {
      std::vector<int32_t> isr = state_.isr;
      isr.push_back(replica_id);
      // Pending at once, under the lock that decided it: asked for later, the high
      // watermark could move past this fetch offset in between, and the controller
      // would add a replica that lacks committed records (the replication simulation,
      // seed 2, found that window).
      SetPendingIsrLocked(isr);
      result.expand_isr = std::move(isr);
    }
  }
  result.high_watermark_moved = MaybeIncrementHighWatermarkLocked();
  return result;
}

std::optional<std::vector<int32_t>> Partition::IsrToShrinkTo(int64_t now_ms, int64_t lag_ms) const {
  absl::ReaderMutexLock lock(&mu_);
  if (!IsLeaderLocked()) return std::nullopt;
  absl::MutexLock hw(&hw_mu_);
  if (pending_isr_) return std::nullopt;
  std::vector<int32_t> isr;
  for (int32_t replica : state_.isr) {
    if (replica != local_broker_id_) {
      auto it = followers_.find(replica);
      // Caught up within lag_ms; one that has not fetched in this epoch counts from
      // when this broker became leader.
      int64_t since = it == followers_.end() ? became_leader_ms_
                                             : std::max(it->second.last_caught_up_ms, became_leader_ms_);
      if (now_ms - since > lag_ms) continue;
    }
    isr.push_back(replica);
  }
  if (isr.size() == state_.isr.size()) return std::nullopt;
  return isr;
}

bool Partition::FollowersSilentFor(int64_t now_ms, int64_t ms) const {
  absl::ReaderMutexLock lock(&mu_);
  if (!IsLeaderLocked()) return false;
  absl::MutexLock hw(&hw_mu_);
  bool others = false;
  for (int32_t replica : state_.isr) {
    if (replica == local_broker_id_) continue;
    others = true;
    auto it = followers_.find(replica);
    int64_t since = it == followers_.end() ? became_leader_ms_ : std::max(it->second.last_fetch_ms, became_leader_ms_);
    if (now_ms - since <= ms) return false;
  }
  return others;
}

void Partition::SetPendingIsr(std::vector<int32_t> new_isr) {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  SetPendingIsrLocked(std::move(new_isr));
}

void Partition::ClearPendingIsr() {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  pending_isr_.reset();
}

void Partition::UpdateReplicaBrokerEpochs(const std::map<int32_t, int64_t>& broker_epochs) {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  for (const auto& [replica, epoch] : broker_epochs) {
    auto [known, added] = replica_broker_epochs_.try_emplace(replica, epoch);
    if (added || known->second == epoch) continue;
    known->second = epoch;
    followers_.erase(replica);
  }
}

void Partition::SetPendingIsrLocked(std::vector<int32_t> isr) {
  pending_isr_broker_epochs_.clear();
  for (int32_t r : isr) {
    auto it = replica_broker_epochs_.find(r);
    pending_isr_broker_epochs_.push_back(it == replica_broker_epochs_.end() ? -1 : it->second);
  }
  pending_isr_ = std::move(isr);
}

std::vector<int64_t> Partition::pending_isr_broker_epochs() const {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  return pending_isr_ ? pending_isr_broker_epochs_ : std::vector<int64_t>{};
}

std::optional<std::vector<int32_t>> Partition::pending_isr() const {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  return pending_isr_;
}

bool Partition::has_pending_isr() const {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  return pending_isr_.has_value();
}

absl::StatusOr<std::optional<std::pair<int32_t, int64_t>>> Partition::DivergingEpoch(
    std::optional<int32_t> current_leader_epoch, int32_t last_fetched_epoch, int64_t fetch_offset) const {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(current_leader_epoch, true));
  if (last_fetched_epoch < 0) return std::nullopt;
  auto [epoch, end] = log()->leader_epoch_cache().EndOffsetFor(last_fetched_epoch, log()->log_end_offset());
  if (epoch == last_fetched_epoch && end >= fetch_offset) return std::nullopt;
  return std::make_pair(epoch, end);
}

absl::Status Partition::CheckFollowerLocked(int32_t fetched_in_epoch) const {
  if (!has_state_ || IsLeaderLocked()) {
    // E.g. an answer of the old leader that arrived after this broker took over: this
    // log (and the epoch it just started at its end) is the partition's now.
    return KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", local_broker_id_, " is not a follower of ", tp_.DirName()));
  }
  if (state_.leader_epoch != fetched_in_epoch) {
    return KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", local_broker_id_, " follows ", tp_.DirName(), " in leader epoch ",
                                   state_.leader_epoch, ", not in ", fetched_in_epoch, " the answer is for"));
  }
  return absl::OkStatus();
}

FollowerLogPosition Partition::follower_log_position() const {
  FollowerLogPosition position;
  position.log_end_offset = log()->log_end_offset();
  auto latest = log()->leader_epoch_cache().Latest();
  position.last_fetched_epoch = latest ? latest->epoch : -1;
  position.log_start_offset = log()->log_start_offset();
  return position;
}

absl::StatusOr<FollowerAppend> Partition::AppendRecordsToFollower(int32_t fetched_in_epoch, absl::string_view records,
                                                                  int64_t leader_high_watermark,
                                                                  int64_t leader_log_start) {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckFollowerLocked(fetched_in_epoch));
  FollowerAppend out;
  if (!records.empty()) {
    STRATA_ASSIGN_OR_RETURN(out.info, log()->AppendAsFollower(records));
    traffic_.replication_bytes_in.fetch_add(static_cast<int64_t>(records.size()), std::memory_order_relaxed);
  }
  // Only wake-ups depend on this comparison: another move meanwhile (retention raising the
  // log start above it) at worst wakes the waiting fetches for nothing.
  int64_t before = log()->high_watermark();
  log()->UpdateHighWatermark(std::min(leader_high_watermark, log()->log_end_offset()));
  out.high_watermark_moved = log()->high_watermark() != before;
  // The leader's log start (both tiers) moved past this one's: DeleteRecords (or the
  // remote tier's retention, below which nothing is readable anywhere). Never past this
  // replica's high watermark: what it has not confirmed it may not delete.
  int64_t start = std::min(leader_log_start, log()->high_watermark());
  if (start > log()->log_start_offset()) {
    STRATA_RETURN_IF_ERROR(log()->MaybeIncrementLogStartOffset(start));
    out.log_start_moved = true;
  }
  return out;
}

absl::StatusOr<int64_t> Partition::DeleteRecords(int64_t offset) {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(std::nullopt, /*require_leader=*/true));
  if (!log()->config().cleanup_delete) {
    return KafkaError(kafka::ErrorCode::kPolicyViolation,
                      absl::StrCat("records of ", tp_.DirName(), " cannot be deleted up to offset ", offset,
                                   ": its cleanup.policy is compact"));
  }
  int64_t high_watermark = log()->high_watermark();
  int64_t to = offset == -1 ? high_watermark : offset;
  if (to < 0 || to > high_watermark) {
    return KafkaError(kafka::ErrorCode::kOffsetOutOfRange,
                      absl::StrCat("cannot delete the records of ", tp_.DirName(), " below offset ", offset,
                                   ": it is outside [0, ", high_watermark, "] (the high watermark)"));
  }
  // The local log (a smaller offset than its start changes nothing); the remote tier's
  // part is the quorum's (ReplicaManager::MoveRemoteLogStart).
  STRATA_RETURN_IF_ERROR(log()->MaybeIncrementLogStartOffset(to));
  return to;
}

absl::StatusOr<int64_t> Partition::LowWatermark(const std::vector<int32_t>& live_replicas) const {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(std::nullopt, /*require_leader=*/true));
  int64_t low = LogStartOffsetLocked();
  absl::MutexLock hw(&hw_mu_);
  for (int32_t replica : live_replicas) {
    if (replica == local_broker_id_) continue;
    if (std::find(state_.replicas.begin(), state_.replicas.end(), replica) == state_.replicas.end()) continue;
    auto it = followers_.find(replica);
    low = std::min(low, it == followers_.end() ? -1 : it->second.log_start_offset);
  }
  return low;
}

absl::Status Partition::TruncateToDivergence(int32_t fetched_in_epoch, int32_t leader_epoch,
                                             int64_t leader_end_offset) {
  absl::MutexLock future(&future_mu_);
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckFollowerLocked(fetched_in_epoch));
  int64_t offset;
  if (leader_epoch < 0 || leader_end_offset < 0) {
    // The leader knows no end offset for the epoch (as Kafka's follower on UNDEFINED):
    // truncate to the high watermark, below which every ISR member holds the same
    // records. Never further: to the log start would drop acknowledged records, and a
    // follower that later leads would have lost them.
    offset = log()->high_watermark();
  } else {
    // This log's own end for that epoch: where its records of that epoch (or of the
    // largest epoch below it) stop. Truncate to the smaller of the two.
    auto [own_epoch, own_end] = log()->leader_epoch_cache().EndOffsetFor(leader_epoch, log()->log_end_offset());
    offset = std::max<int64_t>(own_epoch < 0 ? leader_end_offset : std::min(leader_end_offset, own_end), 0);
  }
  return TruncateBothLocked([offset](storage::Log& log) { return log.TruncateTo(offset).status(); });
}

absl::Status Partition::TruncateToLeaderLogEnd(int32_t fetched_in_epoch, int64_t leader_log_end) {
  absl::MutexLock future(&future_mu_);
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckFollowerLocked(fetched_in_epoch));
  return TruncateBothLocked([leader_log_end](storage::Log& log) { return log.TruncateTo(leader_log_end).status(); });
}

absl::Status Partition::RestartAtLeaderLogStart(int32_t fetched_in_epoch, int64_t leader_log_start) {
  absl::MutexLock future(&future_mu_);
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckFollowerLocked(fetched_in_epoch));
  return TruncateBothLocked(
      [leader_log_start](storage::Log& log) { return log.TruncateFullyAndStartAt(leader_log_start); });
}

absl::Status Partition::RestartFromRemoteTier(int32_t fetched_in_epoch, int64_t offset,
                                              const std::vector<storage::EpochEntry>& epochs,
                                              absl::string_view producer_snapshot) {
  absl::MutexLock future(&future_mu_);
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckFollowerLocked(fetched_in_epoch));
  return TruncateBothLocked(
      [&](storage::Log& log) { return log.TruncateFullyAndRestore(offset, epochs, producer_snapshot); });
}

bool Partition::fetch_last_tiered_offset() const {
  storage::LogConfig config = log()->config();
  return config.remote_storage_enable && config.follower_fetch_last_tiered_offset;
}

std::string Partition::topic_id() const {
  absl::ReaderMutexLock lock(&mu_);
  return state_.topic_id;
}

absl::StatusOr<PartitionReadInfo> Partition::ReadRecords(int64_t fetch_offset, uint64_t max_bytes,
                                                         FetchIsolation isolation,
                                                         std::optional<int32_t> current_leader_epoch,
                                                         bool min_one_batch, bool leader_only) const {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(current_leader_epoch, leader_only));
  // A follower serves consumers only (its producer state gives it the same last stable
  // offset as its leader's, below its own high watermark).
  if (!IsLeaderLocked() && isolation == FetchIsolation::kLogEnd) isolation = FetchIsolation::kHighWatermark;
  PartitionReadInfo info;
  // Read the bounds before the data (at one instant): a concurrent append may only add
  // past them.
  const storage::Log::Offsets offsets = log()->offsets();
  info.high_watermark = offsets.high_watermark;
  info.last_stable_offset = offsets.last_stable_offset;
  int64_t local_start = offsets.log_start_offset;
  info.log_start_offset = std::min(local_start, LogStartOffsetLocked());
  info.log_end_offset = offsets.log_end_offset;
  int64_t bound = isolation == FetchIsolation::kLogEnd        ? info.log_end_offset
                  : isolation == FetchIsolation::kTxnCommitted ? info.last_stable_offset
                                                               : info.high_watermark;
  if (fetch_offset >= info.log_start_offset && fetch_offset < local_start) {
    return KafkaError(kafka::ErrorCode::kOffsetMovedToTieredStorage,
                      absl::StrCat("offset ", fetch_offset, " of ", tp_.DirName(), " is in the remote tier [",
                                   info.log_start_offset, ", ", local_start, ")"));
  }
  if (fetch_offset < info.log_start_offset || fetch_offset > info.log_end_offset) {
    return KafkaError(kafka::ErrorCode::kOffsetOutOfRange,
                      absl::StrCat("offset ", fetch_offset, " is outside [", info.log_start_offset, ", ",
                                   info.log_end_offset, "] of ", tp_.DirName()));
  }
  if (fetch_offset >= bound) {
    // Nothing readable yet (a consumer at the high watermark): an empty answer.
    info.data.fetch_offset_metadata.message_offset = fetch_offset;
    return info;
  }
  STRATA_ASSIGN_OR_RETURN(info.data, log()->Read(fetch_offset, max_bytes, bound, min_one_batch));
  if (isolation == FetchIsolation::kTxnCommitted && !info.data.records.empty()) {
    // Those among the records read (Kafka bounds them the same way), not all to the LSO.
    STRATA_ASSIGN_OR_RETURN(info.aborted_txns,
                            log()->CollectAbortedTxns(fetch_offset, std::min(bound, info.data.upper_bound_offset)));
  }
  return info;
}

absl::StatusOr<OffsetAndEpoch> Partition::FetchOffsetForTimestamp(int64_t timestamp, FetchIsolation isolation,
                                                                  std::optional<int32_t> current_leader_epoch) const {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(current_leader_epoch, true));
  if (isolation != FetchIsolation::kLogEnd && IsLeaderLocked()) {
    // A new leader's high watermark may still be below the start of its epoch (it moves
    // once its followers fetch in the epoch): answering it would name an offset below
    // records already acknowledged. Kafka answers OFFSET_NOT_AVAILABLE (retriable) then.
    std::optional<storage::EpochEntry> epoch = log()->leader_epoch_cache().Latest();
    if (epoch && epoch->epoch == state_.leader_epoch && epoch->start_offset > log()->high_watermark()) {
      return KafkaError(kafka::ErrorCode::kOffsetNotAvailable,
                        absl::StrCat("the high watermark ", log()->high_watermark(), " of ", tp_.DirName(),
                                     " has not reached the start ", epoch->start_offset, " of leader epoch ",
                                     epoch->epoch, " yet"));
    }
  }
  int64_t bound = isolation == FetchIsolation::kLogEnd        ? log()->log_end_offset()
                  : isolation == FetchIsolation::kTxnCommitted ? log()->last_stable_offset()
                                                               : log()->high_watermark();
  auto epoch_of = [&](int64_t offset) { return log()->leader_epoch_cache().EpochForOffset(offset).value_or(-1); };
  OffsetAndEpoch result;
  switch (timestamp) {
    case kLatestTimestamp:
      result.offset = bound;
      // The epoch of the last record below the bound (Kafka answers the epoch that wrote it).
      result.leader_epoch = bound > log()->log_start_offset() ? epoch_of(bound - 1) : state_.leader_epoch;
      return result;
    case kEarliestTimestamp:
      result.offset = LogStartOffsetLocked();
      result.leader_epoch = result.offset < log()->log_start_offset() ? remote_.log_start_epoch : epoch_of(result.offset);
      return result;
    case kEarliestLocalTimestamp:
      result.offset = log()->log_start_offset();
      result.leader_epoch = epoch_of(result.offset);
      return result;
    case kLatestTieredTimestamp:
      if (remote_.enabled) {
        result.offset = remote_.highest_copied_offset;
        result.leader_epoch = remote_.highest_copied_epoch;
      }
      return result;
    case kEarliestPendingUploadTimestamp:
      if (remote_.enabled) {
        // As Kafka clamps it: never below the log start.
        result.offset = std::max(remote_.highest_copied_offset + 1, LogStartOffsetLocked());
        result.offset = std::min(result.offset, bound);
        result.leader_epoch = epoch_of(result.offset);
      }
      return result;
    case kMaxTimestamp: {
      STRATA_ASSIGN_OR_RETURN(auto max, log()->FetchMaxTimestamp());
      if (max && max->offset < bound) {
        result.offset = max->offset;
        result.timestamp = max->timestamp;
        result.leader_epoch = epoch_of(max->offset);
      }
      return result;
    }
    default:
      break;
  }
  if (timestamp < 0) {
    return KafkaError(kafka::ErrorCode::kInvalidRequest, absl::StrCat("timestamp ", timestamp, " is not a valid target"));
  }
  STRATA_ASSIGN_OR_RETURN(auto found, log()->FetchOffsetByTimestamp(timestamp));
  if (found && found->offset < bound) {
    result.offset = found->offset;
    result.timestamp = found->timestamp;
    result.leader_epoch = epoch_of(found->offset);
  }
  return result;
}

absl::StatusOr<std::pair<int32_t, int64_t>> Partition::LastOffsetForLeaderEpoch(
    std::optional<int32_t> current_leader_epoch, int32_t leader_epoch) const {
  absl::ReaderMutexLock lock(&mu_);
  STRATA_RETURN_IF_ERROR(CheckEpochLocked(current_leader_epoch, true));
  return log()->leader_epoch_cache().EndOffsetFor(leader_epoch, log()->log_end_offset());
}

void Partition::UpdateRemoteTier(const RemoteTierState& remote) {
  absl::MutexLock lock(&mu_);
  remote_ = remote;
}

RemoteTierState Partition::remote_tier() const {
  absl::ReaderMutexLock lock(&mu_);
  return remote_;
}

int64_t Partition::log_start_offset() const {
  absl::ReaderMutexLock lock(&mu_);
  return LogStartOffsetLocked();
}

int64_t Partition::LogStartOffsetLocked() const { return LogStartOffsetLocked(log()->log_start_offset()); }

int64_t Partition::LogStartOffsetLocked(int64_t local) const {
  if (!remote_.enabled || remote_.log_start_offset < 0) return local;
  return std::min(local, remote_.log_start_offset);
}

PartitionState Partition::state() const {
  absl::ReaderMutexLock lock(&mu_);
  return state_;
}

Partition::ReadMark Partition::read_mark() const {
  absl::ReaderMutexLock lock(&mu_);
  ReadMark mark;
  mark.partition = this;
  mark.leader = has_state_ ? state_.leader : -1;
  mark.leader_epoch = state_.leader_epoch;
  mark.partition_epoch = state_.partition_epoch;
  // The truncation count first: a truncation between two of the reads below shows in the
  // next mark's count.
  mark.truncations = log()->truncation_count();
  mark.offline = log()->offline();
  const storage::Log::Offsets offsets = log()->offsets();
  mark.log_start_offset = LogStartOffsetLocked(offsets.log_start_offset);
  mark.log_end_offset = offsets.log_end_offset;
  mark.high_watermark = offsets.high_watermark;
  mark.last_stable_offset = offsets.last_stable_offset;
  return mark;
}

bool Partition::is_leader() const {
  absl::ReaderMutexLock lock(&mu_);
  return has_state_ && IsLeaderLocked();
}

bool Partition::InIsr(int32_t replica) const {
  absl::ReaderMutexLock lock(&mu_);
  return std::find(state_.isr.begin(), state_.isr.end(), replica) != state_.isr.end();
}

int32_t Partition::leader_epoch() const {
  absl::ReaderMutexLock lock(&mu_);
  return state_.leader_epoch;
}

int64_t Partition::became_leader_ms() const {
  absl::ReaderMutexLock lock(&mu_);
  absl::MutexLock hw(&hw_mu_);
  return became_leader_ms_;
}

}  // namespace strata::broker
