#include "storage/fault_injecting_file_ops.h"

#include <algorithm>
#include <cerrno>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::storage {

class FaultFile final : public File {
 public:
  FaultFile(FaultInjectingFileOps* ops, std::unique_ptr<File> base, uint64_t generation)
      : ops_(ops), base_(std::move(base)), generation_(generation) {}
  const std::string& path() const override { return base_->path(); }

  absl::StatusOr<size_t> Read(uint64_t offset, char* buf, size_t n) override {
    STRATA_RETURN_IF_ERROR(CheckAlive("pread"));
    if (auto rule = ops_->Match(FaultOp::kRead, path(), offset, offset + n)) {
      if (rule->error != 0) return ops_->Fail(FaultOp::kRead, path(), *rule);
      size_t allowed = rule->begin > offset ? static_cast<size_t>(rule->begin - offset) : 0;
      return base_->Read(offset, buf, std::min(n, allowed));
    }
    return base_->Read(offset, buf, n);
  }

  absl::Status Write(uint64_t offset, absl::string_view data) override {
    STRATA_RETURN_IF_ERROR(CheckAlive("pwrite"));
    if (auto rule = ops_->Match(FaultOp::kWrite, path(), offset, offset + data.size())) {
      if (rule->error != 0) return ops_->Fail(FaultOp::kWrite, path(), *rule);
      size_t allowed = rule->begin > offset ? static_cast<size_t>(rule->begin - offset) : 0;
      ops_->NoteWrite(path(), offset);
      STRATA_RETURN_IF_ERROR(base_->Write(offset, data.substr(0, std::min(allowed, data.size()))));
      return IoError(absl::StrCat("pwrite at ", offset + allowed, " of"), path(), ENOSPC);
    }
    ops_->NoteWrite(path(), offset);
    return base_->Write(offset, data);
  }

  absl::Status Sync() override {
    STRATA_RETURN_IF_ERROR(CheckAlive("fdatasync"));
    if (auto rule = ops_->Match(FaultOp::kSync, path(), 0, UINT64_MAX)) return ops_->Fail(FaultOp::kSync, path(), *rule);
    ops_->WaitWhileSyncsHeld(path());
    STRATA_RETURN_IF_ERROR(base_->Sync());
    ops_->NoteSync(path());
    return absl::OkStatus();
  }

  absl::Status Truncate(uint64_t size) override {
    STRATA_RETURN_IF_ERROR(CheckAlive("ftruncate"));
    if (auto rule = ops_->Match(FaultOp::kTruncate, path(), 0, UINT64_MAX)) {
      return ops_->Fail(FaultOp::kTruncate, path(), *rule);
    }
    return base_->Truncate(size);
  }

  absl::StatusOr<uint64_t> Size() override {
    STRATA_RETURN_IF_ERROR(CheckAlive("fstat"));
    return base_->Size();
  }

  absl::StatusOr<std::unique_ptr<MappedRegion>> Map(size_t size) override;

  absl::StatusOr<size_t> SendFile(int socket_fd, uint64_t offset, size_t count) override {
    STRATA_RETURN_IF_ERROR(CheckAlive("sendfile"));
    if (auto rule = ops_->Match(FaultOp::kSendFile, path(), offset, offset + count)) {
      if (rule->error != 0) return ops_->Fail(FaultOp::kSendFile, path(), *rule);
      size_t allowed = rule->begin > offset ? static_cast<size_t>(rule->begin - offset) : 0;
      if (allowed == 0) return 0;
      return base_->SendFile(socket_fd, offset, std::min(count, allowed));
    }
    return base_->SendFile(socket_fd, offset, count);
  }

  absl::Status CheckAlive(absl::string_view op) {
    ops_->CountOperation();
    if (!ops_->Alive(generation_)) return IoError(absl::StrCat(op, " after simulated crash:"), path(), EIO);
    return absl::OkStatus();
  }

 private:
  FaultInjectingFileOps* ops_;
  std::shared_ptr<File> base_;  // shared with its mappings, which may outlive this (as a real mapping its fd)
  uint64_t generation_;
};

