#include "storage/producer_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/bytes.h"
#include "storage/crc32c.h"
#include "storage/errc.h"
#include "storage/file_names.h"

namespace strata::storage {
namespace {

constexpr uint16_t kSnapshotVersion = 2;
constexpr size_t kEntryBytesV1 = 8 + 2 + 4 + 4 + 8 + 4 + 8;
constexpr size_t kEntryBytesV2 = kEntryBytesV1 + 4 + 8;

bool InSequence(int32_t last, int32_t next) {
  return next == (last == INT32_MAX ? 0 : last + 1);
}

}  // namespace

uint64_t ProducerStateManager::StartVerification(int64_t producer_id, int16_t producer_epoch, bool epoch_bump) {
  auto it = producers_.find(producer_id);
  auto v = verifications_.find(producer_id);
  if (it != producers_.end() && it->second.current_txn_first_offset >= 0 &&
      it->second.producer_epoch == producer_epoch && (v == verifications_.end() || v->second.in_flight == 0)) {
    return 0;
  }
  Verification& entry = verifications_[producer_id];
  if (entry.guard == 0) entry.guard = ++next_guard_;
  ++entry.in_flight;
  entry.epoch = std::max(entry.epoch, producer_epoch);
  entry.epoch_bump = epoch_bump;
  const uint64_t out = entry.guard;
  if (verifications_.size() > kMaxVerifications) {
    auto oldest = std::min_element(verifications_.begin(), verifications_.end(),
                                   [](const auto& a, const auto& b) { return a.second.guard < b.second.guard; });
    verifications_.erase(oldest);
  }
  return out;
}

void ProducerStateManager::EndVerification(int64_t producer_id) {
  auto v = verifications_.find(producer_id);
  if (v == verifications_.end()) return;  // dropped (a reload, or the bound)
  if (--v->second.in_flight <= 0) verifications_.erase(v);
}

absl::StatusOr<std::optional<ProducerBatch>> ProducerStateManager::CheckProducedBatch(
    const RecordBatchHeader& header, const TxnVerification& verification) const {
  if (!header.has_producer_id()) return std::optional<ProducerBatch>();
  auto it = producers_.find(header.producer_id);
  if (verification.required && header.is_transactional() && !header.is_control() &&
      (it == producers_.end() || it->second.current_txn_first_offset < 0)) {
    auto guard = verifications_.find(header.producer_id);
    if (verification.guard == 0 || guard == verifications_.end() || guard->second.guard != verification.guard) {
      return MakeError(Errc::kInvalidTxnState,
                       absl::StrCat("producer ", header.producer_id, " epoch ", header.producer_epoch,
                                    ": the partition is not in its ongoing transaction (a transaction marker came "
                                    "after the coordinator was asked, or it never was)"));
    }
  }
  if (it == producers_.end()) {
    // Unknown producer (new, or its state expired with the log): any sequence starts it.
    return std::optional<ProducerBatch>();
  }
  const ProducerStateEntry& entry = it->second;
  if (entry.current_txn_first_offset >= 0 &&
      (!header.is_transactional() || header.producer_epoch != entry.producer_epoch)) {
    return MakeError(Errc::kInvalidTxnState,
                     absl::StrCat("producer ", header.producer_id, " has a transaction open since offset ",
                                  entry.current_txn_first_offset, " in epoch ", entry.producer_epoch, "; a ",
                                  header.is_transactional() ? "transactional" : "non-transactional",
                                  " batch in epoch ", header.producer_epoch, " cannot join it"));
  }
  if (header.producer_epoch < entry.producer_epoch) {
    return MakeError(Errc::kInvalidProducerEpoch,
                     absl::StrCat("producer ", header.producer_id, " epoch ", header.producer_epoch,
                                  " is older than the current epoch ", entry.producer_epoch));
  }
  if (header.base_sequence == kNoSequence) {
    // A coordinator's write for the producer (the group coordinator's transactional
    // offset commits): no sequence to check.
    return std::optional<ProducerBatch>();
  }
  if (header.producer_epoch > entry.producer_epoch) {
    if (header.base_sequence != 0) {
      return SequenceGapError({.expected_sequence = 0, .last_offset = -1},
                              absl::StrCat("producer ", header.producer_id, " new epoch ", header.producer_epoch,
                                           " must start at sequence 0, got ", header.base_sequence));
    }
    return std::optional<ProducerBatch>();
  }
  for (const ProducerBatch& b : entry.batches) {
    if (b.first_sequence == header.base_sequence && b.last_sequence == header.last_sequence()) {
      return std::optional<ProducerBatch>(b);
    }
  }
  if (entry.batches.empty()) {
    // The epoch is known but holds no batch yet: a marker moved the producer to it (a
    // transaction protocol version 2 commit or abort), or only a coordinator wrote for
    // it. Its first batch starts at sequence 0, as Kafka's inSequence(NO_SEQUENCE, seq)
    // says: a later batch of the epoch that overtook the first (both waiting for the
    // coordinator) is refused, and the producer retries it behind the first.
    if (header.base_sequence != 0) {
      return SequenceGapError({.expected_sequence = 0, .last_offset = -1},
                              absl::StrCat("producer ", header.producer_id, " epoch ", header.producer_epoch,
                                           " has no batch yet; its first must start at sequence 0, got ",
                                           header.base_sequence));
    }
    return std::optional<ProducerBatch>();
  }
  int32_t last = entry.batches.back().last_sequence;
  if (!InSequence(last, header.base_sequence)) {
    return SequenceGapError({.expected_sequence = last == INT32_MAX ? 0 : last + 1,
                             .last_offset = entry.batches.back().last_offset},
                            absl::StrCat("producer ", header.producer_id, " epoch ", header.producer_epoch,
                                         " sent sequence ", header.base_sequence, " after ", last));
  }
  return std::optional<ProducerBatch>();
}

absl::Status ProducerStateManager::CheckMarker(const RecordBatchHeader& header, const EndTxnMarker& marker) const {
  auto it = producers_.find(header.producer_id);
  if (it == producers_.end()) return absl::OkStatus();
  const ProducerStateEntry& entry = it->second;
  if (marker.coordinator_epoch < entry.coordinator_epoch) {
    return MakeError(Errc::kCoordinatorFenced,
                     absl::StrCat("marker for producer ", header.producer_id, " from coordinator epoch ",
                                  marker.coordinator_epoch, ", older than ", entry.coordinator_epoch));
  }
  if (header.producer_epoch < entry.producer_epoch) {
    return MakeError(Errc::kInvalidProducerEpoch,
                     absl::StrCat("marker for producer ", header.producer_id, " epoch ", header.producer_epoch,
                                  " is older than the current epoch ", entry.producer_epoch));
  }
  return absl::OkStatus();
}

std::optional<CompletedTxn> ProducerStateManager::Update(const RecordBatchHeader& header,
                                                         const EndTxnMarker* marker) {
  ABSL_CHECK_GE(header.next_offset(), map_end_offset_);
  map_end_offset_ = header.next_offset();
  if (!header.has_producer_id()) return std::nullopt;
  ProducerStateEntry& entry = producers_[header.producer_id];
  std::optional<CompletedTxn> completed;
  if (header.is_control()) {
    if (marker != nullptr && marker->type != ControlRecordType::kUnknown) {
      if (entry.current_txn_first_offset >= 0) {
        completed = CompletedTxn{header.producer_id, entry.current_txn_first_offset, header.base_offset,
                                 marker->type == ControlRecordType::kAbort};
        ongoing_txns_.erase(entry.current_txn_first_offset);
        unreplicated_txns_[entry.current_txn_first_offset] = header.base_offset;
        entry.current_txn_first_offset = -1;
      }
      entry.coordinator_epoch = marker->coordinator_epoch;
      // The marker ends the guarded batches' transaction (see TxnVerification).
      if (auto v = verifications_.find(header.producer_id);
          v != verifications_.end() && (!v->second.epoch_bump || header.producer_epoch > v->second.epoch)) {
        v->second.guard = 0;
      }
    }
  } else if (header.is_transactional() && entry.current_txn_first_offset < 0) {
    entry.current_txn_first_offset = header.base_offset;
    ongoing_txns_[header.base_offset] = header.producer_id;
  }
  if (entry.producer_id == kNoProducerId || header.producer_epoch != entry.producer_epoch) {
    entry.batches.clear();
  }
  entry.producer_id = header.producer_id;
  entry.producer_epoch = header.producer_epoch;
  entry.last_timestamp = header.max_timestamp;
  if (header.base_sequence != kNoSequence) {
    entry.batches.push_back(ProducerBatch{header.base_sequence, header.last_sequence(), header.last_offset(),
                                          header.last_offset_delta, header.max_timestamp});
    while (entry.batches.size() > kMaxCachedBatches) entry.batches.pop_front();
  }
  return completed;
}

std::optional<int64_t> ProducerStateManager::FirstUnstableOffset() const {
  std::optional<int64_t> first;
  if (!ongoing_txns_.empty()) first = ongoing_txns_.begin()->first;
  if (!unreplicated_txns_.empty() && (!first || unreplicated_txns_.begin()->first < *first)) {
    first = unreplicated_txns_.begin()->first;
  }
  return first;
}

void ProducerStateManager::OnHighWatermarkUpdated(int64_t high_watermark) {
  for (auto it = unreplicated_txns_.begin(); it != unreplicated_txns_.end();) {
    it = it->second < high_watermark ? unreplicated_txns_.erase(it) : std::next(it);
  }
}

int64_t ProducerStateManager::LastStableOffsetAfter(const CompletedTxn& txn) const {
  for (const auto& [first_offset, producer_id] : ongoing_txns_) {
    if (producer_id != txn.producer_id) return first_offset;
  }
  return txn.last_offset + 1;
}

void ProducerStateManager::RebuildOngoingTxns() {
  ongoing_txns_.clear();
  unreplicated_txns_.clear();
  for (const auto& [id, entry] : producers_) {
    if (entry.current_txn_first_offset >= 0) ongoing_txns_[entry.current_txn_first_offset] = id;
  }
}

std::optional<ProducerStateEntry> ProducerStateManager::Find(int64_t producer_id) const {
  auto it = producers_.find(producer_id);
  if (it == producers_.end()) return std::nullopt;
  return it->second;
}

std::string ProducerStateManager::EncodeSnapshot(const std::map<int64_t, ProducerStateEntry>& producers) {
  std::string body;
  AppendBigEndian(&body, static_cast<int32_t>(producers.size()));
  for (const auto& [id, entry] : producers) {
    ProducerBatch last = entry.batches.empty() ? ProducerBatch{} : entry.batches.back();
    AppendBigEndian(&body, id);
    AppendBigEndian(&body, entry.producer_epoch);
    AppendBigEndian(&body, last.first_sequence);
    AppendBigEndian(&body, last.last_sequence);
    AppendBigEndian(&body, last.last_offset);
    AppendBigEndian(&body, last.offset_delta);
    AppendBigEndian(&body, entry.last_timestamp);
    AppendBigEndian(&body, entry.coordinator_epoch);
    AppendBigEndian(&body, entry.current_txn_first_offset);
  }
  std::string out;
  AppendBigEndian(&out, kSnapshotVersion);
  AppendBigEndian(&out, Crc32c(body.data(), body.size()));
  out.append(body);
  return out;
}

absl::StatusOr<std::map<int64_t, ProducerStateEntry>> ProducerStateManager::DecodeSnapshot(absl::string_view data,
                                                                                         absl::string_view where) {
  auto bad = [&](absl::string_view what) {
    return MakeError(Errc::kCorruptMessage, absl::StrCat("producer snapshot ", where, ": ", what));
  };
  if (data.size() < 10) return bad(absl::StrCat("only ", data.size(), " bytes"));
  uint16_t version = LoadBigEndian<uint16_t>(data.data());
  if (version != 1 && version != kSnapshotVersion) return bad(absl::StrCat("unsupported version ", version));
  const size_t entry_bytes = version == 1 ? kEntryBytesV1 : kEntryBytesV2;
  uint32_t stored = LoadBigEndian<uint32_t>(data.data() + 2);
  absl::string_view body = data.substr(6);
  uint32_t computed = Crc32c(body.data(), body.size());
  if (stored != computed) {
    return bad(absl::StrCat("CRC mismatch, stored 0x", absl::Hex(stored), " computed 0x", absl::Hex(computed)));
  }
  int32_t count = LoadBigEndian<int32_t>(body.data());
  if (count < 0 || body.size() != 4 + static_cast<size_t>(count) * entry_bytes) {
    return bad(absl::StrCat("count ", count, " does not match ", body.size(), " bytes"));
  }
  std::map<int64_t, ProducerStateEntry> producers;
  const char* p = body.data() + 4;
  for (int32_t i = 0; i < count; ++i, p += entry_bytes) {
    ProducerStateEntry entry;
    entry.producer_id = LoadBigEndian<int64_t>(p);
    entry.producer_epoch = LoadBigEndian<int16_t>(p + 8);
    ProducerBatch b;
    b.first_sequence = LoadBigEndian<int32_t>(p + 10);
    b.last_sequence = LoadBigEndian<int32_t>(p + 14);
    b.last_offset = LoadBigEndian<int64_t>(p + 18);
    b.offset_delta = LoadBigEndian<int32_t>(p + 26);
    entry.last_timestamp = LoadBigEndian<int64_t>(p + 30);
    b.timestamp = entry.last_timestamp;
    if (version >= 2) {
      entry.coordinator_epoch = LoadBigEndian<int32_t>(p + 38);
      entry.current_txn_first_offset = LoadBigEndian<int64_t>(p + 42);
    }
    if (b.first_sequence != kNoSequence) entry.batches.push_back(b);
    producers[entry.producer_id] = std::move(entry);
  }
  return producers;
}

absl::Status ProducerStateManager::TakeSnapshot(SnapshotSync sync) {
  std::string path = SegmentFileName(dir_, map_end_offset_, kSnapshotSuffix);
  if (sync == SnapshotSync::kNow) return WriteFileAtomically(ops_, path, EncodeSnapshot(producers_));
  std::string tmp = path + ".tmp";
  {
    STRATA_ASSIGN_OR_RETURN(auto file, ops_.Open(tmp, OpenMode::kCreateTruncate));
    STRATA_RETURN_IF_ERROR(file->Write(0, EncodeSnapshot(producers_)));
  }
  return ops_.Rename(tmp, path);
}

absl::Status SyncProducerSnapshot(FileOps& ops, const std::string& dir, int64_t offset) {
  std::string path = SegmentFileName(dir, offset, kSnapshotSuffix);
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  if (!exists) return absl::OkStatus();  // replaced or deleted since
  STRATA_ASSIGN_OR_RETURN(auto file, ops.Open(path, OpenMode::kRead));
  return file->Sync();
}

absl::StatusOr<std::vector<int64_t>> ProducerStateManager::ListSnapshots() const {
  STRATA_ASSIGN_OR_RETURN(auto names, ops_.ListDir(dir_));
  std::vector<int64_t> offsets;
  for (const auto& name : names) {
    auto parsed = ParseSegmentFileName(name);
    if (parsed && parsed->kind == kSnapshotSuffix && parsed->state.empty()) offsets.push_back(parsed->offset);
  }
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

absl::StatusOr<std::optional<int64_t>> ProducerStateManager::LoadNewestSnapshotAtOrBelow(int64_t max_offset,
                                                                          int64_t log_start_offset) {
  STRATA_ASSIGN_OR_RETURN(auto offsets, ListSnapshots());
  producers_.clear();
  verifications_.clear();
  ongoing_txns_.clear();
  unreplicated_txns_.clear();
  map_end_offset_ = log_start_offset;
  for (auto it = offsets.rbegin(); it != offsets.rend(); ++it) {
    std::string path = SegmentFileName(dir_, *it, kSnapshotSuffix);
    if (*it > max_offset || *it < log_start_offset) {
      STRATA_RETURN_IF_ERROR(ops_.Remove(path));
      continue;
    }
    STRATA_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(ops_, path));
    auto decoded = DecodeSnapshot(data, path);
    if (!decoded.ok()) {
      // A damaged snapshot is only a cache of the log: drop it and use an older one.
      STRATA_RETURN_IF_ERROR(ops_.Remove(path));
      continue;
    }
    producers_ = std::move(*decoded);
    map_end_offset_ = *it;
    RebuildOngoingTxns();
    return std::optional<int64_t>(*it);
  }
  return std::optional<int64_t>();
}

absl::Status ProducerStateManager::Restore(int64_t offset, std::map<int64_t, ProducerStateEntry> producers) {
  ABSL_CHECK_EQ(map_end_offset_, offset);
  ReplaceProducers(std::move(producers));
  return TakeSnapshot(SnapshotSync::kNow);
}

void ProducerStateManager::ReplaceProducers(std::map<int64_t, ProducerStateEntry> producers) {
  producers_ = std::move(producers);
  RebuildOngoingTxns();
}

absl::Status ProducerStateManager::DeleteSnapshotsBelow(int64_t offset) {
  STRATA_ASSIGN_OR_RETURN(auto offsets, ListSnapshots());
  for (int64_t o : offsets) {
    if (o < offset) STRATA_RETURN_IF_ERROR(ops_.Remove(SegmentFileName(dir_, o, kSnapshotSuffix)));
  }
  return absl::OkStatus();
}

absl::Status ProducerStateManager::TruncateFullyAndStartAt(int64_t offset) {
  STRATA_ASSIGN_OR_RETURN(auto offsets, ListSnapshots());
  for (int64_t o : offsets) STRATA_RETURN_IF_ERROR(ops_.Remove(SegmentFileName(dir_, o, kSnapshotSuffix)));
  producers_.clear();
  verifications_.clear();
  ongoing_txns_.clear();
  unreplicated_txns_.clear();
  map_end_offset_ = offset;
  return absl::OkStatus();
}

}  // namespace strata::storage
