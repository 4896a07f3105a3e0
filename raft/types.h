#pragma once
// Raft's vocabulary: log entries, messages between nodes, the persistent hard state and
// the Ready hand-off from the core to its driver. Plain value types. Thread-safe as
// values are.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace strata::raft {

using NodeId = int32_t;
using Term = int64_t;
using Index = int64_t;  // 1-based; index 0 is the empty log's sentinel (term 0)

inline constexpr NodeId kNoNode = 0;

// What an entry holds. kData entries go to the state machine; the others are the
// quorum's own configuration (KIP-853), stored as Kafka's KRaft control records
// (raft/voter_set.h): kKraftVersion a KRaftVersionRecord, kVoters a VotersRecord.
enum class EntryType : uint8_t { kData = 0, kKraftVersion = 1, kVoters = 2 };
const char* EntryTypeName(EntryType type);

struct Entry {
  Entry() = default;
  Entry(Term term, Index index, std::string data, EntryType type = EntryType::kData)
      : term(term), index(index), data(std::move(data)), type(type) {}

  Term term = 0;
  Index index = 0;
  std::string data;  // empty for the no-op a new leader appends
  EntryType type = EntryType::kData;
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
  // A dynamic quorum's directory ids (KIP-853; empty in a static one): of the sender
  // (every message), and in a vote request of the voter the candidate asks.
  std::string to_directory;
  std::string from_directory;
  // kSnapshot: the voters as of the snapshot (a VotersRecord; empty in a static quorum).
  std::string voters;
};

// A snapshot covers every entry up to and including index, whose term is term, and
// holds the voters as of index (a VotersRecord; empty in a static quorum).
struct SnapshotMeta {
  SnapshotMeta() = default;
  SnapshotMeta(Index index, Term term, std::string voters = {})
      : index(index), term(term), voters(std::move(voters)) {}

  Index index = 0;
  Term term = 0;
  std::string voters;
  // A snapshot is named by its index and term; the voters follow from them.
  bool operator==(const SnapshotMeta& o) const { return index == o.index && term == o.term; }
};

// Why a voter change was refused or did not complete (KIP-853; the controller answers
// with Kafka's error code in brackets).
enum class VoterChangeError {
  kNone,
  kNotLeader,        // NOT_CONTROLLER
  kStaticQuorum,     // UNSUPPORTED_VERSION: controller.quorum.voters, kraft.version 0
  kInProgress,       // REQUEST_TIMED_OUT: one change at a time
  kNotReady,         // REQUEST_TIMED_OUT: no entry of the leader's term committed yet
  kDuplicateVoter,   // DUPLICATE_VOTER
  kVoterNotFound,    // VOTER_NOT_FOUND
  kInvalidVoterKey,  // INVALID_VOTER_KEY: the id is a voter with another directory id
  kInvalidRequest,   // INVALID_REQUEST: the last voter, a lost quorum, a kraft.version range
  kTimedOut,         // REQUEST_TIMED_OUT: a new voter did not catch up, or no commit in time
  kLeadershipLost,   // NOT_CONTROLLER: the leader changed; the change may or may not be in
};
const char* VoterChangeErrorName(VoterChangeError error);

// The outcome of the change ProposeVoterChange numbered id.
struct VoterChangeResult {
  int64_t id = 0;
  VoterChangeError error = VoterChangeError::kNone;
  std::string message;
  bool ok() const { return error == VoterChangeError::kNone; }
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
  std::vector<VoterChangeResult> change_results;  // for the driver to hand to the callers
  bool empty() const {
    return snapshot.index == 0 && !hard_state_changed && entries.empty() && messages.empty() &&
           committed_entries.empty() && change_results.empty();
  }
};

}  // namespace strata::raft
