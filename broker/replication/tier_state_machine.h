#pragma once
// TierStateMachine: the follower's side of tiered storage (KIP-405, KIP-1023). A
// follower whose fetch position lies in the leader's remote tier (the leader answered
// OFFSET_MOVED_TO_TIERED_STORAGE), or an empty follower told to start at the leader's
// earliest pending upload (follower.fetch.last.tiered.offset.enable), restarts its log
// at a fetch start offset F the leader chose and needs the state of the log below F:
// the leader-epoch cache and the producer state as they stood at F. Build() reads them
// from the remote tier: from the finished copy that holds offset F - 1, its leader-epoch
// checkpoint and its producer snapshot (taken at F, where the next segment begins).
// The empty remote range (seed KAFKA-21190): when F is the leader's log start offset,
// [log start, F) holds nothing, the copy that held F - 1 may long be deleted, and no
// remote lookup is made: the log restarts at F with an empty epoch cache and no
// producers. A non-empty range whose copy is missing, or whose objects cannot be read,
// is an error the fetcher retries with backoff: counted, and logged when a partition
// starts failing and when it recovers (not at every retry).
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "controller/remote_log_segments.h"
#include "storage/checkpoint_file.h"
#include "storage/remote_storage_manager.h"

namespace strata::broker {

// What a follower's log restarts with at fetch_start.
struct RemoteAuxState {
  int64_t fetch_start = 0;
  std::vector<storage::EpochEntry> epochs;  // the entries that start below fetch_start
  std::string producer_snapshot;            // empty: no producers
  bool from_remote = false;                 // false: the empty remote range, nothing read
};

struct TierStateMachineOptions {
  storage::RemoteStorageManager* remote_storage = nullptr;  // required
  // The finished copy of (topic id, partition) that holds offset, from the broker's image.
  std::function<std::optional<controller::RemoteLogSegments::Segment>(const std::string& topic_id,
                                                                      int32_t partition, int64_t offset)>
      remote_segment_for;  // required
};

struct TierStateMachineStats {
  int64_t builds = 0;         // aux state read from the remote tier
  int64_t empty_ranges = 0;   // restarts with no remote lookup (fetch start == log start)
  int64_t errors = 0;         // builds that failed (retried by the fetcher)
  int64_t failing = 0;        // partitions whose last build failed
};

class TierStateMachine {
 public:
  explicit TierStateMachine(TierStateMachineOptions options);

  // The state below fetch_start of (topic id, partition), whose leader's log starts at
  // leader_log_start. KAFKA_STORAGE_ERROR-class (REMOTE_STORAGE_ERROR) when the copy
  // that holds fetch_start - 1 is not in the metadata or its objects cannot be read.
  // name: the partition's name for the log ("orders-0").
  absl::StatusOr<RemoteAuxState> Build(const std::string& name, const std::string& topic_id, int32_t partition,
                                       int64_t fetch_start, int64_t leader_log_start);

  TierStateMachineStats stats() const;
  // The partitions whose last build failed (their names, as Build was given them).
  std::vector<std::string> failing() const;

 private:
  const TierStateMachineOptions options_;
  std::atomic<int64_t> builds_{0};
  std::atomic<int64_t> empty_ranges_{0};
  std::atomic<int64_t> errors_{0};
  // Partitions whose last build failed (logged once on entering and once on leaving).
  void NoteOutcome(const std::string& name, const absl::Status& status);
  mutable absl::Mutex mu_;
  std::set<std::string> failing_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
