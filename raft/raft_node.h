#pragma once
// RaftNode: the driver around the Raft core. One thread per node owns the core, the
// clock (a tick every tick_interval), the RaftStorage and the outgoing side of the
// transport; everything else talks to it through queues. Each Ready is handled in the
// required order: persist (fsync), send, apply, Advance. An I/O error on the metadata
// log is fatal: the node logs one ERROR line, stops taking part (no vote, no append)
// and calls on_fatal, which in a server process exits non-zero.
// Thread-safe: Receive, Propose and the accessors may be called from any thread.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "raft/raft.h"
#include "raft/raft_storage.h"
#include "storage/file_ops.h"

namespace strata::raft {

// Delivers messages to other nodes; may drop them (Raft retries). Must not block.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual void Send(const Message& message) = 0;
};

struct RaftNodeOptions {
  Config config;
  std::string metadata_log_dir;
  storage::FileOps* ops = storage::FileOps::Default();
  std::chrono::milliseconds tick_interval{10};
  Transport* transport = nullptr;
  // Called on the driver thread for every committed entry, in order (from index 1
  // again after a restart, until snapshots exist).
  std::function<void(const Entry&)> apply;
  // Called once on the driver thread when the node stops on an I/O error.
  std::function<void(const absl::Status&)> on_fatal;
};

struct RaftNodeStatus {
  NodeId leader = kNoNode;
  Term term = 0;
  Role role = Role::kFollower;
  Index commit = 0;
  Index applied = 0;
  int64_t elections = 0;
  bool stopped = false;
};

class RaftNode {
 public:
  static absl::StatusOr<std::unique_ptr<RaftNode>> Start(RaftNodeOptions options);
  ~RaftNode();  // Stop()

  // Queues a message from another node.
  void Receive(Message message);
  // Appends data through the leader and waits until it is applied here: returns its
  // index, FAILED_PRECONDITION "not leader; leader is N", UNAVAILABLE when the entry
  // was replaced by a new leader's, or DEADLINE_EXCEEDED.
  absl::StatusOr<Index> Propose(std::string data, std::chrono::milliseconds timeout);
  RaftNodeStatus status() const;
  NodeId id() const { return options_.config.id; }
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

  explicit RaftNode(RaftNodeOptions options) : options_(std::move(options)) {}
  void Run();
  bool HandleReady();  // false after a fatal error
  // REQUIRES: mu_ held. Fails every waiting proposal with why.
  void MarkStoppedLocked(absl::string_view why);

  RaftNodeOptions options_;
  std::unique_ptr<RaftStorage> storage_;
  std::unique_ptr<Raft> raft_;  // driver thread only

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable progress_;
  std::deque<Message> inbox_;
  std::deque<std::shared_ptr<Proposal>> proposals_;             // waiting for the core
  std::map<Index, std::shared_ptr<Proposal>> pending_;          // in the log, waiting to apply
  RaftNodeStatus status_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace strata::raft
