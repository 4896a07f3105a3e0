#pragma once
// RaftObserver: a non-voting follower of the committed metadata log (a broker). It
// streams RaftTransport.Observe from one of the voters, from the entry after the last
// one it applied; when that entry is compacted away the voter sends its latest snapshot
// first, which the observer seals in its own SnapshotStore and restores into its state
// machine. With persist_log, every entry is also written (fsynced) into its own
// `__cluster_metadata-0` log in dir before it is applied; the log restarts after a
// restored snapshot and keeps about keep_entries behind the applied entry. It leaves a
// voter and moves on after a short pause when the stream fails, when nothing (not even
// a keep-alive, sent every kObserveKeepAliveInterval) arrives for stall_timeout (the
// connection went silent: a network partition), or when the voter has known no leader
// for stall_timeout (it is cut off from the quorum, so its commit index may never move
// again). It goes to the leader the voter last named, else to the next voter. A voter
// that names another voter as leader is left for that leader at once, as KRaft's
// observers fetch from the leader: a follower voter learns of a commit a round after
// the leader, so brokers streaming from followers would see a leadership change later
// than those at the leader, and a client would be told the old leader by them. A leader
// whose stream failed is not preferred again for kAvoidFailedLeaderFor (this observer
// may be cut off from it alone: it then stays with a follower). A failure
// of its state machine, log or snapshot store stops it (on_fatal).
// Thread-safe: one thread of its own applies, one watches for stalls; the accessors may
// be called from any thread.

#include <chrono>
#include <functional>
#include <map>
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
#include "raft/types.h"

namespace grpc {
class ChannelCredentials;
}

namespace strata::raft {

// How often a voter serving Observe sends a keep-alive when nothing commits.
inline constexpr std::chrono::milliseconds kObserveKeepAliveInterval{200};
// How long a leader whose stream failed is not preferred over the voter naming it.
inline constexpr std::chrono::seconds kAvoidFailedLeaderFor{10};

struct ObservedVoter {
  NodeId id = kNoNode;
  std::string address;  // "host:port" of its RaftServer
};

struct RaftObserverOptions {
  std::vector<ObservedVoter> voters;
  std::string cluster_id;  // named in every call; a voter of another cluster refuses it
  // The broker's TLS toward the controllers (security/grpc_tls.h; null: plaintext).
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  StateMachine* state_machine = nullptr;
  // Where received snapshots are kept (snapshots/ is created inside).
  std::string dir;
  // The last entry the state machine already holds (0: none).
  Index applied = 0;
  std::chrono::milliseconds retry_backoff{100};
  // Several keep-alive intervals: well below a broker session timeout, so that a broker
  // whose voter went silent finds the quorum again before the controller fences it.
  std::chrono::milliseconds stall_timeout{1000};
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
  // Streams given up because they went silent or their voter knew no leader.
  int64_t stalls() const;
  // The voter it streams from now (kNoNode: between streams).
  NodeId streaming_from() const;
  // True once it stopped on a failure of its state machine or snapshot store.
  bool failed() const;
  // Waits until an entry at or past index is applied; false at the timeout.
  bool WaitForApplied(Index index, std::chrono::milliseconds timeout) const;
  // Replaces the voters it follows (not empty): a dynamic quorum's changed (KIP-853).
  // The current stream goes on; the next one is chosen among these.
  void SetVoters(std::vector<ObservedVoter> voters);

 private:
  struct Stream;
  explicit RaftObserver(RaftObserverOptions options) : options_(std::move(options)), voters_(options_.voters) {}
  void Run();
  // Cancels the current stream when nothing arrived on it for stall_timeout.
  void Watch();
  // Follows one voter until its stream ends; returns why. *leader: the leader it last
  // named (kNoNode: none); *to_leader: it was left for that leader.
  absl::Status Follow(const ObservedVoter& voter, bool* fatal, NodeId* leader, bool* to_leader);
  bool IsVoter(NodeId id) const;

  RaftObserverOptions options_;
  std::unique_ptr<SnapshotStore> snapshots_;
  std::unique_ptr<RaftStorage> log_;  // with persist_log; the observer's thread only
  // Leaders whose stream failed, until when they are not preferred (observer's thread).
  std::map<NodeId, std::chrono::steady_clock::time_point> avoid_until_;
  // Appends entries to the local log (persist_log), compacting it now and then.
  absl::Status Persist(const std::vector<Entry>& entries);
  // Waiters (WaitForApplied, the retry backoff) wait on conditions over these.
  mutable absl::Mutex mu_;
  Index applied_ ABSL_GUARDED_BY(mu_) = 0;
  Index commit_seen_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t snapshots_restored_ ABSL_GUARDED_BY(mu_) = 0;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t stalls_ ABSL_GUARDED_BY(mu_) = 0;
  // The current call's grpc::ClientContext, to cancel it, and when it last delivered.
  std::shared_ptr<void> active_context_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point last_progress_ ABSL_GUARDED_BY(mu_);
  bool stalled_ ABSL_GUARDED_BY(mu_) = false;  // the watchdog cancelled the current call
  NodeId streaming_from_ ABSL_GUARDED_BY(mu_) = kNoNode;
  std::vector<ObservedVoter> voters_ ABSL_GUARDED_BY(mu_);  // options_.voters, then SetVoters'
  std::thread thread_;
  std::thread watchdog_;
};

}  // namespace strata::raft
