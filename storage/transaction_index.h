#pragma once
// TransactionIndex: a segment's aborted transactions (<base>.txnindex, Kafka's layout),
// one entry per ABORT marker the segment holds, in marker order. A READ_COMMITTED
// fetch collects the entries that overlap what it returns, and the consumer drops
// those producers' records from first_offset until it meets the abort marker.
// Entry (34 bytes, big-endian; docs/storage-format.md): i16 version (0) | i64 producer
// id | i64 first offset | i64 last offset (the marker's) | i64 last stable offset (the
// first offset still unstable once this transaction ended; the search stops at an entry
// whose last stable offset passes the fetch's upper bound).
// Most segments hold no abort: the file is created with the first entry, and the
// entries are kept in memory (a few per segment).
// Not thread-safe: the owning Log serialises access (LogSegment's rule).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_ops.h"

namespace strata::storage {

struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int64_t last_stable_offset = 0;
  bool operator==(const AbortedTxn&) const = default;
};

class TransactionIndex {
 public:
  static constexpr size_t kEntrySize = 34;

  // Loads path when it exists (a torn last entry is dropped; a bad version or an entry
  // out of order fails with CORRUPT_MESSAGE), else starts empty without a file.
  static absl::StatusOr<std::unique_ptr<TransactionIndex>> Open(FileOps& ops, std::string path);

  // Appends an entry. An entry whose marker is at or below the last one's is a replay
  // (recovery rebuilding what is there): ignored when equal to one held, else
  // INCONSISTENT_LOG.
  absl::Status Append(const AbortedTxn& txn);
  // Drops the entries whose marker is at or above offset.
  absl::Status TruncateTo(int64_t offset);
  // Appends to *out the entries that overlap [fetch_offset, upper_bound): a marker at
  // or after fetch_offset and a first offset below upper_bound. True when an entry's
  // last stable offset reaches upper_bound: no later segment can add one.
  bool Collect(int64_t fetch_offset, int64_t upper_bound, std::vector<AbortedTxn>* out) const {
    return CollectFrom(entries_, fetch_offset, upper_bound, out);
  }
  // The same over any index's entries (the remote tier's copy, Decode).
  static bool CollectFrom(const std::vector<AbortedTxn>& entries, int64_t fetch_offset, int64_t upper_bound,
                          std::vector<AbortedTxn>* out);

  const std::vector<AbortedTxn>& entries() const { return entries_; }
  const std::string& path() const { return path_; }
  // The file to fsync for the entries appended so far to be durable (nullptr: none
  // pending); Sync needs no lock of the owner's.
  std::shared_ptr<File> StartFlush();
  absl::Status Flush();
  absl::Status Rename(const std::string& new_path);
  // Removes the file, if any.
  absl::Status Delete();
  void Close() { file_.reset(); }

  static std::string Encode(const AbortedTxn& txn);
  // The entries of a whole index file's bytes (the remote tier's copy): CORRUPT_MESSAGE
  // for a bad version, an entry out of order or a partial entry (where names the file).
  static absl::StatusOr<std::vector<AbortedTxn>> Decode(absl::string_view data, absl::string_view where);

 private:
  TransactionIndex(FileOps& ops, std::string path) : ops_(ops), path_(std::move(path)) {}
  absl::Status OpenFile();

  FileOps& ops_;
  std::string path_;
  std::shared_ptr<File> file_;  // null until the first entry, or after Close
  std::vector<AbortedTxn> entries_;
  bool dirty_ = false;
};

}  // namespace strata::storage
