#pragma once
// RaftObserver: a non-voting follower of the committed metadata log (a broker). It
// streams RaftTransport.Observe from one of the voters, from the entry after the last
// one it applied; when that entry is compacted away the voter sends its latest snapshot
// first, which the observer seals in its own SnapshotStore and restores into its state
// machine. With persist_log, every entry is also written (fsynced) into its own
// `__cluster_metadata-0` log in dir before it is applied; the log restarts after a
// restored snapshot and keeps about keep_entries behind the applied entry. On any
// stream error it moves to the next voter after a short pause; a failure of its state
// machine, log or snapshot store stops it (on_fatal).
// Thread-safe: one thread of its own applies; the accessors may be called from any
// thread.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/statusor.h"
#include "raft/raft_storage.h"
#include "raft/snapshot_store.h"
#include "raft/state_machine.h"

namespace strata::raft {

struct RaftObserverOptions {
  std::vector<std::string> voters;  // "host:port" of each voter's RaftServer
  StateMachine* state_machine = nullptr;
  // Where received snapshots are kept (snapshots/ is created inside).
  std::string dir;
  // The last entry the state machine already holds (0: none).
  Index applied = 0;
  std::chrono::milliseconds retry_backoff{100};
  bool persist_log = false;
  int64_t keep_entries = 50'000;
  // Called once, on the observer's thread, when the state machine or the snapshot store
  // fails (the observer then stops; a broker stops with it).
  std::function<void(const absl::Status&)> on_fatal;
};

class RaftObserver {
 public:
  static absl::StatusOr<std::unique_ptr<RaftObserver>> Start(RaftObserverOptions options);
  ~RaftObserver();  // stops the thread

  Index applied() const;
  // The highest commit index a voter reported.
  Index commit_seen() const;
  int64_t snapshots_restored() const;
  // True once it stopped on a failure of its state machine or snapshot store.
  bool failed() const;
  // Waits until an entry at or past index is applied; false at the timeout.
  bool WaitForApplied(Index index, std::chrono::milliseconds timeout) const;

 private:
  struct Stream;
  explicit RaftObserver(RaftObserverOptions options) : options_(std::move(options)) {}
  void Run();
  // Follows one voter until its stream ends; returns why.
  absl::Status Follow(const std::string& address, bool* fatal);

  RaftObserverOptions options_;
  std::unique_ptr<SnapshotStore> snapshots_;
  std::unique_ptr<RaftStorage> log_;  // with persist_log; the observer's thread only
  // Appends entries to the local log (persist_log), compacting it now and then.
  absl::Status Persist(const std::vector<Entry>& entries);
  // Waiters (WaitForApplied, the retry backoff) wait on conditions over these.
  mutable absl::Mutex mu_;
  Index applied_ ABSL_GUARDED_BY(mu_) = 0;
  Index commit_seen_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t snapshots_restored_ ABSL_GUARDED_BY(mu_) = 0;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // The current call's grpc::ClientContext, to cancel it.
  std::shared_ptr<void> active_context_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace strata::raft
