#pragma once
// VoterSet: the voters of a dynamic quorum (KIP-853), as the Raft log and snapshots hold
// them: each voter's node id, the directory id of its metadata log dir (a voter is the
// pair: a node whose disk was formatted again is another voter), its endpoints and the
// kraft.version range it supports. Encoded as Kafka's VotersRecord v0 (the value of a
// KRAFT_VOTERS control record), with KRaftVersionRecord v0 (KRAFT_VERSION) beside it,
// so that an operator's knowledge and Kafka's tools carry over. Changes go one voter at a
// time (Add / Remove / UpdateEndpoints), each refused with the reason when it would break
// the quorum's rules.
// Value types; not thread-safe.
//
// (Step 1 of docs/dynamic-voters-plan.md: RaftStorage stores configuration entries as
// control records; the core does not write any yet.)

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "raft/types.h"

namespace strata::raft {

// Kafka's ControlRecordType values for KRaft's control records.
inline constexpr int16_t kKraftVersionControlType = 5;
inline constexpr int16_t kKraftVotersControlType = 6;

// kraft.version: 0 a static quorum (controller.quorum.voters; nothing in the log), 1 a
// dynamic one (VotersRecord entries and snapshots hold the voters).
inline constexpr int16_t kKraftVersionStatic = 0;
inline constexpr int16_t kKraftVersionDynamic = 1;

struct Endpoint {
  std::string name;  // the listener's name (CONTROLLER)
  std::string host;
  uint16_t port = 0;
  bool operator==(const Endpoint&) const = default;
};

struct Voter {
  NodeId id = 0;
  std::string directory_id;  // 16 raw bytes
  std::vector<Endpoint> endpoints;
  int16_t min_kraft_version = 0;
  int16_t max_kraft_version = kKraftVersionDynamic;
  bool operator==(const Voter&) const = default;
};

class VoterSet {
 public:
  VoterSet() = default;
  // INVALID_ARGUMENT naming the voter: an id twice, a directory id not of 16 bytes, an
  // endpoint name twice in one voter, an empty set.
  static absl::StatusOr<VoterSet> Of(std::vector<Voter> voters);
  // A static quorum's voters (controller.quorum.voters, kraft.version 0): ids only, no
  // directory ids or endpoints. Never encoded: a static quorum writes no VotersRecord.
  // REQUIRES: ids not empty, no id twice.
  static VoterSet Static(const std::vector<NodeId>& ids);

  // Whether this is a static quorum's set (kraft.version 0): voter changes are refused.
  // An empty set is a dynamic node's that has not learned its voters yet.
  bool is_static() const { return is_static_; }
  int16_t kraft_version() const { return is_static_ ? kKraftVersionStatic : kKraftVersionDynamic; }
  const std::map<NodeId, Voter>& voters() const { return voters_; }
  size_t size() const { return voters_.size(); }
  bool empty() const { return voters_.empty(); }
  std::vector<NodeId> ids() const;
  // The votes that decide an election or a commit: a majority of the voters.
  size_t Majority() const { return voters_.size() / 2 + 1; }
  // Whether (id, directory_id) is a voter; an empty directory_id on either side matches
  // any (a static quorum's voters have none).
  bool Contains(NodeId id, absl::string_view directory_id = {}) const;
  const Voter* Find(NodeId id) const;

  // The set with voter added: ALREADY_EXISTS when its id is a voter already (with any
  // directory id: one voter per node).
  absl::StatusOr<VoterSet> Add(Voter voter) const;
  // The set without (id, directory_id): NOT_FOUND when that is not a voter,
  // FAILED_PRECONDITION for the last voter (a quorum of none can elect nobody).
  absl::StatusOr<VoterSet> Remove(NodeId id, absl::string_view directory_id) const;
  // The set with the voter's endpoints and supported versions replaced (UpdateRaftVoter).
  absl::StatusOr<VoterSet> Update(const Voter& voter) const;

  // VotersRecord v0 (flexible): version, voters [id, directory uuid, endpoints [name,
  // host, port], kraft.version range], tagged fields. REQUIRES: not a Static() set.
  std::string Encode() const;
  static absl::StatusOr<VoterSet> Decode(absl::string_view data);

  // "1 (directory <hex>) CONTROLLER://host:port kraft.version [0, 1]; 2 ...", for logs and
  // strata-storage dump.
  std::string DebugString() const;

  bool operator==(const VoterSet&) const = default;

 private:
  std::map<NodeId, Voter> voters_;
  bool is_static_ = false;
};

// A directory id as operators see it everywhere else (meta.properties, `strata quorum
// describe`, Kafka's tools): Kafka's Uuid text, URL-safe base64 of 22 characters; other
// lengths in hex.
std::string DirectoryIdText(absl::string_view directory_id);

// KRaftVersionRecord v0 (flexible): version, kraft.version.
std::string EncodeKraftVersion(int16_t kraft_version);
absl::StatusOr<int16_t> DecodeKraftVersion(absl::string_view data);

// A control record's key (Kafka's ControlRecordType: int16 version 0, int16 type).
std::string EncodeControlKey(int16_t type);
absl::StatusOr<int16_t> DecodeControlKey(absl::string_view key);

// The control record type that stores a configuration entry (KRAFT_VERSION or
// KRAFT_VOTERS; kData entries are not control records), and back: INVALID_ARGUMENT for a
// control type the metadata log never holds.
int16_t ControlTypeOf(EntryType type);
absl::StatusOr<EntryType> EntryTypeOfControl(int16_t control_type);

// Whether a configuration entry's data decodes (OK for a data entry): what comes from a
// disk or a peer is checked here, so the core can rely on it.
absl::Status ValidateConfigurationEntry(const Entry& entry);

}  // namespace strata::raft
