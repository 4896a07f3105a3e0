#include "raft/raft_storage.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "raft/voter_set.h"
#include "storage/errc.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"
#include "storage/record_batch.h"

namespace strata::raft {

using storage::Errc;
using storage::MakeError;

namespace {

// A control record's type: a configuration entry (raft/voter_set.h).
absl::StatusOr<EntryType> EntryTypeOf(const storage::Record& record) {
  if (!record.key) return absl::InvalidArgumentError("control record without a key");
  STRATA_ASSIGN_OR_RETURN(int16_t control_type, DecodeControlKey(*record.key));
  return EntryTypeOfControl(control_type);
}

}  // namespace

std::string FormatQuorumState(const HardState& hs) {
  nlohmann::json j = {{"data_version", 0}, {"term", hs.term}, {"votedId", hs.vote}, {"commitIndex", hs.commit}};
  return j.dump() + "\n";
}

absl::StatusOr<HardState> ParseQuorumState(const std::string& text, const std::string& file) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](absl::string_view what) {
    return MakeError(Errc::kInvalidCheckpoint, absl::StrCat(file, ": ", what));
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("data_version") || j["data_version"] != 0) return bad("unsupported data_version");
  for (const char* key : {"term", "votedId", "commitIndex"}) {
    if (!j.contains(key) || !j[key].is_number_integer()) return bad(absl::StrCat("'", key, "' is missing or not an integer"));
  }
  HardState hs{j["term"].get<Term>(), j["votedId"].get<NodeId>(), j["commitIndex"].get<Index>()};
  if (hs.term < 0 || hs.vote < 0 || hs.commit < 0) return bad("negative values");
  return hs;
}

absl::StatusOr<std::unique_ptr<RaftStorage>> RaftStorage::Open(storage::FileOps& ops, const std::string& dir,
                                                              const SnapshotMeta& snapshot, int64_t segment_bytes) {
  std::unique_ptr<RaftStorage> s(new RaftStorage(ops, dir));
  STRATA_RETURN_IF_ERROR(storage::CreateDirRecursively(ops, dir));
  std::string qs = storage::JoinPath(dir, kQuorumStateFile);
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(qs));
  if (exists) {
    STRATA_ASSIGN_OR_RETURN(std::string text, storage::ReadWholeFile(ops, qs));
    STRATA_ASSIGN_OR_RETURN(s->hard_state_, ParseQuorumState(text, qs));
  } else {
    STRATA_RETURN_IF_ERROR(s->WriteHardState(s->hard_state_));  // present from the start on
  }
  storage::LogOptions options;
  options.ops = &ops;
  options.dir = storage::JoinPath(dir, kMetadataLogDirName);
  // Every Save flushes, so the whole log is below the recovery point; recovery
  // still validates the tail in case the last Save was cut short.
  options.recovery_point = 0;
  options.config.segment_bytes = segment_bytes;
  STRATA_ASSIGN_OR_RETURN(s->log_, storage::Log::Open(options));
  if (snapshot.index > 0) {
    // The log continues the snapshot when it starts right after it (compacted there) or
    // holds the snapshot's last entry with the snapshot's term.
    bool continues = s->log_->log_start_offset() == snapshot.index && s->last_index() >= snapshot.index;
    if (!continues && s->log_->log_start_offset() < snapshot.index && s->last_index() >= snapshot.index) {
      STRATA_ASSIGN_OR_RETURN(auto at, s->ReadFrom(snapshot.index, snapshot.index, 1));
      continues = !at.empty() && at[0].term == snapshot.term;
    }
    if (!continues) STRATA_RETURN_IF_ERROR(s->ResetTo(snapshot));
  }
  int64_t last = s->last_index();
  if (s->hard_state_.commit > last) {
    return MakeError(Errc::kInconsistentLog, absl::StrCat(qs, " says index ", s->hard_state_.commit,
                                                         " is committed but the metadata log ends at ", last));
  }
  return s;
}

int64_t RaftStorage::last_index() const { return log_->log_end_offset(); }

int64_t RaftStorage::first_index() const { return log_->log_start_offset() + 1; }

