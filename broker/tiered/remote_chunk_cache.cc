#include "broker/tiered/remote_chunk_cache.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::broker {
namespace {

constexpr absl::string_view kTmpSuffix = ".tmp";

// A block the cache could not keep, served from memory through the File interface (so
// that a fetch answer carries it as a slice like any other). Read-only.
class BytesFile final : public storage::File {
 public:
  BytesFile(std::string path, std::string bytes) : path_(std::move(path)), bytes_(std::move(bytes)) {}
  const std::string& path() const override { return path_; }
  absl::StatusOr<size_t> Read(uint64_t offset, char* buf, size_t n) override {
    if (offset >= bytes_.size()) return 0;
    n = std::min<size_t>(n, bytes_.size() - offset);
    std::memcpy(buf, bytes_.data() + offset, n);
    return n;
  }
  absl::Status Write(uint64_t, absl::string_view) override { return ReadOnly("write"); }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Truncate(uint64_t) override { return ReadOnly("truncate"); }
  absl::StatusOr<uint64_t> Size() override { return bytes_.size(); }
  absl::StatusOr<std::unique_ptr<storage::MappedRegion>> Map(size_t) override { return ReadOnly("map"); }
  // The bytes through send(2): a copy, as there is no file to send from.
  absl::StatusOr<size_t> SendFile(int socket_fd, uint64_t offset, size_t count) override {
    if (offset >= bytes_.size()) return 0;
    count = std::min<size_t>(count, bytes_.size() - offset);
    while (true) {
      ssize_t n = ::send(socket_fd, bytes_.data() + offset, count, MSG_NOSIGNAL);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      return storage::IoError(absl::StrCat("send at ", offset, " of"), path_, errno);
    }
  }

 private:
  absl::Status ReadOnly(absl::string_view op) const {
    return absl::FailedPreconditionError(absl::StrCat(path_, ": a block in memory cannot ", op));
  }
  const std::string path_;
  const std::string bytes_;
};

}  // namespace

storage::FileSlice RemoteChunkCache::Block::Slice(uint64_t from, uint64_t count) const {
  ABSL_CHECK_LE(from + count, size_) << "a slice of a block of " << size_;
  storage::FileSlice slice;
  slice.file = file_;
  slice.position = from;
  slice.size = count;
  return slice;
}

absl::Status RemoteChunkCache::Block::AppendTo(std::string& out, uint64_t from, uint64_t to) const {
  ABSL_CHECK(from <= to && to <= size_) << "[" << from << ", " << to << ") of a block of " << size_;
  const size_t at = out.size();
  out.resize(at + (to - from));
  STRATA_ASSIGN_OR_RETURN(size_t n, file_->Read(from, out.data() + at, to - from));
  if (n != to - from) {
    out.resize(at);
    return storage::MakeError(storage::Errc::kRemoteStorageError,
                              absl::StrCat(file_->path(), ": the cached block ends at byte ", from + n, ", not ", to));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RemoteChunkCache>> RemoteChunkCache::Open(RemoteChunkCacheOptions options) {
  ABSL_CHECK(!options.dir.empty());
  ABSL_CHECK(options.ops != nullptr);
  storage::FileOps& ops = *options.ops;
  auto context = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("the remote chunk cache ", options.dir, ": ", s.message()));
  };
  if (absl::Status made = storage::CreateDirRecursively(ops, options.dir); !made.ok()) return context(made);
  auto names = ops.ListDir(options.dir);
  if (!names.ok()) return context(names.status());
  for (const std::string& name : *names) {
    const std::string path = storage::JoinPath(options.dir, name);
    auto is_dir = ops.IsDirectory(path);
    if (!is_dir.ok()) return context(is_dir.status());
    absl::Status removed = *is_dir ? storage::RemoveRecursively(ops, path) : ops.Remove(path);
    if (!removed.ok()) return context(removed);
  }
  return std::unique_ptr<RemoteChunkCache>(new RemoteChunkCache(std::move(options)));
}

std::string RemoteChunkCache::PathOf(const Key& key) const {
  return storage::JoinPath(options_.dir, absl::StrCat(absl::WebSafeBase64Escape(key.first), ".", key.second));
}

bool RemoteChunkCache::Has(const Key& key) const {
  absl::MutexLock lock(&mu_);
  return entries_.count(key) > 0 || fetching_.count(key) > 0;
}

