#pragma once
// FileOps: the one seam every storage file operation goes through, so tests can inject
// faults (fault_injecting_file_ops.h) and a failing disk is seen in one place. The
// POSIX implementation is FileOps::Default(). Zero-copy sends (File::SendFile) go
// through it too, so a fault reaches the network path as well. Errors are IoError statuses (errc.h)
// naming the operation, the path and the errno.
// Thread-safe: a FileOps may be used from any thread; one File may be read from many
// threads at once, while writes to one File are serialised by its owner.

#include <cstdint>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace strata::storage {

// A shared read-write mapping of the first size() bytes of a file. Stores reach the
// file's page cache at once, as a MAP_SHARED store does: File::Sync on the file (from
// any thread, without the mapping's owner) makes them durable, so nothing msyncs the
// mapping itself while its owner may be remapping it.
class MappedRegion {
 public:
  virtual ~MappedRegion() = default;
  virtual const char* data() const = 0;
  virtual size_t size() const = 0;
  // REQUIRES: offset + bytes.size() <= size().
  virtual void Store(size_t offset, absl::string_view bytes) = 0;
  // Zeroes [offset, offset + length). REQUIRES: offset + length <= size().
  virtual void Zero(size_t offset, size_t length) = 0;
};

class File {
 public:
  virtual ~File() = default;
  virtual const std::string& path() const = 0;
  // Reads up to n bytes at offset; returns fewer only at end of file.
  virtual absl::StatusOr<size_t> Read(uint64_t offset, char* buf, size_t n) = 0;
  // Writes all of data at offset, or fails.
  virtual absl::Status Write(uint64_t offset, absl::string_view data) = 0;
  // Makes written data durable (fdatasync).
  virtual absl::Status Sync() = 0;
  virtual absl::Status Truncate(uint64_t size) = 0;
  virtual absl::StatusOr<uint64_t> Size() = 0;
  // Maps [0, size) read-write. REQUIRES: the file is at least size bytes long. The region
  // stays valid after this File is destroyed (an index closes its descriptor once mapped).
  virtual absl::StatusOr<std::unique_ptr<MappedRegion>> Map(size_t size) = 0;
  // Sends up to count bytes from offset to the socket socket_fd without passing them
  // through user space (sendfile(2); one call, EINTR retried). Returns the bytes sent:
  // fewer than count when the socket took no more, 0 when the file ends at offset.
  // Errors carry the errno (ErrnoOf): EAGAIN when a non-blocking socket is full, EPIPE
  // or ECONNRESET when the peer is gone, anything else is the file's (or unknown).
  virtual absl::StatusOr<size_t> SendFile(int socket_fd, uint64_t offset, size_t count) = 0;
};

enum class OpenMode {
  kRead,          // existing file, read only
  kReadWrite,     // existing file
  kCreate,        // read-write, created if missing
  kCreateNew,     // read-write, must not exist yet
  kCreateTruncate // read-write, created or emptied
};

class FileOps {
 public:
  virtual ~FileOps() = default;
  // The process-wide POSIX implementation.
  static FileOps* Default();

  virtual absl::StatusOr<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) = 0;
  virtual absl::Status Rename(const std::string& from, const std::string& to) = 0;
  virtual absl::Status Remove(const std::string& path) = 0;
  // Creates one directory level; OK if it exists.
  virtual absl::Status CreateDir(const std::string& path) = 0;
  // Removes an empty directory.
  virtual absl::Status RemoveDir(const std::string& path) = 0;
  // Names (not paths) of the entries of a directory, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) = 0;
  virtual absl::Status SyncDir(const std::string& path) = 0;
  virtual absl::StatusOr<bool> Exists(const std::string& path) = 0;
  virtual absl::StatusOr<bool> IsDirectory(const std::string& path) = 0;
};

// Writes contents to path so that a crash leaves either the old or the new file:
// path.tmp, fsync, rename over path, fsync the directory.
absl::Status WriteFileAtomically(FileOps& ops, const std::string& path, absl::string_view contents);
absl::StatusOr<std::string> ReadWholeFile(FileOps& ops, const std::string& path);
// Creates a directory and any missing parents (mkdir -p).
absl::Status CreateDirRecursively(FileOps& ops, const std::string& path);
// Removes a directory tree.
absl::Status RemoveRecursively(FileOps& ops, const std::string& path);
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);
// path made absolute against the working directory and normalised (as DescribeLogDirs
// names log dirs); path itself when that fails.
std::string AbsolutePath(const std::string& path);
std::string JoinPath(absl::string_view dir, absl::string_view name);

}  // namespace strata::storage