// Emulates a shared mapping with a buffer whose stores go through to the file at once
// (the file stands for the page cache): a later Sync of the file makes them durable, a
// crash before it may lose them. Stores by a crashed process are dropped. No fault rule
// applies to them: a store to a mapping cannot fail.
class FaultRegion final : public MappedRegion {
 public:
  FaultRegion(FaultInjectingFileOps* ops, std::shared_ptr<File> base, uint64_t generation, std::string data)
      : ops_(ops), base_(std::move(base)), generation_(generation), data_(std::move(data)) {}
  const char* data() const override { return data_.data(); }
  size_t size() const override { return data_.size(); }
  void Store(size_t offset, absl::string_view bytes) override {
    ABSL_CHECK_LE(offset + bytes.size(), data_.size()) << base_->path();
    data_.replace(offset, bytes.size(), bytes.data(), bytes.size());
    if (!ops_->Alive(generation_)) return;
    ops_->NoteWrite(base_->path(), offset);
    absl::Status written = base_->Write(offset, bytes);
    ABSL_CHECK(written.ok()) << written;
  }
  void Zero(size_t offset, size_t length) override { Store(offset, std::string(length, '\0')); }

 private:
  FaultInjectingFileOps* ops_;
  // The file's own handle: a mapping outlives the File it was made from (an index closes
  // its descriptor once mapped), as a real one outlives its descriptor.
  std::shared_ptr<File> base_;
  uint64_t generation_;
  std::string data_;
};

absl::StatusOr<std::unique_ptr<MappedRegion>> FaultFile::Map(size_t size) {
  STRATA_RETURN_IF_ERROR(CheckAlive("mmap"));
  if (auto rule = ops_->Match(FaultOp::kMap, path(), 0, UINT64_MAX)) return ops_->Fail(FaultOp::kMap, path(), *rule);
  std::string data(size, '\0');
  STRATA_ASSIGN_OR_RETURN(size_t n, base_->Read(0, data.data(), size));
  if (n != size) return IoError("mmap beyond end of", path(), EINVAL);
  return std::make_unique<FaultRegion>(ops_, base_, generation_, std::move(data));
}

void FaultInjectingFileOps::AddRule(FaultRule rule) {
  absl::MutexLock lock(&mu_);
  rules_.push_back(std::move(rule));
}

void FaultInjectingFileOps::ClearRules() {
  absl::MutexLock lock(&mu_);
  rules_.clear();
}

int64_t FaultInjectingFileOps::operations() const {
  absl::MutexLock lock(&mu_);
  return operations_;
}

void FaultInjectingFileOps::HoldSyncs(std::string path_substring) {
  absl::MutexLock lock(&mu_);
  hold_syncs_ = std::move(path_substring);
}

void FaultInjectingFileOps::ReleaseSyncs() {
  absl::MutexLock lock(&mu_);
  hold_syncs_.reset();
}

int FaultInjectingFileOps::syncs_held() const {
  absl::MutexLock lock(&mu_);
  return syncs_held_;
}

void FaultInjectingFileOps::WaitWhileSyncsHeld(const std::string& path) {
  absl::MutexLock lock(&mu_);
  auto held = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return hold_syncs_.has_value() && path.find(*hold_syncs_) != std::string::npos;
  };
  if (!held()) return;
  ++syncs_held_;
  auto released = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !held(); };
  mu_.Await(absl::Condition(&released));
  --syncs_held_;
}

int64_t FaultInjectingFileOps::faults_fired() const {
  absl::MutexLock lock(&mu_);
  return faults_fired_;
}

void FaultInjectingFileOps::CountOperation() {
  absl::MutexLock lock(&mu_);
  ++operations_;
}

bool FaultInjectingFileOps::Alive(uint64_t generation) const {
  absl::MutexLock lock(&mu_);
  return generation == generation_;
}

uint64_t FaultInjectingFileOps::generation() const {
  absl::MutexLock lock(&mu_);
  return generation_;
}

std::optional<FaultRule> FaultInjectingFileOps::Match(FaultOp op, const std::string& path, uint64_t begin,
                                                      uint64_t end) {
  absl::MutexLock lock(&mu_);
  for (auto& rule : rules_) {
    if (rule.op != op || rule.remaining == 0) continue;
    if (path.find(rule.path_substring) == std::string::npos) continue;
    if (end <= rule.begin || begin >= rule.end) continue;
    if (rule.skip > 0) {
      --rule.skip;
      continue;
    }
    if (rule.remaining > 0) --rule.remaining;
    ++faults_fired_;
    return rule;
  }
  return std::nullopt;
}

absl::Status FaultInjectingFileOps::Fail(FaultOp op, const std::string& path, const FaultRule& rule) {
  static constexpr absl::string_view kNames[] = {"open", "pread", "pwrite", "fdatasync", "ftruncate",
                                                "rename", "unlink", "readdir", "mmap", "sendfile"};
  return IoError(absl::StrCat(kNames[static_cast<int>(op)], " (injected)"), path, rule.error);
}

void FaultInjectingFileOps::NoteWrite(const std::string& path, uint64_t offset) {
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = unsynced_from_.emplace(path, offset);
  if (!inserted) it->second = std::min(it->second, offset);
}