absl::StatusOr<RemoteChunkCache::Block> RemoteChunkCache::Get(const Key& key, const Fetch& fetch) {
  {
    absl::MutexLock lock(&mu_);
    bool waited = false;
    while (true) {
      if (auto it = entries_.find(key); it != entries_.end()) {
        // Opened under the lock: eviction (which removes the file) cannot come between.
        auto file = options_.ops->Open(PathOf(key), storage::OpenMode::kRead);
        if (file.ok()) {
          lru_.splice(lru_.begin(), lru_, it->second.at);
          ++hits_;
          Block block;
          block.file_ = std::move(*file);
          block.size_ = it->second.size;
          return block;
        }
        // Gone from under the cache (removed by hand, a failing disk): fetched again.
        spdlog::warn("remote chunk cache: {}", file.status().ToString());
        bytes_ -= static_cast<int64_t>(it->second.size);
        lru_.erase(it->second.at);
        entries_.erase(it);
      }
      if (fetching_.count(key) == 0) break;
      if (!waited) ++waits_;
      waited = true;
      auto done = [this, &key]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return fetching_.count(key) == 0; };
      mu_.Await(absl::Condition(&done));
    }
    fetching_.insert(key);
    ++misses_;
  }
  absl::StatusOr<std::string> fetched = fetch();
  // A block larger than the whole cache is served from memory, not kept.
  const bool fits = fetched.ok() && static_cast<int64_t>(fetched->size()) <= options_.budget_bytes;
  std::shared_ptr<storage::File> file = fits ? Keep(key, *fetched) : nullptr;
  absl::MutexLock lock(&mu_);
  fetching_.erase(key);
  if (!fetched.ok()) return fetched.status();
  Block block;
  block.size_ = fetched->size();
  if (file == nullptr) {
    if (fits) ++write_errors_;
    block.file_ = std::make_shared<BytesFile>(absl::StrCat(PathOf(key), " (in memory)"), std::move(*fetched));
    return block;
  }
  lru_.push_front(key);
  entries_[key] = Entry{block.size_, lru_.begin()};
  bytes_ += static_cast<int64_t>(block.size_);
  block.file_ = std::move(file);
  EvictLocked();
  return block;
}

std::shared_ptr<storage::File> RemoteChunkCache::Keep(const Key& key, const std::string& bytes) {
  const std::string path = PathOf(key);
  const std::string tmp = absl::StrCat(path, kTmpSuffix);
  absl::Status kept = [&]() -> absl::Status {
    STRATA_ASSIGN_OR_RETURN(auto out, options_.ops->Open(tmp, storage::OpenMode::kCreateTruncate));
    STRATA_RETURN_IF_ERROR(out->Write(0, bytes));
    return options_.ops->Rename(tmp, path);
  }();
  absl::StatusOr<std::unique_ptr<storage::File>> file =
      kept.ok() ? options_.ops->Open(path, storage::OpenMode::kRead) : absl::StatusOr<std::unique_ptr<storage::File>>(kept);
  if (file.ok()) return std::shared_ptr<storage::File>(std::move(*file));
  spdlog::warn("remote chunk cache: keeping a block of {} bytes failed (served from memory): {}", bytes.size(),
               file.status().ToString());
  (void)options_.ops->Remove(tmp);  // best effort: the directory is emptied at the next start
  (void)options_.ops->Remove(path);
  return nullptr;
}

void RemoteChunkCache::EvictLocked() {
  while (bytes_ > options_.budget_bytes && !lru_.empty()) {
    auto victim = entries_.find(lru_.back());
    ABSL_CHECK(victim != entries_.end());
    // A reader holding the file open reads on: the data goes when it closes it.
    if (absl::Status removed = options_.ops->Remove(PathOf(victim->first)); !removed.ok()) {
      spdlog::warn("remote chunk cache: {}", removed.ToString());
    }
    bytes_ -= static_cast<int64_t>(victim->second.size);
    entries_.erase(victim);
    lru_.pop_back();
    ++evictions_;
  }
}

RemoteChunkCacheStats RemoteChunkCache::stats() const {
  absl::MutexLock lock(&mu_);
  return RemoteChunkCacheStats{hits_,       misses_,  waits_, write_errors_, evictions_,
                               bytes_,      static_cast<int64_t>(entries_.size())};
}

}  // namespace strata::broker
