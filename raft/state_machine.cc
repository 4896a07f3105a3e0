#include "raft/state_machine.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::raft {
namespace {

constexpr char kEntriesFile[] = "entries";

void PutInt(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetInt(absl::string_view in, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(in[pos + i]);
  return v;
}

}  // namespace

absl::Status AppliedLog::Apply(const Entry& entry) {
  absl::MutexLock lock(&mu_);
  ABSL_CHECK_EQ(entry.index, static_cast<Index>(entries_.size()) + 1) << "entries are applied in order, once";
  entries_.push_back(entry);
  return absl::OkStatus();
}

// The file: per entry term (8 bytes), type (1 byte), data length (4 bytes), data;
// big-endian.
absl::Status AppliedLog::SaveSnapshot(storage::FileOps& ops, const std::string& dir) {
  std::string out;
  {
    absl::MutexLock lock(&mu_);
    for (const Entry& e : entries_) {
      PutInt(out, static_cast<uint64_t>(e.term), 8);
      PutInt(out, static_cast<uint64_t>(e.type), 1);
      PutInt(out, e.data.size(), 4);
      out += e.data;
    }
  }
  STRATA_ASSIGN_OR_RETURN(auto file, ops.Open(storage::JoinPath(dir, kEntriesFile), storage::OpenMode::kCreateNew));
  STRATA_RETURN_IF_ERROR(file->Write(0, out));
  return file->Sync();
}

absl::Status AppliedLog::RestoreSnapshot(storage::FileOps& ops, const std::string& dir, const SnapshotMeta& meta) {
  std::string path = storage::JoinPath(dir, kEntriesFile);
  STRATA_ASSIGN_OR_RETURN(std::string in, storage::ReadWholeFile(ops, path));
  std::vector<Entry> entries;
  size_t pos = 0;
  while (pos < in.size()) {
    if (in.size() - pos < 13) break;
    Entry e;
    e.term = static_cast<Term>(GetInt(in, pos, 8));
    uint64_t type = GetInt(in, pos + 8, 1);
    if (type > static_cast<uint64_t>(EntryType::kVoters)) break;
    e.type = static_cast<EntryType>(type);
    uint64_t len = GetInt(in, pos + 9, 4);
    pos += 13;
    if (in.size() - pos < len) break;
    e.data = in.substr(pos, len);
    pos += len;
    e.index = static_cast<Index>(entries.size()) + 1;
    entries.push_back(std::move(e));
  }
  if (pos != in.size() || static_cast<Index>(entries.size()) != meta.index ||
      (meta.index > 0 && entries.back().term != meta.term)) {
    return storage::MakeError(storage::Errc::kInconsistentLog,
                              absl::StrCat(path, " does not hold entries 1..", meta.index, " ending in term ", meta.term));
  }
  absl::MutexLock lock(&mu_);
  entries_ = std::move(entries);
  return absl::OkStatus();
}

std::vector<Entry> AppliedLog::Read(Index from, size_t max) const {
  absl::MutexLock lock(&mu_);
  std::vector<Entry> out;
  for (Index i = std::max<Index>(from, 1); i <= static_cast<Index>(entries_.size()) && out.size() < max; ++i) {
    out.push_back(entries_[i - 1]);
  }
  return out;
}

Index AppliedLog::last_applied() const {
  absl::MutexLock lock(&mu_);
  return static_cast<Index>(entries_.size());
}

}  // namespace strata::raft