absl::StatusOr<std::vector<Entry>> RaftStorage::ReadFrom(Index from, Index up_to, size_t max_bytes) const {
  std::vector<Entry> entries;
  int64_t offset = from - 1;
  int64_t end = std::min<int64_t>(up_to, log_->log_end_offset());
  size_t bytes = 0;
  std::string buffer;
  while (offset < end && (entries.empty() || bytes < max_bytes)) {
    STRATA_ASSIGN_OR_RETURN(auto info, log_->Read(offset, std::min<size_t>(max_bytes, 1 << 20), end, /*min_one_batch=*/true));
    STRATA_RETURN_IF_ERROR(info.records.ReadInto(buffer));
    storage::BatchSplitter splitter(buffer);
    int64_t before = offset;
    while (offset < end) {
      auto batch = splitter.Next();
      if (!batch.ok() || !batch->has_value()) break;  // a partial batch at the end: read again
      auto header = storage::RecordBatchHeader::Parse((*batch)->data());
      STRATA_ASSIGN_OR_RETURN(auto records, storage::DecodeRecords(**batch));
      if (records.size() != 1 || header.base_offset != offset) {
        return MakeError(Errc::kInconsistentLog, absl::StrCat("metadata log batch at offset ", header.base_offset,
                                                             " is not one Raft entry at offset ", offset));
      }
      Entry entry{header.partition_leader_epoch, offset + 1, records[0].value.value_or("")};
      if (header.is_control()) {
        absl::StatusOr<EntryType> type = EntryTypeOf(records[0]);
        if (!type.ok()) {
          return MakeError(Errc::kInconsistentLog, absl::StrCat("metadata log batch at offset ", header.base_offset,
                                                               ": ", type.status().message()));
        }
        entry.type = *type;
        if (absl::Status valid = ValidateConfigurationEntry(entry); !valid.ok()) {
          return MakeError(Errc::kInconsistentLog, absl::StrCat("metadata log entry ", entry.index, " (",
                                                               EntryTypeName(entry.type), "): ", valid.message()));
        }
      }
      entries.push_back(std::move(entry));
      bytes += entries.back().data.size() + 16;
      ++offset;
    }
    if (offset == before) return MakeError(Errc::kInconsistentLog, absl::StrCat("no progress reading at ", offset));
  }
  return entries;
}

absl::StatusOr<std::vector<Entry>> RaftStorage::ReadEntries(Index after) const {
  Index from = std::max<Index>(after + 1, first_index());
  if (from > after + 1) {
    return MakeError(Errc::kInconsistentLog, absl::StrCat("the metadata log starts at entry ", from,
                                                         " but entries from ", after + 1, " are needed"));
  }
  return ReadFrom(from, last_index(), SIZE_MAX);
}

absl::Status RaftStorage::CompactTo(Index index) {
  ABSL_CHECK_LE(index, last_index());
  log_->UpdateHighWatermark(std::max(index, log_->high_watermark()));
  return log_->MaybeIncrementLogStartOffset(index);
}

absl::Status RaftStorage::ResetTo(const SnapshotMeta& snapshot) {
  STRATA_RETURN_IF_ERROR(log_->TruncateFullyAndStartAt(snapshot.index));
  STRATA_RETURN_IF_ERROR(log_->FlushAll());
  if (hard_state_.commit < snapshot.index) hard_state_.commit = snapshot.index;
  return absl::OkStatus();
}

absl::Status RaftStorage::CheckFilesPresent() const {
  std::string log_dir = storage::JoinPath(dir_, kMetadataLogDirName);
  std::string active = storage::SegmentFileName(log_dir, log_->segment_base_offsets().back(), storage::kLogSuffix);
  for (const std::string& path : {storage::JoinPath(dir_, kQuorumStateFile), log_dir, active}) {
    STRATA_ASSIGN_OR_RETURN(bool exists, ops_.Exists(path));
    if (!exists) return absl::FailedPreconditionError(absl::StrCat(path, " was removed"));
  }
  return absl::OkStatus();
}

absl::Status RaftStorage::WriteHardState(const HardState& hs) {
  STRATA_RETURN_IF_ERROR(
      storage::WriteFileAtomically(ops_, storage::JoinPath(dir_, kQuorumStateFile), FormatQuorumState(hs)));
  hard_state_ = hs;
  return absl::OkStatus();
}

absl::Status RaftStorage::Save(const Ready& ready) {
  if (!ready.entries.empty()) {
    Index first = ready.entries.front().index;
    ABSL_CHECK_GE(first, 1);
    ABSL_CHECK_LE(first, last_index() + 1) << "entries must continue or overwrite the log";
    if (first <= last_index()) {
      ABSL_CHECK_GT(first, hard_state_.commit) << "a committed entry is never overwritten";
      STRATA_RETURN_IF_ERROR(log_->TruncateTo(first - 1).status());
    }
    std::string batches;
    for (const Entry& e : ready.entries) {
      storage::RecordBatchBuilder builder;
      builder.set_base_offset(e.index - 1);
      builder.set_partition_leader_epoch(static_cast<int32_t>(e.term));
      if (e.type == EntryType::kData) {
        builder.Add(std::nullopt, e.data, 0);
      } else {
        builder.set_control(true);  // Kafka's KRaft control record: the key names its type
        builder.Add(EncodeControlKey(ControlTypeOf(e.type)), e.data, 0);
      }
      batches += builder.Build();
    }
    STRATA_RETURN_IF_ERROR(log_->AppendAsFollower(batches).status());
    STRATA_RETURN_IF_ERROR(log_->FlushAll());
  }
  // Term and vote must be durable before a message that depends on them leaves. The
  // commit index rides along; a stale (lower) one after a crash is safe.
  if (ready.hard_state_changed &&
      (ready.hard_state.term != hard_state_.term || ready.hard_state.vote != hard_state_.vote)) {
    STRATA_RETURN_IF_ERROR(WriteHardState(ready.hard_state));
  } else if (ready.hard_state_changed) {
    hard_state_.commit = ready.hard_state.commit;  // written with the next term or vote change
  }
  return absl::OkStatus();
}

absl::Status RaftStorage::Close() {
  STRATA_RETURN_IF_ERROR(WriteHardState(hard_state_));
  return log_->Close();
}

}  // namespace strata::raft
