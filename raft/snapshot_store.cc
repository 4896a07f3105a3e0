#include "raft/snapshot_store.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "raft/voter_set.h"
#include "storage/crc32c.h"
#include "storage/errc.h"

namespace strata::raft {

using storage::Errc;
using storage::JoinPath;
using storage::MakeError;

namespace {

constexpr char kCheckpointSuffix[] = ".checkpoint";
constexpr char kPartialSuffix[] = ".partial";

// "<index>-<term>.checkpoint" -> meta.
std::optional<SnapshotMeta> ParseDirName(absl::string_view name) {
  if (!absl::EndsWith(name, kCheckpointSuffix)) return std::nullopt;
  name.remove_suffix(sizeof(kCheckpointSuffix) - 1);
  if (name.size() != 31 || name[20] != '-') return std::nullopt;
  SnapshotMeta meta;
  for (char c : name.substr(0, 20)) {
    if (c < '0' || c > '9') return std::nullopt;
    meta.index = meta.index * 10 + (c - '0');
  }
  for (char c : name.substr(21)) {
    if (c < '0' || c > '9') return std::nullopt;
    meta.term = meta.term * 10 + (c - '0');
  }
  return meta;
}

bool PlainFileName(absl::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == absl::string_view::npos &&
         name != kSnapshotManifestFile;
}

}  // namespace

std::string SnapshotDirName(const SnapshotMeta& meta) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%020" PRId64 "-%010" PRId64 "%s", meta.index, meta.term, kCheckpointSuffix);
  return buf;
}

int64_t SnapshotManifest::total_bytes() const {
  int64_t total = 0;
  for (const SnapshotFile& f : files) total += f.bytes;
  return total;
}

std::string SnapshotManifest::ToJson() const {
  nlohmann::json files_json = nlohmann::json::array();
  for (const SnapshotFile& f : files) files_json.push_back({{"name", f.name}, {"bytes", f.bytes}, {"crc32c", f.crc32c}});
  nlohmann::json j = {{"version", 0}, {"index", meta.index}, {"term", meta.term}, {"files", files_json}};
  if (!meta.voters.empty()) {
    // A dynamic quorum's snapshot holds its voters (version 1; a static one stays at 0).
    j["version"] = 1;
    j["voters"] = absl::Base64Escape(meta.voters);
  }
  return j.dump() + "\n";
}

absl::StatusOr<SnapshotManifest> SnapshotManifest::Parse(const std::string& json, const std::string& source) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](absl::string_view what) {
    return MakeError(Errc::kInvalidCheckpoint, absl::StrCat("snapshot manifest ", source, ": ", what));
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("version") || (j["version"] != 0 && j["version"] != 1)) return bad("unsupported version");
  if (!j.contains("index") || !j["index"].is_number_integer() || !j.contains("term") ||
      !j["term"].is_number_integer() || !j.contains("files") || !j["files"].is_array()) {
    return bad("'index', 'term' or 'files' missing");
  }
  SnapshotManifest m;
  m.meta = {j["index"].get<Index>(), j["term"].get<Term>()};
  if (m.meta.index < 1 || m.meta.term < 1) return bad("index and term must be positive");
  if (j["version"] == 1) {
    if (!j.contains("voters") || !j["voters"].is_string() ||
        !absl::Base64Unescape(j["voters"].get<std::string>(), &m.meta.voters)) {
      return bad("'voters' missing or not base64");
    }
    if (absl::StatusOr<VoterSet> voters = VoterSet::Decode(m.meta.voters); !voters.ok()) {
      return bad(absl::StrCat("'voters': ", voters.status().message()));
    }
  }
  for (const auto& f : j["files"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("bytes") ||
        !f["bytes"].is_number_integer() || !f.contains("crc32c") || !f["crc32c"].is_number_unsigned()) {
      return bad("a file entry lacks 'name', 'bytes' or 'crc32c'");
    }
    SnapshotFile file{f["name"].get<std::string>(), f["bytes"].get<int64_t>(), f["crc32c"].get<uint32_t>()};
    if (!PlainFileName(file.name) || file.bytes < 0) return bad(absl::StrCat("bad file entry '", file.name, "'"));
    m.files.push_back(std::move(file));
  }
  return m;
}

