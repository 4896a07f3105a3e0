#pragma once
// RaftNode: the driver around the Raft core. One thread per node owns the core, the
// clock (a tick every tick_interval), the RaftStorage and the outgoing side of the
// transport; everything else talks to it through queues. Each Ready is handled in the
// required order: persist (fsync), send, apply, Advance. An I/O error on the metadata
// log is fatal: the node logs one ERROR line, stops taking part (no vote, no append)
// and calls on_fatal, which in a server process exits non-zero. The same happens when the
// metadata log's files disappear from under it (checked every second).
// Snapshots: once the entries applied since the last snapshot reach snapshot_bytes, the
// state machine writes a snapshot into the SnapshotStore, the core compacts and the
// log's segments below it are deleted. At startup the state machine restores the
// latest snapshot and only the entries after it are applied again.
// Thread-safe: Receive, Propose and the accessors may be called from any thread.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/statusor.h"
#include "raft/raft.h"
#include "raft/raft_storage.h"
#include "raft/snapshot_store.h"
#include "raft/state_machine.h"
#include "storage/file_ops.h"

namespace strata::raft {

class SnapshotStore;

// Delivers messages to other nodes; may drop them (Raft retries). Must not block.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual void Send(const Message& message) = 0;
  // A kSnapshot message: carries the files of the snapshot (message.index,
  // message.log_term) from store into the peer's SnapshotStore, delivers the message
  // after them, then calls done(true); done(false) when the transfer failed.
  virtual void SendSnapshot(const Message& message, const SnapshotStore& store, std::function<void(bool ok)> done) = 0;
};

// The bytes a one-record batch adds around an entry's data in the metadata log.
inline constexpr int64_t kEntryOverheadBytes = 256;

// The quorum as this node sees it (KIP-853).
struct Membership {
  VoterSet voters;                // the latest configuration in its log
  std::optional<Voter> learner;   // while it leads: a voter being added, catching up
  bool operator==(const Membership&) const = default;
};

struct RaftNodeOptions {
  Config config;
  std::string metadata_log_dir;
  storage::FileOps* ops = storage::FileOps::Default();
  std::chrono::milliseconds tick_interval{10};
  Transport* transport = nullptr;
  // Required. Applied on the driver thread, in order; restored from the latest snapshot
  // at startup.
  StateMachine* state_machine = nullptr;
  // metadata.log.max.record.bytes.between.snapshots (Kafka's name and default).
  int64_t snapshot_bytes = 20 << 20;
  // metadata.log.segment.bytes; at least max_entry_bytes + kEntryOverheadBytes, so
  // that every entry fits in a segment.
  int64_t segment_bytes = 1 << 30;
  // Larger proposals are refused (INVALID_ARGUMENT) before they reach the log. Every
  // voter must use the same limit: a follower that cannot store an entry stops.
  int64_t max_entry_bytes = 1 << 20;
  // Called once on the driver thread when the node stops on an I/O error.
  std::function<void(const absl::Status&)> on_fatal;
  // Called with the nodes this one exchanges messages with (its configuration's voters
  // and, while it leads, a learner catching up): once from Start, then on the driver
  // thread whenever they change.
  std::function<void(const Membership&)> on_membership;
};


struct RaftNodeStatus {
  NodeId leader = kNoNode;
  Term term = 0;
  Role role = Role::kFollower;
  Index commit = 0;
  Index applied = 0;
  int64_t elections = 0;
  Index snapshot_index = 0;
  int64_t snapshots_taken = 0;
  int64_t snapshots_installed = 0;
  bool stopped = false;
  // While this node leads (else empty): each voter's replication state, as Kafka's
  // DescribeQuorum reports it.
  struct VoterState {
    NodeId id = kNoNode;
    Index match = 0;  // the last index known to be in its log
    // Its last answer to this leader's Append or heartbeat in this term (wall clock);
    // -1 for the leader itself or before the first.
    int64_t last_fetch_unix_ms = -1;
    // When its log last reached this leader's last index (wall clock, seen by the
    // leader); now for the leader itself, -1 before the first time in this term.
    int64_t last_caught_up_unix_ms = -1;
  };
  std::vector<VoterState> voters;
  // The quorum's voters (the latest configuration in the log); kraft.version 0 for a
  // static quorum, 1 for a dynamic one.
  VoterSet configuration;
  int16_t kraft_version = 0;
  // While it leads and a voter is being added: the learner and its match index.
  NodeId learner = kNoNode;
  std::string learner_directory_id;
  Index learner_match = 0;
  int64_t voter_changes = 0;  // completed through this node while it led
};

