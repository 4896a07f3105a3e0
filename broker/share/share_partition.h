#pragma once
// A share partition (KIP-932): what a share group keeps of one topic partition, on that
// partition's leader, with no lock, clock or I/O. The share-partition manager calls it
// under its lock with the time and the log's bounds, and has the share coordinator write
// State() before it answers an acknowledgement.
//
// Offsets below the share-partition start offset (SPSO, start_offset()) are done.
// [SPSO, SPEO) are the in-flight records, each in one state:
//   Available     delivered before and released (or its lock expired): acquired again first
//   Acquired      by one member until its lock deadline (now + record lock duration)
//   Acknowledged  accepted by its consumer
//   Archived      rejected, a gap (an offset with no record), or released once the
//                 delivery count reached the limit: never delivered again
// Offsets at and past the SPEO (end_offset()) were never delivered. The SPSO moves up
// past every leading Acknowledged or Archived record, and the in-flight window never
// spans more than max_in_flight_records (group.share.partition.max.record.locks), so
// acquiring stops there until the oldest records are done.
//
// Delivery counts: a record's count is the number of times it was acquired. A release
// or an expired lock makes it Available again, or Archived once the count has reached
// group.share.delivery.count.limit: a record that fails its consumers that often (a
// poison record) is set aside, not redelivered forever.
// Not thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

// Kafka's RecordState ids, as ShareSnapshot and ShareUpdate records carry them.
enum class ShareRecordState : int8_t { kAvailable = 0, kAcquired = 1, kAcknowledged = 2, kArchived = 4 };
const char* ShareRecordStateName(ShareRecordState state);
// Whether state is one of Kafka's delivery states above (what a request or record may carry).
bool IsShareRecordState(int8_t state);

// ShareFetch and ShareAcknowledge's AcknowledgeTypes (Renew from v2).
enum class AcknowledgeType : int8_t { kGap = 0, kAccept = 1, kRelease = 2, kReject = 3, kRenew = 4 };

struct SharePartitionOptions {
  int64_t record_lock_duration_ms = 30000;  // group.share.record.lock.duration.ms
  int32_t delivery_count_limit = 5;         // group.share.delivery.count.limit
  int32_t max_in_flight_records = 2000;     // group.share.partition.max.record.locks
};

// A run of offsets acquired together (ShareFetch's AcquiredRecords).
struct AcquiredRecords {
  int64_t first_offset = 0;
  int64_t last_offset = 0;  // inclusive
  int16_t delivery_count = 0;
  bool operator==(const AcquiredRecords&) const = default;
};

// A run of in-flight offsets in one state with one delivery count: the persisted form
// (ShareSnapshot's StateBatches). Acquired records persist as Available: a lock does not
// outlive the leader that granted it.
struct ShareStateBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;  // inclusive
  ShareRecordState state = ShareRecordState::kAvailable;
  int16_t delivery_count = 0;
  bool operator==(const ShareStateBatch&) const = default;
};

struct SharePartitionState {
  int64_t start_offset = 0;
  std::vector<ShareStateBatch> batches;  // in offset order, not overlapping, all >= start_offset
  bool operator==(const SharePartitionState&) const = default;
};

// OK when state is well formed: a start offset >= 0, batches in offset order, not
// overlapping, none before the start, no negative delivery count. Else what is wrong
// (InvalidArgument). The one check for a loaded, decoded or written state.
absl::Status CheckShareState(const SharePartitionState& state);

class SharePartition {
 public:
  // A new share partition starting at start_offset (share.auto.offset.reset: the log's
  // end for latest, its start for earliest), or one loaded from its persisted state.
  SharePartition(SharePartitionOptions options, int64_t start_offset);
  SharePartition(SharePartitionOptions options, const SharePartitionState& state);

  // Acquires up to max_records records for member_id, at least one if any is there:
  // first the Available in-flight ones in offset order (redeliveries), then new offsets
  // from the SPEO up to log_end_offset (exclusive: the high watermark, or the last
  // stable offset for read_committed), within the in-flight bound. Each acquired record's
  // delivery count goes up by one and its lock runs to now_ms + the lock duration.
  std::vector<AcquiredRecords> Acquire(const std::string& member_id, int32_t max_records, int64_t log_end_offset,
                                       int64_t now_ms);

  // Acknowledges [first_offset, last_offset]: types holds one type for the whole range or
  // one per offset. Every offset must be Acquired by member_id, else INVALID_RECORD_STATE
  // and nothing changes (INVALID_REQUEST for a malformed range or type list). Accept ->
  // Acknowledged; Release -> Available (Archived at the delivery limit); Reject and Gap
  // -> Archived; Renew -> still Acquired, its lock running from now_ms again.
  proto::kafka::ErrorCode Acknowledge(const std::string& member_id, int64_t first_offset, int64_t last_offset,
                               const std::vector<AcknowledgeType>& types, int64_t now_ms);

  // Every lock that ran out by now_ms: the record is released as by Release. Returns how
  // many records were.
  int ExpireLocks(int64_t now_ms);
  // A member that left or was fenced: its acquired records released (counts kept).
  int ReleaseMember(const std::string& member_id);
  // The earliest lock deadline, when any record is Acquired.
  std::optional<int64_t> NextLockDeadline() const;

  // The log's start offset moved past the SPSO (retention, DeleteRecords): the records
  // below it are gone and done.
  void AdvanceToLogStart(int64_t log_start_offset);

  int64_t start_offset() const { return start_offset_; }
  int64_t end_offset() const { return end_offset_; }
  // The records in flight with a state (Available only once delivered).
  size_t in_flight() const { return records_.size(); }
  std::optional<ShareRecordState> StateOf(int64_t offset) const;
  int16_t DeliveryCountOf(int64_t offset) const;  // 0 when not in flight

  // What the share coordinator persists: the SPSO and the in-flight runs.
  SharePartitionState State() const;

 private:
  struct InFlight {
    ShareRecordState state = ShareRecordState::kAvailable;
    int16_t delivery_count = 0;
    std::string member_id;      // while Acquired
    int64_t lock_deadline_ms = 0;  // while Acquired
  };

  void Release(InFlight& record);
  void AdvanceStart();

  SharePartitionOptions options_;
  int64_t start_offset_ = 0;
  int64_t end_offset_ = 0;
  std::map<int64_t, InFlight> records_;  // offsets in [start_offset_, end_offset_)
};

}  // namespace strata::broker