absl::StatusOr<std::unique_ptr<SnapshotStore>> SnapshotStore::Open(storage::FileOps& ops, const std::string& dir) {
  std::unique_ptr<SnapshotStore> store(new SnapshotStore(ops, dir));
  STRATA_RETURN_IF_ERROR(storage::CreateDirRecursively(ops, dir));
  STRATA_ASSIGN_OR_RETURN(auto names, ops.ListDir(dir));
  absl::MutexLock lock(&store->mu_);  // not shared yet; keeps the analysis simple
  for (const std::string& name : names) {
    std::string path = JoinPath(dir, name);
    if (absl::EndsWith(name, kPartialSuffix)) {
      STRATA_RETURN_IF_ERROR(storage::RemoveRecursively(ops, path));  // cut short by a crash
      continue;
    }
    auto meta = ParseDirName(name);
    if (!meta) continue;
    STRATA_ASSIGN_OR_RETURN(bool sealed, ops.Exists(JoinPath(path, kSnapshotManifestFile)));
    if (!sealed) {
      return MakeError(Errc::kInconsistentLog, absl::StrCat("snapshot ", path, " has no ", kSnapshotManifestFile));
    }
    STRATA_ASSIGN_OR_RETURN(SnapshotManifest manifest, store->ReadManifest(*meta));  // its voters
    store->sealed_.push_back(manifest.meta);
  }
  std::sort(store->sealed_.begin(), store->sealed_.end(),
            [](const SnapshotMeta& a, const SnapshotMeta& b) { return a.index < b.index; });
  return store;
}

std::optional<SnapshotMeta> SnapshotStore::Latest() const {
  absl::MutexLock lock(&mu_);
  if (sealed_.empty()) return std::nullopt;
  return sealed_.back();
}

bool SnapshotStore::Has(const SnapshotMeta& meta) const {
  absl::MutexLock lock(&mu_);
  return std::find(sealed_.begin(), sealed_.end(), meta) != sealed_.end();
}

std::string SnapshotStore::PathOf(const SnapshotMeta& meta) const { return JoinPath(dir_, SnapshotDirName(meta)); }

absl::StatusOr<SnapshotManifest> SnapshotStore::ReadManifest(const SnapshotMeta& meta) const {
  std::string path = JoinPath(PathOf(meta), kSnapshotManifestFile);
  STRATA_ASSIGN_OR_RETURN(std::string text, storage::ReadWholeFile(ops_, path));
  STRATA_ASSIGN_OR_RETURN(SnapshotManifest m, SnapshotManifest::Parse(text, path));
  if (m.meta != meta) return MakeError(Errc::kInconsistentLog, absl::StrCat(path, " names another snapshot"));
  return m;
}

absl::StatusOr<PartialSnapshot> SnapshotStore::BeginPartial(const SnapshotMeta& meta) {
  ABSL_CHECK_GE(meta.index, 1);
  int64_t n;
  {
    absl::MutexLock lock(&mu_);
    n = next_partial_++;
  }
  PartialSnapshot partial{meta, absl::StrCat(PathOf(meta), ".", n, kPartialSuffix)};
  STRATA_RETURN_IF_ERROR(ops_.CreateDir(partial.path));
  return partial;
}

absl::Status SnapshotStore::WritePartialFile(const PartialSnapshot& partial, const std::string& name, int64_t offset,
                                             absl::string_view data) {
  if (!PlainFileName(name)) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat("snapshot file name '", name, "' is not a plain name"));
  }
  STRATA_ASSIGN_OR_RETURN(auto file, ops_.Open(JoinPath(partial.path, name), storage::OpenMode::kCreate));
  STRATA_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (static_cast<int64_t>(size) != offset) {
    return MakeError(Errc::kInvalidArgument,
                     absl::StrCat("snapshot file ", name, " chunk at ", offset, " but ", size, " bytes received"));
  }
  return file->Write(static_cast<uint64_t>(offset), data);
}

