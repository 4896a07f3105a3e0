#include "storage/file_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

class PosixMappedRegion final : public MappedRegion {
 public:
  PosixMappedRegion(std::string path, char* data, size_t size) : path_(std::move(path)), data_(data), size_(size) {}
  ~PosixMappedRegion() override {
    if (data_ != nullptr) munmap(data_, size_);
  }
  const char* data() const override { return data_; }
  size_t size() const override { return size_; }
  void Store(size_t offset, absl::string_view bytes) override {
    ABSL_CHECK_LE(offset + bytes.size(), size_) << path_;
    std::memcpy(data_ + offset, bytes.data(), bytes.size());
  }
  void Zero(size_t offset, size_t length) override {
    ABSL_CHECK_LE(offset + length, size_) << path_;
    std::memset(data_ + offset, 0, length);
  }

 private:
  std::string path_;
  char* data_;
  size_t size_;
};

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFile() override { ::close(fd_); }
  const std::string& path() const override { return path_; }

  absl::StatusOr<size_t> Read(uint64_t offset, char* buf, size_t n) override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError(absl::StrCat("pread at ", offset + done, " of"), path_, errno);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }

  absl::Status Write(uint64_t offset, absl::string_view data) override {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t w = ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
      if (w < 0) {
        if (errno == EINTR) continue;
        return IoError(absl::StrCat("pwrite at ", offset + done, " of"), path_, errno);
      }
      done += static_cast<size_t>(w);
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (::fdatasync(fd_) != 0) return IoError("fdatasync", path_, errno);
    return absl::OkStatus();
  }

  absl::Status Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return IoError("ftruncate", path_, errno);
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return IoError("fstat", path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::StatusOr<std::unique_ptr<MappedRegion>> Map(size_t size) override {
    if (size == 0) return std::make_unique<PosixMappedRegion>(path_, nullptr, 0);
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) return IoError("mmap", path_, errno);
    return std::make_unique<PosixMappedRegion>(path_, static_cast<char*>(p), size);
  }

  absl::StatusOr<size_t> SendFile(int socket_fd, uint64_t offset, size_t count) override {
    while (true) {
      off_t position = static_cast<off_t>(offset);
      ssize_t n = ::sendfile(socket_fd, fd_, &position, count);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      return IoError(absl::StrCat("sendfile at ", offset, " of"), path_, errno);
    }
  }

 private:
  std::string path_;
  int fd_;
};

class PosixFileOps final : public FileOps {
 public:
  absl::StatusOr<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case OpenMode::kRead: flags |= O_RDONLY; break;
      case OpenMode::kReadWrite: flags |= O_RDWR; break;
      case OpenMode::kCreate: flags |= O_RDWR | O_CREAT; break;
      case OpenMode::kCreateNew: flags |= O_RDWR | O_CREAT | O_EXCL; break;
      case OpenMode::kCreateTruncate: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
    }
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return IoError("open", path, errno);
    return std::make_unique<PosixFile>(path, fd);
  }
  absl::Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return IoError(absl::StrCat("rename to ", to, " of"), from, errno);
    return absl::OkStatus();
  }
  absl::Status Remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return IoError("unlink", path, errno);
    return absl::OkStatus();
  }
  absl::Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return IoError("mkdir", path, errno);
    return absl::OkStatus();
  }
  absl::Status RemoveDir(const std::string& path) override {
    if (::rmdir(path.c_str()) != 0) return IoError("rmdir", path, errno);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) override {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return IoError("opendir", path, errno);
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* entry = ::readdir(dir)) {
      absl::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    int err = errno;
    ::closedir(dir);
    if (err != 0) return IoError("readdir", path, err);
    return names;
  }
  absl::Status SyncDir(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return IoError("open directory", path, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return IoError("fsync directory", path, err);
    return absl::OkStatus();
  }
  absl::StatusOr<bool> Exists(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT) return false;
    return IoError("stat", path, errno);
  }
  absl::StatusOr<bool> IsDirectory(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
    if (errno == ENOENT) return false;
    return IoError("stat", path, errno);
  }
};

}  // namespace

FileOps* FileOps::Default() {
  static PosixFileOps* ops = new PosixFileOps();
  return ops;
}

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string AbsolutePath(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

std::string JoinPath(absl::string_view dir, absl::string_view name) {
  if (dir.empty()) return std::string(name);
  if (dir.back() == '/') return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

absl::Status WriteFileAtomically(FileOps& ops, const std::string& path, absl::string_view contents) {
  std::string tmp = path + ".tmp";
  {
    STRATA_ASSIGN_OR_RETURN(auto file, ops.Open(tmp, OpenMode::kCreateTruncate));
    STRATA_RETURN_IF_ERROR(file->Write(0, contents));
    STRATA_RETURN_IF_ERROR(file->Sync());
  }
  STRATA_RETURN_IF_ERROR(ops.Rename(tmp, path));
  return ops.SyncDir(DirName(path));
}

absl::StatusOr<std::string> ReadWholeFile(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(auto file, ops.Open(path, OpenMode::kRead));
  STRATA_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  std::string data(size, '\0');
  STRATA_ASSIGN_OR_RETURN(size_t n, file->Read(0, data.data(), size));
  data.resize(n);
  return data;
}

absl::Status CreateDirRecursively(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.IsDirectory(path));
  if (exists) return absl::OkStatus();
  std::string parent = DirName(path);
  if (parent != path && parent != "." && parent != "/") STRATA_RETURN_IF_ERROR(CreateDirRecursively(ops, parent));
  return ops.CreateDir(path);
}

absl::Status RemoveRecursively(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(bool is_dir, ops.IsDirectory(path));
  if (!is_dir) {
    STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
    return exists ? ops.Remove(path) : absl::OkStatus();
  }
  STRATA_ASSIGN_OR_RETURN(auto names, ops.ListDir(path));
  for (const auto& name : names) STRATA_RETURN_IF_ERROR(RemoveRecursively(ops, JoinPath(path, name)));
  return ops.RemoveDir(path);
}

}  // namespace strata::storage
