#include "controller/metadata_store.h"

#include <rocksdb/db.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "controller/features.h"
#include "raft/snapshot_store.h"
#include "raft/voter_set.h"
#include "storage/errc.h"
#include "storage/file_ops.h"

namespace strata::controller {
namespace {

constexpr char kAppliedKey[] = "applied";

absl::Status FromRocks(const rocksdb::Status& s, absl::string_view what) {
  if (s.ok()) return absl::OkStatus();
  return storage::MakeError(storage::Errc::kStorageError, absl::StrCat(what, ": ", s.ToString()));
}

std::string EncodeApplied(const raft::SnapshotMeta& m) { return absl::StrCat(m.index, " ", m.term); }

}  // namespace

absl::StatusOr<std::unique_ptr<MetadataStore>> MetadataStore::Open(const std::string& dir) {
  std::unique_ptr<MetadataStore> store(new MetadataStore(dir));
  STRATA_RETURN_IF_ERROR(storage::CreateDirRecursively(*storage::FileOps::Default(), storage::DirName(dir)));
  STRATA_RETURN_IF_ERROR(store->OpenDb());
  STRATA_RETURN_IF_ERROR(store->LoadImage());
  return store;
}

MetadataStore::~MetadataStore() { CloseDb(); }

absl::Status MetadataStore::OpenDb() {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.max_open_files = 256;
  options.keep_log_file_num = 2;
  rocksdb::DB* db = nullptr;
  STRATA_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(options, dir_, &db), absl::StrCat("open RocksDB ", dir_)));
  db_.reset(db);
  return absl::OkStatus();
}

void MetadataStore::CloseDb() {
  if (!db_) return;
  (void)db_->Close();
  db_.reset();
}

absl::Status MetadataStore::LoadImage() {
  MetadataImage image;
  raft::SnapshotMeta applied;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string key = it->key().ToString();
    std::string value = it->value().ToString();
    if (key == kAppliedKey) {
      std::vector<std::string> parts = absl::StrSplit(value, ' ');
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &applied.index) || !absl::SimpleAtoi(parts[1], &applied.term)) {
        return absl::DataLossError(absl::StrCat(dir_, ": the applied index '", value, "' does not parse"));
      }
      continue;
    }
    STRATA_RETURN_IF_ERROR(image.Load(key, value));
  }
  STRATA_RETURN_IF_ERROR(FromRocks(it->status(), absl::StrCat("read RocksDB ", dir_)));
  absl::MutexLock lock(&mu_);
  image_ = std::move(image);
  applied_ = applied;
  return absl::OkStatus();
}

absl::Status MetadataStore::Apply(const raft::Entry& entry) {
  if (entry.index <= applied().index) return absl::OkStatus();  // RocksDB holds it already
  pb::MetadataBatch batch;
  // A configuration entry (the quorum's voters, raft/voter_set.h) is Raft's own, like a
  // leader's no-op: the image only records that it was applied. A KRaftVersion one is
  // also the level of the kraft.version feature (features.h), as a FeatureLevel record.
  bool metadata = entry.type == raft::EntryType::kData && !entry.data.empty();
  if (metadata && !batch.ParseFromString(entry.data)) {
    spdlog::error("metadata entry {} is not a MetadataBatch; skipped", entry.index);
    batch.Clear();
    absl::MutexLock lock(&mu_);
    ++apply_errors_;
  }
  if (entry.type == raft::EntryType::kKraftVersion) {
    if (absl::StatusOr<int16_t> level = raft::DecodeKraftVersion(entry.data); level.ok()) {
      pb::FeatureLevel* feature = batch.add_records()->mutable_feature_level();
      feature->set_name(kKraftVersionFeature);
      feature->set_level(*level);
    } else {
      spdlog::error("metadata entry {}: KRaftVersion record skipped: {}", entry.index, level.status().message());
      absl::MutexLock lock(&mu_);
      ++apply_errors_;
    }
  }
  rocksdb::WriteBatch write;
  {
    absl::MutexLock lock(&mu_);
    for (const pb::MetadataRecord& record : batch.records()) {
      std::vector<std::string> keys = image_.TouchedKeys(record);
      if (absl::Status s = image_.Apply(record); !s.ok()) {
        ++apply_errors_;
        spdlog::error("metadata entry {}: record skipped: {} ({})", entry.index, s.message(), record.ShortDebugString());
        continue;
      }
      for (const std::string& key : keys) {
        if (auto value = image_.Encode(key)) {
          write.Put(key, *value);
        } else {
          write.Delete(key);
        }
      }
    }
    applied_ = raft::SnapshotMeta{entry.index, entry.term};
  }
  write.Put(kAppliedKey, EncodeApplied({entry.index, entry.term}));
  // The Raft log holds the entry durably; RocksDB's WAL survives a process crash and
  // whatever a power loss takes is replayed from the log (checkpoints flush).
  STRATA_RETURN_IF_ERROR(FromRocks(db_->Write(rocksdb::WriteOptions(), &write), absl::StrCat("write RocksDB ", dir_)));
  std::function<void(const pb::MetadataBatch&, raft::Index)> listener;
  {
    absl::ReaderMutexLock lock(&mu_);
    listener = listener_;
  }
  if (listener && batch.records_size() > 0) listener(batch, entry.index);
  return absl::OkStatus();
}

