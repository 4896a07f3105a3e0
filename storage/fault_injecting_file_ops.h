#pragma once
// A FileOps that wraps another and injects faults: chosen operations on chosen files
// (and byte ranges) fail with a chosen errno or come back short, and a simulated crash
// drops or tears every byte not yet synced. Mapped regions are emulated with a buffer
// whose stores are written through to the file, so index entries not synced since are
// lost in a crash too. The model: fdatasync makes a file's bytes durable, those stored
// through a mapping included (as Linux's fsync does for MAP_SHARED); renames, unlinks and
// truncations are durable at once (as ext4's ordered mode nearly gives).
// Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "storage/file_ops.h"

namespace strata::storage {

enum class FaultOp { kOpen, kRead, kWrite, kSync, kTruncate, kRename, kRemove, kListDir, kMap, kSendFile };

struct FaultRule {
  std::string path_substring;  // files whose path contains this ("" matches all)
  FaultOp op = FaultOp::kRead;
  // For reads, writes and sendfiles: the access must overlap [begin, end).
  uint64_t begin = 0;
  uint64_t end = UINT64_MAX;
  // errno to fail with; 0 makes a read return only the bytes before `begin` (a short
  // read), a sendfile send only those (0 when none: the file seems to end there) or a
  // write store only those bytes and then fail with ENOSPC.
  int error = 5;  // EIO
  int remaining = -1;  // how many times it fires; -1 for ever
  // Matching operations that pass before it fires (the third rename: skip = 2).
  int skip = 0;
};

class FaultInjectingFileOps final : public FileOps {
 public:
  explicit FaultInjectingFileOps(FileOps* base = FileOps::Default()) : base_(base) {}

  void AddRule(FaultRule rule);
  void ClearRules();
  // Operations that reached the underlying FileOps (to prove an offline log touches
  // nothing).
  int64_t operations() const;
  int64_t faults_fired() const;
  // Renames asked for (fired or not): how many steps a multi-file operation takes.
  int64_t renames() const;
  // A slow disk: syncs of files whose path contains path_substring wait until
  // ReleaseSyncs(); syncs_held() counts those waiting now.
  void HoldSyncs(std::string path_substring);
  void ReleaseSyncs();
  int syncs_held() const;

  // Simulates a power loss: each file keeps its synced bytes plus a random prefix of
  // what followed, in which one byte may be garbled. Files and regions opened before
  // the crash fail every later operation with EIO (they belong to the dead process).
  void SimulateCrash(uint64_t seed);

  absl::StatusOr<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) override;
  absl::Status Rename(const std::string& from, const std::string& to) override;
  absl::Status Remove(const std::string& path) override;
  absl::Status CreateDir(const std::string& path) override;
  absl::Status RemoveDir(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) override;
  absl::Status SyncDir(const std::string& path) override;
  absl::StatusOr<bool> Exists(const std::string& path) override;
  absl::StatusOr<bool> IsDirectory(const std::string& path) override;

 private:
  friend class FaultFile;
  friend class FaultRegion;

  // Returns the rule that fires for this access, consuming one use of it.
  std::optional<FaultRule> Match(FaultOp op, const std::string& path, uint64_t begin, uint64_t end);
  absl::Status Fail(FaultOp op, const std::string& path, const FaultRule& rule);
  void NoteWrite(const std::string& path, uint64_t offset);
  void NoteSync(const std::string& path);
  void NoteRename(const std::string& from, const std::string& to);
  void NoteRemove(const std::string& path);
  bool Alive(uint64_t generation) const;
  // Returns once syncs of path are not held.
  void WaitWhileSyncsHeld(const std::string& path);
  uint64_t generation() const;
  void CountOperation();

  FileOps* const base_;
  mutable absl::Mutex mu_;
  std::vector<FaultRule> rules_ ABSL_GUARDED_BY(mu_);
  // Per path: the first byte written since the last sync.
  std::map<std::string, uint64_t> unsynced_from_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t operations_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t renames_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t faults_fired_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<std::string> hold_syncs_ ABSL_GUARDED_BY(mu_);
  int syncs_held_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::storage
