#include "storage/transaction_index.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/bytes.h"
#include "storage/errc.h"

namespace strata::storage {

std::string TransactionIndex::Encode(const AbortedTxn& txn) {
  std::string out;
  AppendBigEndian(&out, int16_t{0});
  AppendBigEndian(&out, txn.producer_id);
  AppendBigEndian(&out, txn.first_offset);
  AppendBigEndian(&out, txn.last_offset);
  AppendBigEndian(&out, txn.last_stable_offset);
  return out;
}

absl::StatusOr<std::vector<AbortedTxn>> TransactionIndex::Decode(absl::string_view data, absl::string_view where) {
  std::vector<AbortedTxn> entries;
  for (size_t p = 0; p + kEntrySize <= data.size(); p += kEntrySize) {
    const char* e = data.data() + p;
    int16_t version = LoadBigEndian<int16_t>(e);
    AbortedTxn txn{LoadBigEndian<int64_t>(e + 2), LoadBigEndian<int64_t>(e + 10), LoadBigEndian<int64_t>(e + 18),
                   LoadBigEndian<int64_t>(e + 26)};
    if (version != 0 || txn.first_offset > txn.last_offset ||
        (!entries.empty() && txn.last_offset <= entries.back().last_offset)) {
      return MakeError(Errc::kCorruptMessage, absl::StrCat(where, ": entry at byte ", p, " is not valid (version ",
                                                           version, ", offsets ", txn.first_offset, "..",
                                                           txn.last_offset, ")"));
    }
    entries.push_back(txn);
  }
  return entries;
}

absl::StatusOr<std::unique_ptr<TransactionIndex>> TransactionIndex::Open(FileOps& ops, std::string path) {
  std::unique_ptr<TransactionIndex> index(new TransactionIndex(ops, std::move(path)));
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(index->path_));
  if (!exists) return index;
  STRATA_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(ops, index->path_));
  size_t whole = data.size() / kEntrySize * kEntrySize;
  STRATA_ASSIGN_OR_RETURN(index->entries_, Decode(absl::string_view(data).substr(0, whole), index->path_));
  STRATA_RETURN_IF_ERROR(index->OpenFile());
  if (whole != data.size()) STRATA_RETURN_IF_ERROR(index->file_->Truncate(whole));  // a torn append
  return index;
}

absl::Status TransactionIndex::OpenFile() {
  STRATA_ASSIGN_OR_RETURN(auto file, ops_.Open(path_, OpenMode::kCreate));
  file_ = std::move(file);
  return absl::OkStatus();
}

absl::Status TransactionIndex::Append(const AbortedTxn& txn) {
  if (!entries_.empty() && txn.last_offset <= entries_.back().last_offset) {
    for (const AbortedTxn& e : entries_) {
      if (e == txn) return absl::OkStatus();
    }
    return MakeError(Errc::kInconsistentLog,
                     absl::StrCat(path_, ": aborted transaction of producer ", txn.producer_id, " ending at ",
                                  txn.last_offset, " is not after the last entry's marker at ",
                                  entries_.back().last_offset));
  }
  if (file_ == nullptr) STRATA_RETURN_IF_ERROR(OpenFile());
  STRATA_RETURN_IF_ERROR(file_->Write(entries_.size() * kEntrySize, Encode(txn)));
  entries_.push_back(txn);
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status TransactionIndex::TruncateTo(int64_t offset) {
  size_t keep = 0;
  while (keep < entries_.size() && entries_[keep].last_offset < offset) ++keep;
  if (keep == entries_.size()) return absl::OkStatus();
  entries_.resize(keep);
  if (file_ == nullptr) STRATA_RETURN_IF_ERROR(OpenFile());
  STRATA_RETURN_IF_ERROR(file_->Truncate(keep * kEntrySize));
  dirty_ = true;
  return absl::OkStatus();
}

bool TransactionIndex::CollectFrom(const std::vector<AbortedTxn>& entries, int64_t fetch_offset,
                                   int64_t upper_bound, std::vector<AbortedTxn>* out) {
  for (const AbortedTxn& e : entries) {
    if (e.last_offset >= fetch_offset && e.first_offset < upper_bound) out->push_back(e);
    if (e.last_stable_offset >= upper_bound) return true;
  }
  return false;
}

std::shared_ptr<File> TransactionIndex::StartFlush() {
  if (!dirty_) return nullptr;
  dirty_ = false;
  return file_;
}

absl::Status TransactionIndex::Flush() {
  std::shared_ptr<File> file = StartFlush();
  return file == nullptr ? absl::OkStatus() : file->Sync();
}

absl::Status TransactionIndex::Rename(const std::string& new_path) {
  STRATA_ASSIGN_OR_RETURN(bool exists, ops_.Exists(path_));
  if (exists) STRATA_RETURN_IF_ERROR(ops_.Rename(path_, new_path));
  path_ = new_path;
  return absl::OkStatus();
}

absl::Status TransactionIndex::Delete() {
  file_.reset();
  STRATA_ASSIGN_OR_RETURN(bool exists, ops_.Exists(path_));
  return exists ? ops_.Remove(path_) : absl::OkStatus();
}

}  // namespace strata::storage