void FaultInjectingFileOps::NoteSync(const std::string& path) {
  absl::MutexLock lock(&mu_);
  unsynced_from_.erase(path);
}

void FaultInjectingFileOps::NoteRename(const std::string& from, const std::string& to) {
  absl::MutexLock lock(&mu_);
  unsynced_from_.erase(to);
  auto it = unsynced_from_.find(from);
  if (it == unsynced_from_.end()) return;
  uint64_t from_offset = it->second;
  unsynced_from_.erase(it);
  unsynced_from_[to] = from_offset;
}

void FaultInjectingFileOps::NoteRemove(const std::string& path) {
  absl::MutexLock lock(&mu_);
  unsynced_from_.erase(path);
}

void FaultInjectingFileOps::SimulateCrash(uint64_t seed) {
  std::map<std::string, uint64_t> unsynced;
  {
    absl::MutexLock lock(&mu_);
    ++generation_;
    unsynced.swap(unsynced_from_);
  }
  std::mt19937_64 rng(seed);
  for (const auto& [path, from] : unsynced) {
    auto file = base_->Open(path, OpenMode::kReadWrite);
    if (!file.ok()) continue;  // removed since
    auto size = (*file)->Size();
    if (!size.ok() || *size <= from) continue;
    uint64_t unsynced_bytes = *size - from;
    uint64_t kept = std::uniform_int_distribution<uint64_t>(0, unsynced_bytes)(rng);
    ABSL_CHECK_OK((*file)->Truncate(from + kept));
    if (kept > 0 && rng() % 2 == 0) {
      uint64_t at = from + std::uniform_int_distribution<uint64_t>(0, kept - 1)(rng);
      char garbage = static_cast<char>(rng() | 1);
      ABSL_CHECK_OK((*file)->Write(at, absl::string_view(&garbage, 1)));
    }
  }
}

absl::StatusOr<std::unique_ptr<File>> FaultInjectingFileOps::Open(const std::string& path, OpenMode mode) {
  CountOperation();
  if (auto rule = Match(FaultOp::kOpen, path, 0, UINT64_MAX)) return Fail(FaultOp::kOpen, path, *rule);
  STRATA_ASSIGN_OR_RETURN(auto file, base_->Open(path, mode));
  if (mode == OpenMode::kCreateTruncate) NoteWrite(path, 0);
  return std::unique_ptr<File>(std::make_unique<FaultFile>(this, std::move(file), generation()));
}

int64_t FaultInjectingFileOps::renames() const {
  absl::MutexLock lock(&mu_);
  return renames_;
}

absl::Status FaultInjectingFileOps::Rename(const std::string& from, const std::string& to) {
  CountOperation();
  {
    absl::MutexLock lock(&mu_);
    ++renames_;
  }
  if (auto rule = Match(FaultOp::kRename, from, 0, UINT64_MAX)) return Fail(FaultOp::kRename, from, *rule);
  STRATA_RETURN_IF_ERROR(base_->Rename(from, to));
  NoteRename(from, to);
  return absl::OkStatus();
}

absl::Status FaultInjectingFileOps::Remove(const std::string& path) {
  CountOperation();
  if (auto rule = Match(FaultOp::kRemove, path, 0, UINT64_MAX)) return Fail(FaultOp::kRemove, path, *rule);
  STRATA_RETURN_IF_ERROR(base_->Remove(path));
  NoteRemove(path);
  return absl::OkStatus();
}

absl::Status FaultInjectingFileOps::CreateDir(const std::string& path) {
  CountOperation();
  return base_->CreateDir(path);
}

absl::Status FaultInjectingFileOps::RemoveDir(const std::string& path) {
  CountOperation();
  return base_->RemoveDir(path);
}

absl::StatusOr<std::vector<std::string>> FaultInjectingFileOps::ListDir(const std::string& path) {
  CountOperation();
  if (auto rule = Match(FaultOp::kListDir, path, 0, UINT64_MAX)) return Fail(FaultOp::kListDir, path, *rule);
  return base_->ListDir(path);
}

absl::Status FaultInjectingFileOps::SyncDir(const std::string& path) {
  CountOperation();
  if (auto rule = Match(FaultOp::kSync, path, 0, UINT64_MAX)) return Fail(FaultOp::kSync, path, *rule);
  return base_->SyncDir(path);
}

absl::StatusOr<bool> FaultInjectingFileOps::Exists(const std::string& path) {
  CountOperation();
  return base_->Exists(path);
}

absl::StatusOr<bool> FaultInjectingFileOps::IsDirectory(const std::string& path) {
  CountOperation();
  return base_->IsDirectory(path);
}

}  // namespace strata::storage