class RaftNode {
 public:
  static absl::StatusOr<std::unique_ptr<RaftNode>> Start(RaftNodeOptions options);
  ~RaftNode();  // Stop()

  // Queues a message from another node.
  void Receive(Message message);
  // Appends data through the leader and waits until it is applied here: returns its
  // index, FAILED_PRECONDITION "not leader; leader is N", UNAVAILABLE when the entry
  // was replaced by a new leader's, INVALID_ARGUMENT when data exceeds
  // max_entry_bytes, or DEADLINE_EXCEEDED.
  absl::StatusOr<Index> Propose(std::string data, std::chrono::milliseconds timeout);
  // Changes the voters by one (Raft::ProposeVoterChange) through this node, which must
  // lead; waits up to timeout for the outcome: refused at once with the reason, done,
  // or kTimedOut (a new voter that did not catch up, an entry not committed in time).
  // change.timeout_ticks is derived from timeout.
  VoterChangeResult ChangeVoters(VoterChange change, std::chrono::milliseconds timeout);
  RaftNodeStatus status() const;
  NodeId id() const { return options_.config.id; }

  // Received snapshots are written here by the transport before the kSnapshot message.
  SnapshotStore& snapshots() { return *snapshots_; }
  // Committed entries from index from on (at most max_bytes, at least one entry when
  // there is one): for observers. OFFSET_OUT_OF_RANGE when from is compacted away (read
  // snapshots().Latest() first); UNAVAILABLE once the node stopped.
  absl::StatusOr<std::vector<Entry>> ReadCommitted(Index from, size_t max_bytes) const;
  // Waits until the commit index passes `index`, the node stops or the timeout ends;
  // returns the commit index.
  Index WaitForCommit(Index index, std::chrono::milliseconds timeout) const;
  // The transport reports how a snapshot transfer ended.
  void ReportSnapshot(NodeId to, bool ok);
  // Stops the thread without a clean close (as a crash would, minus lost page cache).
  void Stop();
  // Stops the thread and closes the metadata log cleanly (orderly shutdown).
  absl::Status Close();

 private:
  struct Proposal {
    std::string data;
    Index index = 0;
    Term term = 0;
    bool done = false;
    absl::Status result;
  };
  struct ChangeRequest {
    VoterChange change;
    bool done = false;
    VoterChangeResult result;
  };

  explicit RaftNode(RaftNodeOptions options) : options_(std::move(options)) {}
  void Run();
  bool HandleReady();  // false after a fatal error
  absl::Status InstallSnapshot(const SnapshotMeta& meta);
  absl::Status MaybeTakeSnapshot();
  // Stops the node on a metadata log error: one ERROR line, then on_fatal.
  void Fail(const absl::Status& why);
  // The voters' replication state for status_ (driver thread; empty unless leading).
  std::vector<RaftNodeStatus::VoterState> VoterStates();
  // Clears the voters' times when the term moved on since they were taken.
  void ForgetVoterTimesOfOldTerms();
  // Fails every waiting proposal with why.
  void MarkStoppedLocked(absl::string_view why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands the core's voter change results to their callers.
  void FinishChanges(const std::vector<VoterChangeResult>& results);
  // Calls on_membership when the voters or the learner changed.
  void MaybeReportMembership();

  RaftNodeOptions options_;
  std::unique_ptr<RaftStorage> storage_;
  std::unique_ptr<SnapshotStore> snapshots_;
  std::unique_ptr<Raft> raft_;  // driver thread only
  int64_t bytes_since_snapshot_ = 0;  // driver thread only
  // While leading, per voter (driver thread only): the wall-clock times status_.voters
  // reports; cleared when the term or the role changes.
  Term voters_term_ = 0;
  std::map<NodeId, int64_t> last_answer_unix_ms_;
  std::map<NodeId, int64_t> caught_up_unix_ms_;
  std::optional<Membership> membership_;  // as last reported (driver thread only)

  // Guards what is below and every Proposal's done, index, term and result. The driver
  // thread and the waiters (Propose, WaitForCommit) wait on conditions over them.
  mutable absl::Mutex mu_;
  std::deque<Message> inbox_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<NodeId, bool>> snapshot_reports_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Proposal>> proposals_ ABSL_GUARDED_BY(mu_);     // waiting for the core
  std::map<Index, std::shared_ptr<Proposal>> pending_ ABSL_GUARDED_BY(mu_);  // in the log, waiting to apply
  std::deque<std::shared_ptr<ChangeRequest>> change_requests_ ABSL_GUARDED_BY(mu_);  // waiting for the core
  std::map<int64_t, std::shared_ptr<ChangeRequest>> pending_changes_ ABSL_GUARDED_BY(mu_);  // by change id
  RaftNodeStatus status_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace strata::raft
