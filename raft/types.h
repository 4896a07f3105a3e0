#pragma once
// Raft's vocabulary: log entries, messages between nodes, the persistent hard state and
// the Ready hand-off from the core to its driver. Plain value types. Thread-safe as
// values are.

#include <cstdint>
#include <string>
#include <vector>

namespace strata::raft {

using NodeId = int32_t;
using Term = int64_t;
using Index = int64_t;  // 1-based; index 0 is the empty log's sentinel (term 0)

inline constexpr NodeId kNoNode = 0;

struct Entry {
  Term term = 0;
  Index index = 0;
  std::string data;  // empty for the no-op a new leader appends
  bool operator==(const Entry&) const = default;
};

enum class MessageType {
  kPreVote,
  kPreVoteResponse,
  kVote,
  kVoteResponse,
  kAppend,
  kAppendResponse,
  kHeartbeat,
  kHeartbeatResponse,
  // Leader -> follower whose next entry was compacted away: install the snapshot
  // (index, log_term). The snapshot's files travel beside the message (the transport
  // streams them first); the answer is an AppendResponse.
  kSnapshot,
};

const char* MessageTypeName(MessageType type);

struct Message {
  MessageType type = MessageType::kAppend;
  NodeId from = kNoNode;
  NodeId to = kNoNode;
  Term term = 0;
  // Append: the index and term of the entry before `entries`. Votes: the candidate's
  // last index and term. AppendResponse: the last index now matching (accept), or the
  // rejected index (reject).
  Index index = 0;
  Term log_term = 0;
  std::vector<Entry> entries;
  Index commit = 0;
  bool reject = false;
  // AppendResponse with reject: the follower's guess of where the logs may match,
  // and (in log_term) the term it holds there (fast backtracking).
  Index reject_hint = 0;
};

// A snapshot covers every entry up to and including index, whose term is term.
struct SnapshotMeta {
  Index index = 0;
  Term term = 0;
  bool operator==(const SnapshotMeta&) const = default;
};

// What must be durable before any message of the same Ready is sent.
struct HardState {
  Term term = 0;
  NodeId vote = kNoNode;
  Index commit = 0;
  bool operator==(const HardState&) const = default;
};

// The core's output, handed to the driver, which must in this order: install snapshot
// (when its index is not 0: the state machine restores it and the log restarts empty
// after it), persist hard_state (when changed) and entries (they overwrite the log from
// entries.front().index on), send messages, apply committed_entries, then Advance.
struct Ready {
  SnapshotMeta snapshot;
  HardState hard_state;
  bool hard_state_changed = false;
  std::vector<Entry> entries;
  std::vector<Message> messages;
  std::vector<Entry> committed_entries;
  bool empty() const { return snapshot.index == 0 && !hard_state_changed && entries.empty() && messages.empty() && committed_entries.empty(); }
};

}  // namespace strata::raft
