#pragma once
// RemoteStorageManager: the remote tier's object store, as KIP-405's interface — copy one
// rolled segment (its .log, offset index, time index, producer snapshot and the
// leader-epoch entries that cover it), read a byte range of its .log or a whole index
// back, and delete it. Which segments exist, and in what state, is cluster metadata
// (COPY_SEGMENT_STARTED ... DELETE_SEGMENT_FINISHED in the quorum), not the store's: a
// copy is visible to readers only once COPY_SEGMENT_FINISHED names it, and a copy left
// half-done by a failed leader is deleted by the next one. Every copy has a fresh segment
// id, so two leaders copying the same offsets never write the same objects.
// Errors are Errc::kRemoteStorageError (missing object, failed read, checksum mismatch):
// a failure of the remote tier, never of a local log dir.
// Implementations are thread-safe: copies, reads and deletes run on several threads.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace strata::storage {

// Names one copy of one segment.
struct RemoteLogSegmentId {
  std::string topic_id;    // base64url (the topic's id in the metadata)
  int32_t partition = 0;
  std::string segment_id;  // base64url, new for every copy (NewBase64Uuid)
};

// The local files of a rolled segment to copy.
struct LogSegmentData {
  std::string log_path;
  std::string offset_index_path;
  std::string time_index_path;
  std::string producer_snapshot_path;  // empty: none (no producer state at its end)
  std::string txn_index_path;          // empty: none (no aborted transaction in it)
  std::string leader_epochs;           // the leader-epoch checkpoint's entries for it, as text
  // Called with the size of each piece of a local file before the store reads it (the
  // copy quota, remote.log.manager.copy.max.bytes.per.second: it may wait); null: none.
  std::function<void(int64_t bytes)> pace;
};

// One object of a store, as its listing shows it (the orphan sweep's view).
struct RemoteObject {
  std::string name;  // under the store's root: "<topic id>-<partition>/<segment id><suffix>"
  uint64_t size = 0;
  absl::Time modified;
};

// What FetchIndex returns.
// kTransaction: the aborted-transaction index (transaction_index.h); empty for a segment
// without an abort, and for a segment copied before transactions existed.
enum class RemoteIndexType { kOffset, kTimestamp, kProducerSnapshot, kLeaderEpoch, kTransaction };

class RemoteStorageManager {
 public:
  virtual ~RemoteStorageManager() = default;
  // Copies every part of the segment; returns once all are durable in the store.
  virtual absl::Status CopyLogSegmentData(const RemoteLogSegmentId& id, const LogSegmentData& data) = 0;
  // Bytes [start, end) of the segment's .log, end clipped to its size.
  virtual absl::StatusOr<std::string> FetchLogSegment(const RemoteLogSegmentId& id, uint64_t start,
                                                      uint64_t end) = 0;
  // The whole of one index (a segment copied without a producer snapshot has an empty one).
  virtual absl::StatusOr<std::string> FetchIndex(const RemoteLogSegmentId& id, RemoteIndexType type) = 0;
  // Removes every part of the segment; parts already gone are no error (a retried delete).
  virtual absl::Status DeleteLogSegmentData(const RemoteLogSegmentId& id) = 0;

  // Every object whose name starts with prefix ("": all; "<topic id>-": one topic's), in
  // no particular order; leftovers of failed copies included (a directory store's .tmp
  // files; an S3 store's multipart uploads never completed, named "<name>#upload=<id>"),
  // so that a sweep can remove them too.
  virtual absl::Status ListObjects(const std::string& prefix,
                                   const std::function<void(const RemoteObject&)>& each) = 0;
  // Removes objects by the names ListObjects gave (at most 1000 a call); absent ones are
  // no error; a name that is not an object name of this layout is InvalidArgument.
  virtual absl::Status DeleteObjects(const std::vector<std::string>& names) = 0;

  // The requests made to the store so far, for metrics: an object store's HTTP calls;
  // nullopt for a store that makes none (a directory).
  struct Requests {
    int64_t calls = 0;
    int64_t retries = 0;   // attempts after a call's first
    int64_t failures = 0;  // calls that ended in an error
    int64_t bytes_sent = 0;
    int64_t bytes_received = 0;
  };
  virtual std::optional<Requests> requests() const { return std::nullopt; }
};

}  // namespace strata::storage