absl::StatusOr<SnapshotManifest> SnapshotStore::Describe(const SnapshotMeta& meta, const std::string& path) const {
  SnapshotManifest m;
  m.meta = meta;
  STRATA_ASSIGN_OR_RETURN(auto names, ops_.ListDir(path));
  std::sort(names.begin(), names.end());
  std::string buffer(1 << 20, '\0');
  for (const std::string& name : names) {
    if (!PlainFileName(name)) continue;
    STRATA_ASSIGN_OR_RETURN(auto file, ops_.Open(JoinPath(path, name), storage::OpenMode::kRead));
    SnapshotFile f{name, 0, 0};
    while (true) {
      STRATA_ASSIGN_OR_RETURN(size_t n, file->Read(static_cast<uint64_t>(f.bytes), buffer.data(), buffer.size()));
      if (n == 0) break;
      f.crc32c = storage::Crc32cExtend(f.crc32c, buffer.data(), n);
      f.bytes += static_cast<int64_t>(n);
    }
    STRATA_RETURN_IF_ERROR(file->Sync());
    m.files.push_back(std::move(f));
  }
  return m;
}

absl::Status SnapshotStore::Seal(const PartialSnapshot& p, const std::optional<SnapshotManifest>& expected) {
  const SnapshotMeta& meta = p.meta;
  const std::string& partial = p.path;
  STRATA_ASSIGN_OR_RETURN(SnapshotManifest manifest, Describe(meta, partial));
  if (expected.has_value()) {
    auto sorted = expected->files;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    if (expected->meta != meta || expected->meta.voters != meta.voters || sorted != manifest.files) {
      AbortPartial(p);
      return MakeError(Errc::kCorruptMessage,
                       absl::StrCat("received snapshot ", SnapshotDirName(meta), " does not match its manifest: got ",
                                    manifest.ToJson(), "expected ", expected->ToJson()));
    }
  }
  STRATA_RETURN_IF_ERROR(storage::WriteFileAtomically(ops_, JoinPath(partial, kSnapshotManifestFile), manifest.ToJson()));
  std::string final_path = PathOf(meta);
  STRATA_ASSIGN_OR_RETURN(bool exists, ops_.Exists(final_path));
  absl::MutexLock lock(&mu_);
  if (exists) {
    // The same snapshot again (a retried transfer): keep the one in place.
    STRATA_RETURN_IF_ERROR(storage::RemoveRecursively(ops_, partial));
  } else {
    STRATA_RETURN_IF_ERROR(ops_.Rename(partial, final_path));
    STRATA_RETURN_IF_ERROR(ops_.SyncDir(dir_));
    sealed_.push_back(meta);
    std::sort(sealed_.begin(), sealed_.end(), [](const SnapshotMeta& a, const SnapshotMeta& b) { return a.index < b.index; });
  }
  return RemoveOldLocked();
}

absl::Status SnapshotStore::RemoveOldLocked() {
  // The newest two stay; an older one goes unless pinned.
  size_t i = 0;
  while (i + 2 < sealed_.size()) {
    if (std::find(pinned_.begin(), pinned_.end(), sealed_[i]) != pinned_.end()) {
      ++i;
      continue;
    }
    STRATA_RETURN_IF_ERROR(storage::RemoveRecursively(ops_, PathOf(sealed_[i])));
    sealed_.erase(sealed_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return absl::OkStatus();
}

std::unique_ptr<SnapshotStore::Pin> SnapshotStore::PinSnapshot(const SnapshotMeta& meta) {
  absl::MutexLock lock(&mu_);
  if (std::find(sealed_.begin(), sealed_.end(), meta) == sealed_.end()) return nullptr;
  pinned_.push_back(meta);
  return std::make_unique<Pin>(this, meta);
}

SnapshotStore::Pin::~Pin() {
  absl::MutexLock lock(&store_->mu_);
  auto it = std::find(store_->pinned_.begin(), store_->pinned_.end(), meta_);
  ABSL_CHECK(it != store_->pinned_.end()) << SnapshotDirName(meta_);
  store_->pinned_.erase(it);
  if (absl::Status s = store_->RemoveOldLocked(); !s.ok()) {
    spdlog::warn("removing snapshots older than the newest two in {}: {}", store_->dir_, s.ToString());
  }
}

void SnapshotStore::AbortPartial(const PartialSnapshot& partial) {
  (void)storage::RemoveRecursively(ops_, partial.path);
}

}  // namespace strata::raft
