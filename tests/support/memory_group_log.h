#pragma once
// A GroupLog (broker/group/group_coordinator.h) in memory for tests of the coordinator: the
// records of each partition in order, so that a second coordinator loads what the first
// wrote; appends complete at once (inside Append, which the contract allows), or are
// held until ReleaseHeld, or fail with fail_with.
// Not thread-safe (a test without the coordinator's thread).

#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "broker/group/group_coordinator.h"

namespace strata::broker::testing {

// The records of each partition, in order. Appends complete at once unless held.
class MemoryGroupLog final : public GroupLog {
 public:
  void Append(int32_t partition, int32_t, std::vector<GroupLogRecord> records,
              std::function<void(ErrorCode)> done) override {
    if (fail_with != ErrorCode::kNone) return done(fail_with);
    auto& log = partitions[partition];
    log.insert(log.end(), records.begin(), records.end());
    ++appends;
    if (hold) {
      held.push_back(std::move(done));
      return;
    }
    done(ErrorCode::kNone);
  }
  void AppendTransactional(int32_t partition, int32_t epoch, int64_t producer_id, int16_t,
                           std::vector<GroupLogRecord> records, std::function<void(ErrorCode)> done) override {
    for (GroupLogRecord& r : records) r.producer_id = producer_id;
    Append(partition, epoch, std::move(records), std::move(done));
  }
  // A transaction marker as a partition leader writes it (WriteTxnMarkers).
  void AppendMarker(int32_t partition, int64_t producer_id, bool commit) {
    GroupLogRecord r;
    r.producer_id = producer_id;
    r.marker_commit = commit;
    partitions[partition].push_back(r);
  }
  absl::Status Read(int32_t partition, int32_t, const std::function<absl::Status(GroupLogRecord)>& each) override {
    for (const GroupLogRecord& r : partitions[partition]) {
      if (absl::Status s = each(r); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  void ReleaseHeld() {
    auto todo = std::move(held);
    held.clear();
    for (auto& done : todo) done(ErrorCode::kNone);
  }

  std::map<int32_t, std::vector<GroupLogRecord>> partitions;
  ErrorCode fail_with = ErrorCode::kNone;
  bool hold = false;
  std::deque<std::function<void(ErrorCode)>> held;
  int appends = 0;
};

}  // namespace strata::broker::testing