absl::Status MetadataStore::SaveSnapshot(storage::FileOps& ops, const std::string& dir) {
  // RocksDB makes the checkpoint directory itself; its files then move into dir (a
  // snapshot is flat).
  std::string staging = dir + ".rocksdb";
  rocksdb::Checkpoint* raw = nullptr;
  STRATA_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(db_.get(), &raw), "checkpoint"));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  STRATA_RETURN_IF_ERROR(
      FromRocks(checkpoint->CreateCheckpoint(staging, /*log_size_for_flush=*/0), absl::StrCat("checkpoint into ", staging)));
  STRATA_ASSIGN_OR_RETURN(auto names, ops.ListDir(staging));
  for (const std::string& name : names) {
    STRATA_RETURN_IF_ERROR(ops.Rename(storage::JoinPath(staging, name), storage::JoinPath(dir, name)));
  }
  return ops.RemoveDir(staging);
}

absl::Status MetadataStore::RestoreSnapshot(storage::FileOps& ops, const std::string& dir,
                                            const raft::SnapshotMeta& meta) {
  if (applied().index >= meta.index) return absl::OkStatus();  // RocksDB is at least that far
  CloseDb();
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(dir_));
  if (exists) STRATA_RETURN_IF_ERROR(storage::RemoveRecursively(ops, dir_));
  STRATA_RETURN_IF_ERROR(ops.CreateDir(dir_));
  STRATA_ASSIGN_OR_RETURN(auto names, ops.ListDir(dir));
  for (const std::string& name : names) {
    if (name == raft::kSnapshotManifestFile) continue;
    std::string from = storage::JoinPath(dir, name);
    std::string to = storage::JoinPath(dir_, name);
    // SST files never change: share them. RocksDB appends to the others (MANIFEST,
    // WAL), which must not alter the snapshot: copy those.
    if (absl::EndsWith(name, ".sst") && ::link(from.c_str(), to.c_str()) == 0) continue;
    STRATA_ASSIGN_OR_RETURN(std::string data, storage::ReadWholeFile(ops, from));
    STRATA_ASSIGN_OR_RETURN(auto file, ops.Open(to, storage::OpenMode::kCreateNew));
    STRATA_RETURN_IF_ERROR(file->Write(0, data));
    STRATA_RETURN_IF_ERROR(file->Sync());
  }
  STRATA_RETURN_IF_ERROR(ops.SyncDir(dir_));
  STRATA_RETURN_IF_ERROR(OpenDb());
  STRATA_RETURN_IF_ERROR(LoadImage());
  if (applied() != meta) {
    return storage::MakeError(storage::Errc::kInconsistentLog,
                              absl::StrCat("snapshot ", dir, " holds the image at entry ", applied().index,
                                           ", not at ", meta.index));
  }
  spdlog::info("metadata image restored from snapshot {} (term {})", meta.index, meta.term);
  std::function<void(const pb::MetadataBatch&, raft::Index)> listener;
  {
    absl::ReaderMutexLock lock(&mu_);
    listener = listener_;
  }
  // The whole image changed: listeners see an empty batch and re-read it.
  if (listener) listener(pb::MetadataBatch(), meta.index);
  return absl::OkStatus();
}

raft::SnapshotMeta MetadataStore::applied() const {
  absl::ReaderMutexLock lock(&mu_);
  return applied_;
}

int64_t MetadataStore::apply_errors() const {
  absl::ReaderMutexLock lock(&mu_);
  return apply_errors_;
}

void MetadataStore::set_listener(std::function<void(const pb::MetadataBatch&, raft::Index)> listener) {
  absl::MutexLock lock(&mu_);
  listener_ = std::move(listener);
}

}  // namespace strata::controller
